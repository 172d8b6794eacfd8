"""Precision of link suggestions (kg_suggest_links over the whole vault) on labelled samples.

bench/link_labels.jsonl holds suggestions labelled by hand (`mention`: would a reader want
that link?): every one kepano's vault gave before issue 28, and on obsidian-hub a random 30
of the 15,920 given before and two random 60 of those given as the rules were written. Those
were read to write the rules; the held-out figures are the fresh samples (`--draw`, seeded,
among suggestions not labelled yet): `fresh-before` (seed 2811) drawn before the next rules,
`fresh-after` (seed 4513) after the label/feature-list/day rules, `fresh-after-2` (seed
90210) after all of them. A second pass drew `lp2-before` (seed 3141) before its rules
(kbtui.graph.named_after's other ways of naming a service or phrase, labels with a
parenthesis, entries with "h1") and `lp2-after` (seed 27182) after them (93%; one rule,
"<name> integration", was then written from it), and `lp2-after-2` (seed 60221) after that,
never used for a rule (92%).
For each vault this prints how many suggestions kg_suggest_links makes now, how many of
them are labelled, and the precision over those (labelled mentions / labelled).

    .venv/bin/python bench/link_precision.py --kepano DIR --hub DIR [--per-sample]
    .venv/bin/python bench/link_precision.py --hub DIR --draw 60 --seed 7 > fresh.jsonl

`--per-sample` prints the precision of each labelled sample apart (the samples drawn after
the rules were written are the held-out figure). `--draw N` prints N suggestions picked at
random (seeded) among those not labelled yet, as label records with `mention` null: read
each sentence and its target note, fill in `mention`, append them to the labels file.

Each DIR is an indexed copy of the vault (kepano: /work/shared/data/vaults/kepano;
hub: obsidian-community/obsidian-hub).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
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
        found = links.mentions.scan(
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
    parser.add_argument("--per-sample", action="store_true", help="precision of each sample")
    parser.add_argument("--draw", type=int, default=0, help="print N unlabelled suggestions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", default="fresh", help="sample name for --draw")
    args = parser.parse_args()
    labels: dict[tuple[str, ...], bool] = {}
    samples: dict[tuple[str, ...], str] = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        key = (r["vault"], r["file"], str(r["line"]), str(r["column"]), r["text"], r["target"])
        labels[key] = r["mention"]
        samples[key] = r["sample"]
    if args.draw:
        draw(args, labels)
        return
    print(f"{'vault':8} {'suggested':>9} {'labelled':>8} {'mentions':>8} {'precision':>9}")
    for name in ("kepano", "hub"):
        vault: Path | None = getattr(args, name)
        if vault is None:
            continue
        found = suggestions(vault)
        keys = [label_key(name, s) for s in found]
        judged = [labels[k] for k in keys if k in labels]
        good = sum(judged)
        share = f"{100 * good / len(judged):.0f}%" if judged else "-"
        print(f"{name:8} {len(found):9} {len(judged):8} {good:8} {share:>9}")
        if args.per_sample:
            per_sample(name, set(keys), labels, samples)


def label_key(vault: str, s: dict[str, Any]) -> tuple[str, ...]:
    """A suggestion's identity in the labels file."""
    where = (s["filePath"], str(s["line"]), str(s["column"]), s["text"], s["targetEntityId"])
    return (vault, *where)


def per_sample(
    vault: str,
    kept: set[tuple[str, ...]],
    labels: dict[tuple[str, ...], bool],
    samples: dict[tuple[str, ...], str],
) -> None:
    """For each labelled sample of `vault`: precision now, and how many of its labelled
    mentions are no longer suggested (recall lost) and labelled mistakes dropped."""
    for sample in sorted({samples[k] for k in labels if k[0] == vault}):
        mine = [k for k in labels if k[0] == vault and samples[k] == sample]
        now = [labels[k] for k in mine if k in kept]
        lost = sum(1 for k in mine if labels[k] and k not in kept)
        dropped = sum(1 for k in mine if not labels[k] and k not in kept)
        share = f"{100 * sum(now) / len(now):.0f}%" if now else "-"
        print(
            f"  {sample:16} labelled {len(mine):3}  still suggested {len(now):3}  "
            f"precision {share:>4}  right ones lost {lost}  wrong ones dropped {dropped}"
        )


def draw(args: argparse.Namespace, labels: dict[tuple[str, ...], bool]) -> None:
    """Print `args.draw` unlabelled suggestions per vault, picked with `args.seed`."""
    for name in ("kepano", "hub"):
        vault: Path | None = getattr(args, name)
        if vault is None:
            continue
        fresh = [s for s in suggestions(vault) if label_key(name, s) not in labels]
        picked = random.Random(args.seed).sample(fresh, min(args.draw, len(fresh)))
        for s in sorted(picked, key=lambda s: (s["filePath"], s["line"], s["column"])):
            record = {
                "vault": name,
                "sample": args.sample,
                "file": s["filePath"],
                "line": s["line"],
                "column": s["column"],
                "text": s["text"],
                "target": s["targetEntityId"],
                "mention": None,
                "context": s["context"],
            }
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
