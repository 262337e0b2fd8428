"""Training Operator v1.8.1 pkg/webhooks: one module a job kind."""
