"""Reading the vault: decoding, parsing, chunking and scanning. Never writes a note: the edits
live in kbtui.vault.edit."""
