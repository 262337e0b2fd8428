"""Files in, rendered objects out: everything between a kustomization and the YAML it builds.

Reading kustomizations and finding roots (`kustomization`), the kustomize backends and the
helper process of the in-process one (`kustomize`, `kustomize_worker`), the render cache
(`render_cache`), raw-URL files and remote bases through the offline mirror (`raw_files`,
`remote_bases`, `mirror`), the `Renderer` that ties them together, and the git revisions a
review compares (`revisions`). It may import `trainops.model` only.
"""
