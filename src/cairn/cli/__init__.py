"""The command line: one module per command group, each thin (parse args, call the library, render)."""
