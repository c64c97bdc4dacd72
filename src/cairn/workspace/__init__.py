"""A workspace of repositories: the user's list of projects that search, explain, path and the map answer across.

registry.py keeps the list (CAIRN_HOME only), members.py checks each entry, fanout.py runs a
request per member's index and merges, exports.py and edges.py find the imports that cross
repositories, explain.py and overview.py show them.
"""
