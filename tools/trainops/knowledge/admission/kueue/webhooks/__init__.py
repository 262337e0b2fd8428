"""Kueue v0.18.6 pkg/webhooks: the validating webhooks of Kueue's own kinds."""
