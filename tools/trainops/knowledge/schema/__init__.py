"""Schemas for every kind the repository renders: core kinds from the Kubernetes JSON schemas that
the kubernetes-validate package ships (strict), custom resources from the CRDs the operators layer
renders at the pinned refs, converted to JSON Schema and cached by content hash."""
