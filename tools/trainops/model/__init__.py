"""What every stage shares: objects and their shape, findings, errors, paths, quantities.

Kubernetes objects as parsed from YAML (`objects`, with the YAML 1.1 scalar rules Kubernetes
reads), a rendered root and the roots applied to one cluster (`rendered`), findings and the
ignores that silence them, the repository's `trainops.yaml` (`config`), the content-addressed
cache (`cache`) and child processes. Nothing here knows how a root is rendered or what a kind
means to the cluster: this package imports nothing else of trainops.
"""
