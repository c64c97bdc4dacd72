"""Agent transcripts: parsing, the searchable session archive, redaction, token X-ray."""
