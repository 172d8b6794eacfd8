"""Which model a vault gets, and what each model then finds (issue 43 item 2).

For each vault of the multilingual set (multilingual_set.py: one a language, and the mixed
ones: Chinese and English half and half, German and English, English with three Chinese
notes; the Chinese notes carry English terms), prints what `auto` decides and why, then, for
MiniLM and for multilingual-e5-small when kbtui.embed_e5 is there, each language's questions
answered in the top 1 / top 5 by vector, hybrid and keyword search. "Not worse on either
language": in a mixed vault, the model auto chose against the other, per language. Then the
questions no note answers (real_offtopic.jsonl in English, multilingual_offtopic.jsonl in the
other languages), in the vault's languages: how many come back with any hybrid result, and
the best score among them (with MiniLM an off-topic question gets nothing or a weak keyword
match; issue 43).

`--real DIR:LANG` does the same on a copy of a real vault (Obsidian's help vault in Chinese,
say): no note there is known to be the answer, so it prints the best score each of the set's
questions in LANG gets (they are about Obsidian) against the off-topic ones' in LANG and in
English.

    .venv/bin/python bench/model_choice.py [--vaults zh+en en] [--models minilm e5] [-v]
        [--real /tmp/help/zh:zh]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench_common import cpu_times, machine_note
from multilingual_set import VAULTS, Question, questions, write_vault

from kbtui.config import Settings
from kbtui.embed import EmbedderError
from kbtui.indexing.languages import vault_languages
from kbtui.indexing.model_choice import E5, MINILM, auto_choice, build
from kbtui.runtime.knowledge_base import KnowledgeBase

MODES = ("vector", "hybrid", "keyword")
HERE = Path(__file__).resolve().parent


def offtopic(langs: set[str]) -> list[str]:
    """The off-topic questions in these languages."""
    rows = [
        {"lang": "en", **json.loads(line)}
        for line in (HERE / "real_offtopic.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    rows += [
        json.loads(line)
        for line in (HERE / "multilingual_offtopic.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return [r["query"] for r in rows if r["lang"] in langs]


def answered(
    vault: Path, embedder: Any, asked: list[Question], verbose: bool
) -> tuple[dict[tuple[str, str], list[int | None]], str]:
    """({(language, mode): rank of each question's note (None: not in the top 10)}, a line
    on the off-topic questions in the vault's languages)."""
    kb = KnowledgeBase.open(Settings.for_vault(vault), embedder, approximate=False)
    ranks: dict[tuple[str, str], list[int | None]] = defaultdict(list)
    try:
        kb.indexer.run()
        for q in asked:
            for mode in MODES:
                found = kb.call("kb_search", {"query": q.text, "mode": mode, "top_k": 10})
                paths = [r["metadata"]["file_path"] for r in found.get("results", [])]
                rank = paths.index(q.path) if q.path in paths else None
                ranks[(q.lang, mode)].append(rank)
                if verbose and mode == "hybrid":
                    print(f"    {q.lang} {rank!s:>4}  {q.text}  -> {paths[:2]}")
        off = offtopic({q.lang for q in asked})
        tops = []
        for query in off:
            found = kb.call("kb_search", {"query": query, "top_k": 10}).get("results", [])
            tops.append(found[0]["score"] if found else 0.0)
            if verbose and found:
                print(f"    off {len(found):>2} results, best {tops[-1]:.2f}  {query}")
        line = f"{sum(t > 0 for t in tops)}/{len(off)} answered, best score {max(tops):.2f}"
    finally:
        kb.close()
    return ranks, line


def best_scores(kb: KnowledgeBase, asked: list[str]) -> str:
    """How many of the questions get any hybrid result, and their best scores."""
    tops = []
    for query in asked:
        found = kb.call("kb_search", {"query": query, "top_k": 10}).get("results", [])
        tops.append(found[0]["score"] if found else 0.0)
    quartiles = statistics.quantiles(tops, n=4) if len(tops) > 1 else tops * 3
    spread = " / ".join(f"{x:.2f}" for x in (min(tops), *quartiles, max(tops)))
    return f"{sum(t > 0 for t in tops):>2}/{len(tops)} answered, best score {spread}"


def real_vault(source: Path, lang: str, embedders: dict[str, Any], root: Path) -> None:
    """On-topic against off-topic best scores on a copy of a real vault."""
    vault = root / f"real-{source.name}-{lang}"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".kbtui", ".obsidian"))
    print(f"\n{source} ({lang}); best score min / quartiles / max")
    for model, embedder in embedders.items():
        kb = KnowledgeBase.open(Settings.for_vault(vault), embedder, approximate=False)
        try:
            kb.indexer.run()
            asked = [q.text for q in questions((lang,))]
            print(f"  {model:<7} on-topic ({lang})   {best_scores(kb, asked)}")
            for off in dict.fromkeys((lang, "en")):
                print(f"  {model:<7} off-topic ({off}) {best_scores(kb, offtopic({off}))}")
        finally:
            kb.close()
        shutil.rmtree(vault / ".kbtui", ignore_errors=True)  # the next model indexes afresh


def cell(ranks: list[int | None]) -> str:
    top1 = sum(r == 0 for r in ranks)
    top5 = sum(r is not None and r < 5 for r in ranks)
    return f"{top1:>2}/{top5:>2}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vaults", nargs="*", default=list(VAULTS))
    parser.add_argument("--models", nargs="*", default=[MINILM, E5])
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--real", nargs="*", default=[], metavar="DIR:LANG")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    root = args.work or Path(tempfile.mkdtemp(prefix="kbtui-choice-"))
    before = cpu_times()
    embedders: dict[str, Any] = {}
    for model in args.models:
        try:
            embedders[model] = build(model, Settings.for_vault(root))
        except EmbedderError as exc:
            print(f"{model}: not measured ({exc})")
    print("top 1 / top 5 of 12 questions a language; columns: model, then " + ", ".join(MODES))
    for name in args.vaults:
        vault, asked = write_vault(name, root)
        languages = vault_languages(vault)
        choice = auto_choice(languages)
        print(f"\n{name}: {len(asked)} questions; notes by language {languages.counts}")
        print(f"  auto -> {choice.model} ({choice.reason})")
        for model, embedder in embedders.items():
            ranks, off = answered(vault, embedder, asked, args.verbose)
            mark = "*" if model == choice.model else " "
            for lang in sorted({q.lang for q in asked}):
                cells = "  ".join(cell(ranks[(lang, mode)]) for mode in MODES)
                print(f"  {mark}{model:<7} {lang}  {cells}")
            print(f"  {mark}{model:<7} off-topic: {off}")
    print("\n* the model auto chose for the vault")
    for real in args.real:
        folder, _, lang = real.rpartition(":")
        real_vault(Path(folder), lang, embedders, root)
    print(machine_note(before))


if __name__ == "__main__":
    main()
