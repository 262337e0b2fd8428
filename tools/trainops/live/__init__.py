"""Against a live cluster: the cluster's own answer for every layer, its drift from git, its health.

Connecting as kubectl does (`connection`), the one client that talks to the API server and cannot
write (`client`: GETs, and PATCH or POST only with dryRun=All), what the server serves
(`discovery`), an environment's layers in the order Argo CD and Flux apply them with their
`ignoreDifferences` and ownership marks (`layers`, `ignore_differences`), the server-side-apply
dry run of one object (`dry_run`) and of every layer (`verify`), live against rendered (`drift`),
one definition of health (`health`) and the state of each training job (`jobs`, `diagnosis`,
`status`). It may import `review`, `check` and every stage below them; reporters and commands sit
above it.
"""
