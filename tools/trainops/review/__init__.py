"""Review of a change: what differs between two revisions of the repository, root by root.

`compare` renders both revisions and pairs their objects; `objectdiff` diffs one object's
fields and `crddiff` judges a CustomResourceDefinition's change for compatibility. It may import
the check stage and everything below it; its reporters live in `trainops.report`.
"""
