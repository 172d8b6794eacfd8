"""Extraction quality on the hand-labelled sentences in tests/data/extraction_labels.json.

Micro-averaged precision / recall / F1 of kbtui.graph.extract.extract without a gazetteer:
entities match on (name, type), relationships on (source, type, target), all case-insensitive;
RELATED_TO is undirected. Scores are printed per split: "dev" sentences were in view while the
rules were designed, "heldout" ones were written afterwards and never tuned against (the honest
estimate), and "all". Then every miss (labelled, not extracted) and extra (extracted, not
labelled), sentence by sentence. Also times the extractor.

    /work/venv/bin/python bench/extraction_quality.py [--labels PATH] [--split S] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbtui.graph.extract import extract

REPO = Path(__file__).resolve().parent.parent
LABELS = REPO / "tests" / "data" / "extraction_labels.json"

Entity = tuple[str, str]
Relation = tuple[str, str, str]


@dataclass
class Counts:
    true_pos: int = 0
    false_pos: int = 0
    false_neg: int = 0

    @property
    def precision(self) -> float:
        found = self.true_pos + self.false_pos
        return self.true_pos / found if found else 1.0

    @property
    def recall(self) -> float:
        wanted = self.true_pos + self.false_neg
        return self.true_pos / wanted if wanted else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Report:
    entities: Counts = field(default_factory=Counts)
    relationships: Counts = field(default_factory=Counts)
    misses: list[str] = field(default_factory=list)
    sentences: int = 0
    seconds: float = 0.0


def entity_key(name: str, kind: str) -> Entity:
    return (" ".join(name.lower().split()), kind)


def relation_key(source: str, kind: str, target: str) -> Relation:
    a, b = " ".join(source.lower().split()), " ".join(target.lower().split())
    if kind == "RELATED_TO" and b < a:
        a, b = b, a
    return (a, kind, b)


def load(path: Path = LABELS) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["items"]
    return items


def evaluate(items: list[dict[str, Any]]) -> Report:
    report = Report(sentences=len(items))
    for item in items:
        started = time.perf_counter()
        found = extract(item["text"])
        report.seconds += time.perf_counter() - started
        got_e = {entity_key(m.name, m.type) for m in found.entities}
        want_e = {entity_key(n, t) for n, t in item["entities"]}
        got_r = {relation_key(r.source, r.type, r.target) for r in found.relationships}
        want_r = {relation_key(s, t, o) for s, t, o in item["relationships"]}
        for counts, got, want in (
            (report.entities, got_e, want_e),
            (report.relationships, got_r, want_r),
        ):
            counts.true_pos += len(got & want)
            counts.false_pos += len(got - want)
            counts.false_neg += len(want - got)
        lines = [f"  missed {_show(k)}" for k in sorted(want_e - got_e) + sorted(want_r - got_r)]
        lines += [f"  extra  {_show(k)}" for k in sorted(got_e - want_e) + sorted(got_r - want_r)]
        if lines:
            report.misses.append(f"{item['text']}\n" + "\n".join(lines))
    return report


def _show(key: tuple[str, ...]) -> str:
    return f"{key[0]} ({key[1]})" if len(key) == 2 else " ".join(key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--split", default="all", choices=("dev", "heldout", "all"))
    parser.add_argument("--quiet", action="store_true", help="scores only, no misses")
    args = parser.parse_args()
    from bench_common import cpu_times, machine_note  # here: tests load this file by path

    before = cpu_times()
    items = load(args.labels)
    print(f"{'':24} {'P':>6} {'R':>6} {'F1':>6}   tp  fp  fn")
    for split in ("dev", "heldout", "all"):
        report = evaluate([i for i in items if split in ("all", i.get("split", "dev"))])
        for label, c in (("entities", report.entities), ("relationships", report.relationships)):
            print(
                f"{split + ' ' + label:24} {c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f}"
                f"  {c.true_pos:3} {c.false_pos:3} {c.false_neg:3}"
            )
    print(
        f"({report.sentences} labelled texts, {report.seconds * 1000:.1f} ms in extract(); "
        f"{machine_note(before)})"
    )
    report = evaluate([i for i in items if args.split in ("all", i.get("split", "dev"))])
    if not args.quiet:
        print(f"\n{args.split}: {len(report.misses)} texts with misses or extras:\n")
        print("\n".join(report.misses))


if __name__ == "__main__":
    main()
