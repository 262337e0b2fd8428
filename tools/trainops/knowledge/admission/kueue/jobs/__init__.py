"""Kueue v0.18.6 pkg/controller/jobs: the webhooks of the job kinds Kueue manages, one module a
job integration, as upstream lays them out."""
