"""SQLite plumbing: connections (WAL, busy timeout) and schemas as plain migration functions."""
