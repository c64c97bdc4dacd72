"""One exception type for every error a user should see as a clear one-line message."""


class CairnError(Exception):
    """An expected failure: the CLI prints its message (no traceback) and exits 1."""
