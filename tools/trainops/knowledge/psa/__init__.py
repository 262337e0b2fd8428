"""Pod Security Standards evaluated as the Kubernetes admission library does, version by version.

`checks` holds the checks, `registry` picks the ones a level and version run (with the restricted
checks that replace baseline ones), `pods` finds pod templates wherever a kind nests them.
"""
