"""Files that are not notes: which kinds are attachments (kinds) and the text of PDFs (pdf)."""
