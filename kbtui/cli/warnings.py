"""Index warnings, summarised: one line per kind past a few, with examples.

redis's docs printed 3,578 warnings of one kind ("id ... is already used by ...; indexed as
..."), one per versioned page. A kind is the reason with its names taken out (any word
holding `:`, `/`, `.`, `_` or a digit); a kind seen more than EXAMPLES times prints its count
and EXAMPLES of them, and `--verbose` prints every one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from kbtui.models import Skipped

EXAMPLES = 3
_NAME = re.compile(r"\S*[:/._\d]\S*")


def kind(reason: str) -> str:
    """The reason with its names replaced by `…`: warnings of one kind share it."""
    return _NAME.sub("…", reason)


def print_warnings(
    console: Console, warnings: Sequence[Skipped], verbose: bool, label: str = "warning"
) -> None:
    kinds: dict[str, list[Skipped]] = {}
    for w in warnings:
        kinds.setdefault(kind(w.reason), []).append(w)
    for key, items in kinds.items():
        shown = items if verbose or len(items) <= EXAMPLES else items[:EXAMPLES]
        if len(shown) < len(items):
            console.print(f"  [dim]{label}[/]", Text(f"{len(items)} notes: {key}"), soft_wrap=True)
        for w in shown:
            console.print(f"  [dim]{label}[/]", Text(f"{w.path}: {w.reason}"), soft_wrap=True)
        if len(shown) < len(items):
            more = len(items) - len(shown)
            console.print(f"  [dim]… {more} more; `kbtui index --verbose` lists them all[/]")
