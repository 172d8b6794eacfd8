"""The database file itself: opening it safely, telling damage from a lock, the clean-close
stamp, the buffer pool, the extensions and the snapshot two indexes are compared by."""
