"""JobSet v0.12.0 pkg/webhooks."""
