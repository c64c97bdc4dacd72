"""The request path: tokenize -> channels (text, names, graph) -> fuse (RRF) -> pack to a budget."""
