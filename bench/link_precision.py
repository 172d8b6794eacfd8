"""Precision of link suggestions (kg_suggest_links over the whole vault) on labelled samples.

bench/link_labels.jsonl holds suggestions labelled by hand (`mention`: would a reader want
that link?): every one kepano's vault gave before issue 28, and on obsidian-hub a random 30
of the 15,920 given before and two random 60 of those given as the rules were written.
For each vault this prints how many suggestions kg_suggest_links makes now, how many of
them are labelled, and the precision over those (labelled mentions / labelled).

    .venv/bin/python bench/link_precision.py --kepano DIR --hub DIR

Each DIR is an indexed copy of the vault (kepano: /work/shared/data/vaults/kepano;
hub: obsidian-community/obsidian-hub).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kbtui.config import Settings
from kbtui.runtime.knowledge_base import KnowledgeBase

LABELS = Path(__file__).resolve().parent / "link_labels.jsonl"


def suggestions(vault: Path) -> list[dict[str, Any]]:
    """Every suggestion over the whole vault, as kg_suggest_links finds them (no limit)."""
    kb = KnowledgeBase.open(Settings.for_vault(vault), None)
    try:
        kb.indexer.run(embed=False)
        links = kb.tools.links
        found = links._scan(
            kb.store.name_owners(),
            list(kb.store.note_paths().items()),
            kb.store.linked_pairs(),
            every=False,
        )
        answer = kb.call("kg_suggest_links", {"limit": 1})
        assert answer["totalFound"] == len(found), (answer["totalFound"], len(found))
        return found
    finally:
        kb.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kepano", type=Path)
    parser.add_argument("--hub", type=Path)
    args = parser.parse_args()
    labels: dict[tuple[str, ...], bool] = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        key = (r["vault"], r["file"], str(r["line"]), str(r["column"]), r["text"], r["target"])
        labels[key] = r["mention"]
    print(f"{'vault':8} {'suggested':>9} {'labelled':>8} {'mentions':>8} {'precision':>9}")
    for name in ("kepano", "hub"):
        vault: Path | None = getattr(args, name)
        if vault is None:
            continue
        found = suggestions(vault)
        judged = [
            labels[k]
            for s in found
            if (
                k := (
                    name,
                    s["filePath"],
                    str(s["line"]),
                    str(s["column"]),
                    s["text"],
                    s["targetEntityId"],
                )
            )
            in labels
        ]
        good = sum(judged)
        share = f"{100 * good / len(judged):.0f}%" if judged else "-"
        print(f"{name:8} {len(found):9} {len(judged):8} {good:8} {share:>9}")


if __name__ == "__main__":
    main()
