"""The only package that speaks SQL."""

from kbtui.store.db import Store, StoreError, StoreLockedError

__all__ = ["Store", "StoreError", "StoreLockedError"]
