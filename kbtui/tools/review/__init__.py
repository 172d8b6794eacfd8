"""Review mode: an assistant's writes held as proposals until a person accepts or rejects
them (`hold`: in the dispatch; `decide`: the TUI's operations on them)."""
