"""The code map: scan -> parse (tree-sitter tags) -> resolve imports -> graph -> rank -> maps."""
