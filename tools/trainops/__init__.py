"""trainops: render every layer of the training platform with kustomize and prove it correct."""

__version__ = "0.1.0"
