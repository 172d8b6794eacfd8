"""The only package that speaks SQL."""

from kbtui.store.db import DatabaseError, Store, StoreError, StoreLockedError

__all__ = ["DatabaseError", "Store", "StoreError", "StoreLockedError"]
