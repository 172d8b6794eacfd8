"""base_query latency over a synthetic vault of notes with properties, tags and links.

    python bench/bases_query.py                 # 10,000 notes (issue 30: p95 <= 150 ms)
    python bench/bases_query.py --notes 100000  # 100k files (issue 30: <= 1.5 s)

The vault is written and indexed once (no model: a base reads properties, tags and links only)
under --work. One view (filters on a category link, a tag, a number and a date, a formula, a
two-key sort, groupBy, a limit, summaries), p50/p95 wall and CPU time:
- `kbtui base:query` as a fresh process (what every CLI call is), Python start-up included
  (bytecode cached under --work, as an installed kbtui has it);
- a process's first query through the tool layer, start-up and index opening excluded: the
  filters compiled to SQL, only the candidate rows read (kbtui.bases.prefilter);
- the same after a save (one note rewritten or a new note, indexed, then the view asked);
- with every row held in memory (a long-lived process that read them): warm, after a save;
and the rows matched and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import Samples, cpu_times, kbtui_runs, machine_note, print_samples, timed_into

from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.tools.bases import BaseTools
from kbtui.tools.parts import VaultParts

BASE = """\
filters:
  and:
    - categories.contains(link("Books"))
    - '!file.name.contains("Template")'
formulas:
  per_page: (price / pages).toFixed(3)
  age: (now() - date(read)).days.floor()
views:
  - type: table
    name: Good recent
    filters:
      and:
        - file.hasTag("fiction")
        - rating >= 6
        - read > date("2021-01-01")
    groupBy:
      property: status
      direction: ASC
    order: [file.name, author, rating, read, formula.per_page, formula.age]
    sort:
      - property: rating
        direction: DESC
      - property: read
        direction: DESC
    limit: 200
    summaries:
      rating: Average
      formula.per_page: Max
"""


STATUSES = ["done", "reading", "queued"]
NEW = """---\ncategories:\n  - "[[Books]]"\nrating: 7\npages: 300\nprice: 12\nread: 2024-05-01
status: done\ntags: [fiction]\n---\nA new note.\n"""


def write_vault(vault: Path, notes: int) -> None:
    rng = random.Random(30)
    cats = ["Books", "Movies", "People", "Places"]
    tags = ["fiction", "history", "science", "fiction/scifi", "poetry"]
    for i in range(notes):
        folder = vault / f"f{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        cat = cats[i % 4]
        day = f"20{rng.randint(15, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        (folder / f"Note {i}.md").write_text(
            f'---\ncategories:\n  - "[[{cat}]]"\nauthor: "[[Author {i % 300}]]"\n'
            f"rating: {rng.randint(1, 10)}\npages: {rng.randint(80, 900)}\n"
            f"price: {rng.randint(5, 40)}\nread: {day}\nstatus: {rng.choice(STATUSES)}\n"
            f"tags: [{rng.choice(tags)}, {rng.choice(tags)}]\n---\n"
            f"Text of note {i} about [[Note {rng.randrange(notes)}]].\n",
            encoding="utf-8",
        )
    (vault / "Books.base").write_text(BASE, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kbtui-bench"))
    args = parser.parse_args()
    vault = args.work / f"bases-{args.notes}"
    settings = Settings.for_vault(vault)
    if not (vault / "Books.base").exists():
        write_vault(vault, args.notes)
    store = Store(settings.db_path)
    started = time.perf_counter()
    Indexer(settings, store, None, write_batch=2000).run(embed=False)
    print(f"index pass (incremental): {time.perf_counter() - started:.1f} s, "
          f"{store.note_count()} notes, {len(store.vault_file_rows())} files")  # fmt: skip
    store.close()  # the CLI opens the index itself (DuckDB: one process at a time)
    query = {"file": "Books", "limit": 50}
    before = cpu_times()
    command = ["base:query", "Books", "--vault", str(vault), "--format", "paths"]
    report: Samples = {
        "fresh `kbtui base:query` (start-up included)": kbtui_runs(command, args.runs, args.work)
    }
    store = Store(settings.db_path)

    def parts() -> VaultParts:
        return VaultParts(settings, store, None, None, None, None)  # type: ignore[arg-type]

    def timed(call: Callable[[], Any], into: str) -> Any:
        return timed_into(report, into, call)

    answer = {}
    for _ in range(args.runs):  # a new service holds no rows: the first query of a process
        answer = timed(lambda: BaseTools(parts()).base_query(query), "first query, through SQL")
    print(f"{answer['total']} rows matched, {len(answer['groups'])} groups")
    held = BaseTools(parts())
    timed(held.service.rows, "every row read into memory (once)")
    for _ in range(args.runs):
        timed(lambda: held.base_query(query), "rows in memory: warm")
    indexer = Indexer(settings, store, None)
    rng = random.Random(7)
    for i in range(max(5, args.runs // 2)):
        save(vault, indexer, rng, i, args.notes)
        timed(lambda: BaseTools(parts()).base_query(query), "after a save, through SQL")
        save(vault, indexer, rng, i + 1000, args.notes)
        timed(lambda: held.base_query(query), "after a save, rows in memory")
    print_samples(report)
    print(machine_note(before), f"load {os.getloadavg()[0]:.2f}")
    store.close()


def save(vault: Path, indexer: Indexer, rng: random.Random, i: int, notes: int) -> None:
    """A save as the watcher sees it: one note rewritten (every other time a new note, which
    adds a name links may resolve to), indexed."""
    n = rng.randrange(notes)
    path = f"f{n % 50:02d}/Note {n}.md" if i % 2 == 0 else f"f00/New {i}.md"
    note = vault / path
    old = note.read_text(encoding="utf-8") if note.exists() else NEW
    note.write_text(old.replace("rating: ", f"rating: {rng.randint(1, 10)}\nx: ", 1),
                    encoding="utf-8")  # fmt: skip
    indexer.run(embed=False, paths=[path])


if __name__ == "__main__":
    main()
