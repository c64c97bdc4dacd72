"""cairn: local project memory and context manager for AI coding agents."""

__version__ = "0.1.0"
