"""One module per CLI verb: each defines `register(subparsers)` and `run(args) -> exit code`.

A command parses its options, loads the config with the rule ids it knows, runs a stage (check,
review, render) and hands the outcome to a reporter. It may import every package but `cli`.
"""
