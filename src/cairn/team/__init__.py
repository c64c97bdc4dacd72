"""The team archive: the redacted session archive shared through a PostgreSQL database (opt-in)."""
