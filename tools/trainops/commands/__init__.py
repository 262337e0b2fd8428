"""One module per CLI verb: each defines `register(subparsers)` and `run(args) -> exit code`."""
