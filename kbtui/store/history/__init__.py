"""Every version of every note kbtui wrote or saw, so any change can be undone."""

from kbtui.store.history.proposals import Proposal, Proposals
from kbtui.store.history.versions import History, Version

__all__ = ["History", "Proposal", "Proposals", "Version"]
