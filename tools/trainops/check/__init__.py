"""A run of the checks: which roots, rendered and read, the catalog of schemas, the rules run.

Chooses the roots a run covers (all, those that render given files, a context), loads each
(render or read, parse, locate origins), renders the CRD roots and caches their schemas
(`crd_roots`), groups roots into clusters, runs the selected rules and settles ignores and
severities into an outcome. It may import the rules and every stage below them; reporters and
commands sit above it.
"""
