"""The knowledge files of a project, read: what a node file holds, which files are decision records.

Both the index run (codemap/knowledge_index.py puts the nodes into the code graph and the map lists
the key decisions) and `cairn.memory` (which writes, checks and shows them) read knowledge through
here, so it sits below both:

- node.py: the node file format (front matter, body, links), parsed and rendered;
- wikilinks.py: the `[[links]]` a person writes in a node's body (code skipped);
- vault_read.py: reading a vault folder (`.cairn/knowledge/`, the personal vault), through the
  vault index of parsed notes (vault_index.py);
- records.py: which files of the tree are decision records (with record_shape.py: names, folders,
  series, sections); record_nodes.py: those records as read-only nodes, their relations resolved;
- graph.py: links resolved, supersede chains, ranking by value (importance.py);
- load.py: all of it as one graph for a project.
"""
