"""The warm processes: what answers a hook, a command line or an MCP start with cairn already loaded.

A page in docs/ARCHITECTURE.md ("The warm processes") says which process answers what, at which
socket, when it leaves, and how to turn them off (CAIRN_WARM=0). Nothing is imported here: the hook
client (hook_client.py) is what every prompt pays.
"""
