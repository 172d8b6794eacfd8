"""The only package that speaks SQL."""

from kbtui.store.db import DatabaseError, Store
from kbtui.store.recover import StoreDamagedError, StoreError, StoreLockedError

__all__ = ["DatabaseError", "Store", "StoreDamagedError", "StoreError", "StoreLockedError"]
