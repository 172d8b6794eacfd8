"""Index warnings, summarised: each note named, and one kind past a few kept short.

redis's docs printed 3,578 warnings of one kind ("id ... is already used by ...; indexed as
..."), one per versioned page. A kind is the reason with its names taken out (any word
holding `:`, `/`, `.`, `_` or a digit). Up to LIST_ALL warnings of a kind print in full; past
that, EXAMPLES of them in full, then the other notes by path (up to NAMES of them) and how
many more there are; `--verbose` prints every one. No line shows the kind itself: a reason
with its names taken out ("id … is already used by … - Community …") names no note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from kbtui.models import Skipped

LIST_ALL = 10
EXAMPLES = 3
NAMES = 10
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
    for items in kinds.values():
        shown = items if verbose or len(items) <= LIST_ALL else items[:EXAMPLES]
        for w in shown:
            console.print(f"  [dim]{label}[/]", Text(f"{w.path}: {w.reason}"), soft_wrap=True)
        rest = items[len(shown) :]
        if rest:
            named = ", ".join(w.path for w in rest[:NAMES])
            more = len(rest) - NAMES
            tail = f", and {more} more" if more > 0 else ""
            console.print(
                f"  [dim]{label}[/]",
                Text(f"the same for {len(rest)} other notes: {named}{tail}"),
                soft_wrap=True,
            )
            console.print("  [dim]`kbtui index --verbose` prints each warning in full[/]")
