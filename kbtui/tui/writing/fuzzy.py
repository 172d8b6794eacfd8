"""Fuzzy picking for the write dialogs (a folder, a note to link): rapidfuzz's WRatio, with
names that start with what was typed first, then those that hold it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz, process, utils

CUTOFF = 50.0
_SEPARATORS = re.compile(r"[_\-]+")


def _plain(text: str) -> str:
    """Lower case, `_` and `-` read as spaces (`kestrel_dashboard` starts with `kestrel d`)."""
    return _SEPARATORS.sub(" ", text.casefold())


def rank(query: str, choices: Sequence[str], limit: int) -> list[int]:
    """Indexes of the `limit` choices that match `query` best (all, in order, when it is
    empty)."""
    wanted = _plain(query.strip())
    if not wanted:
        return list(range(min(limit, len(choices))))
    hits = process.extract(
        wanted,
        choices,
        scorer=fuzz.WRatio,
        processor=utils.default_process,
        limit=limit * 4,
        score_cutoff=CUTOFF,
    )

    def order(hit: tuple[str, float, int]) -> tuple[bool, bool, float, int]:
        low = _plain(hit[0])
        name = low.rsplit("/", 1)[-1]
        return (not name.startswith(wanted), wanted not in low, -hit[1], len(low))

    return [index for _, _, index in sorted(hits, key=order)][:limit]
