"""One exception type for every error a user should see as a clear one-line message."""


class CairnError(Exception):
    """An expected failure: the CLI prints its message (no traceback) and exits `exit_code` (1)."""

    exit_code = 1


class PathRefused(CairnError):
    """A path cairn will not read or write: the message names the path and the rule; exit code 2."""

    exit_code = 2

    def __init__(self, path: object, rule: str) -> None:
        super().__init__(f"{path}: refused: {rule}")
        self.path = str(path)
        self.rule = rule


class LockBusy(CairnError):
    """Another process held a lock for longer than the caller was willing to wait (util/filelock.py)."""


def printable(text: str) -> str:
    """One line with no control characters: SQLite quotes raw bytes of a damaged file in its errors."""
    out = "".join(c if c.isprintable() else (" " if c in "\n\r\t" else f"\\x{ord(c):02x}") for c in text)
    return out.encode("utf-8", "backslashreplace").decode("utf-8")
