"""Live indexing as a user feels it: how long from saving a note to finding it, how long a
start-up takes when nothing changed, and what a watching process costs while idle.

1. save-to-searchable: a watching VaultRuntime (real model) on a copy of vault_example; each
   round saves a note (alternately a new note, an in-place edit and a temp-file-then-rename
   save) holding a fresh word, then polls kb_search (keyword) until the note is the hit, and
   then until its vectors are in (every chunk embedded). Includes the watcher's debounce.
2. no-change start-up: a synthetic vault of N notes indexed once (fake embedder: the scan
   does not depend on the model), then the catch-up pass of a new start, timed.
3. idle CPU: the process's CPU time over a quiet period while the watcher runs.
4. file-to-base (`--only files`): a file that is no note (a .zip) added, grown, renamed or
   deleted, until a base listing every non-note file shows the change (issue 30: the `file.*`
   rows a base over attachments reads come through the watcher, not a full pass).

Prints figures, asserts nothing. Works in a temporary folder.

    .venv/bin/python bench/watch_latency.py [--rounds 30] [--notes 10000] [--idle 20]
    .venv/bin/python bench/watch_latency.py --vault-notes 6600 --only save   # ~43k chunks

With `--vault-notes N` the saves go to a synthetic vault of N notes shaped like obsidian-hub
(6,600 notes, ~6.5 chunks a note: ~43k chunks) instead of vault_example. It is indexed once
under --work with the hash embedder (the real model would take ~20 min on 2 cores) and its
vectors are labelled as the real model's, so the runtime embeds only what a save adds, with
the real model, as on a vault indexed long ago. Each run works on a copy (notes hard-linked:
the bench only writes files of its own). `--vault PATH` does the same with a real vault.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_common import (
    VAULT_EXAMPLE,
    WORK,
    copy_vault,
    cpu_times,
    hub_sized_vault,
    indexed_vault,
    machine_note,
    percentiles,
    wait_until,
    working_copy,
)
from synth_vault import make_vault

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.models import IndexReport
from kbtui.runtime.runtime import VaultRuntime
from kbtui.store import Store


def save(path: Path, text: str, style: str) -> None:
    """Save the way editors do: in place, or a temporary file renamed over the note."""
    if style == "rename":
        tmp = path.with_name(f".{path.name}.swp")
        tmp.write_text(text)
        os.replace(tmp, path)
    else:
        path.write_text(text)


def save_to_searchable(rounds: int, work: Path, vault: Path | None = None) -> None:
    vault = vault or copy_vault(VAULT_EXAMPLE, work / "live")
    settings = Settings.for_vault(vault)
    embedder = FastEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)
    runtime = VaultRuntime(settings, embedder)
    t0 = time.perf_counter()
    runtime.start()
    wait_until(lambda: runtime.status()["index"]["state"] == "idle", 600)
    stats = runtime.status()["stats"]
    print(
        f"{vault.name}: {stats['notes']} notes, {stats['chunks']} chunks; "
        f"start + catch-up pass {time.perf_counter() - t0:.1f} s"
    )
    keyword, vectors = [], []
    styles = ("new", "in place", "rename")
    try:
        for n in range(rounds):
            style = styles[n % 3]
            word = f"zorblax{n}quen"
            path = vault / "notes" / (f"live {n}.md" if style == "new" else "live edit.md")
            path.parent.mkdir(exist_ok=True)
            text = f"# Live {n}\n\nA saved note about {word} and the watch battery.\n"
            t0 = time.perf_counter()
            save(path, text, style)

            def found(word: str = word) -> bool:
                answer = runtime.call("kb_search", {"query": word, "mode": "keyword"})
                return bool(answer["results"])

            def embedded() -> bool:
                stats = runtime.status()["stats"]
                return bool(stats["chunks"] == stats["embedded"])

            wait_until(found)
            keyword.append((time.perf_counter() - t0) * 1000)
            wait_until(embedded)
            vectors.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.2)
    finally:
        runtime.close()
    print(f"save → keyword hit  {percentiles(keyword)}  (debounce included)")
    print(f"save → vectors in   {percentiles(vectors)}")


FILES_BASE = (
    'filters: \'!file.ext.containsAny("md", "base", "canvas")\'\n'
    "views:\n  - type: table\n    name: Files\n    order: [file.name, file.size]\n"
)


Step = tuple[str, Callable[[], object], Callable[[dict[str, int]], bool]]


def zip_round(vault: Path, n: int) -> list[Step]:
    """One round: (kind, the change, what the base then shows) for a new, grown, renamed and
    deleted .zip."""
    drop, moved = f"attachments/drop {n}.zip", f"attachments/moved {n}.zip"

    def grow() -> None:
        with (vault / drop).open("ab") as fh:
            fh.write(b"\0" * 100)

    return [
        ("new", lambda: (vault / drop).write_bytes(b"PK" * 50), lambda s: s.get(drop) == 100),
        ("grown", grow, lambda s: s.get(drop) == 200),
        ("renamed", lambda: os.replace(vault / drop, vault / moved),
         lambda s: s.get(moved) == 200 and drop not in s),
        ("deleted", (vault / moved).unlink, lambda s: moved not in s),
    ]  # fmt: skip


def file_to_base(rounds: int, work: Path, vault: Path | None = None) -> None:
    """Each round changes a .zip one way (new, grown in place, renamed, deleted) and polls
    base_query until the view shows it; the debounce is included."""
    vault = vault or copy_vault(VAULT_EXAMPLE, work / "files")
    (vault / "Files.base").write_text(FILES_BASE, encoding="utf-8")
    (vault / ".obsidian").mkdir(exist_ok=True)  # "Detect all file extensions": a .zip listed
    app = vault / ".obsidian" / "app.json"
    settings = json.loads(app.read_text(encoding="utf-8")) if app.exists() else {}
    app.write_text(json.dumps({**settings, "showUnsupportedFiles": True}), encoding="utf-8")
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder())  # nothing to embed
    (vault / "attachments").mkdir(exist_ok=True)  # before: a new folder asks for a full pass
    runtime.start()
    assert runtime.worker.wait_idle(600)

    def sizes() -> dict[str, int]:
        answer = runtime.call("base_query", {"file": "Files.base", "limit": 1000})
        assert answer["ok"], answer
        return {r["path"]: r["values"]["file.size"] for r in answer["rows"]}

    def shows(check: Callable[[dict[str, int]], bool]) -> Callable[[], bool]:
        return lambda: check(sizes())

    print(f"{vault.name}: a base over {len(sizes())} non-note files")
    taken: dict[str, list[float]] = {"new": [], "grown": [], "renamed": [], "deleted": []}
    try:
        for n in range(rounds):
            for kind, change, shown in zip_round(vault, n):
                t0 = time.perf_counter()
                change()
                wait_until(shows(shown))
                taken[kind].append((time.perf_counter() - t0) * 1000)
                time.sleep(0.2)
    finally:
        runtime.close()
    for kind, samples in taken.items():
        print(f"{kind:8} file -> base shows it  {percentiles(samples)}  (debounce included)")


def pass_once(settings: Settings) -> IndexReport:
    """Open the index and run the pass a start-up runs, as a new process would."""
    store = Store(settings.db_path)
    try:
        return Indexer(settings, store, HashEmbedder()).run(embed=True)
    finally:
        store.close()


def no_change_start(notes: int, work: Path) -> None:
    vault = make_vault(work / "synth", notes, seed=7, words_per_note=(60, 200))
    settings = Settings.for_vault(vault)
    t0 = time.perf_counter()
    pass_once(settings)
    print(f"built {notes} notes in {time.perf_counter() - t0:.1f} s")
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        report = pass_once(settings)
        samples.append((time.perf_counter() - t0) * 1000)
        assert not (report.new or report.changed or report.deleted), "expected no changes"
    print(
        f"no-change start-up scan of {notes} notes (open + catch-up pass): "
        f"median {statistics.median(samples):.0f} ms, max {max(samples):.0f} ms"
    )


def idle_cpu(seconds: float, work: Path) -> None:
    vault = copy_vault(VAULT_EXAMPLE, work / "idle")
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder())
    runtime.start()
    wait_until(lambda: runtime.status()["index"]["state"] == "idle", 60)
    time.sleep(1.0)
    try:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        time.sleep(seconds)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        runtime.close()
    print(f"idle watching process: {cpu * 1000:.0f} ms CPU in {wall:.0f} s = {cpu / wall:.3%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--idle", type=float, default=20.0)
    parser.add_argument("--vault-notes", type=int, default=0, help="synthetic vault to save to")
    parser.add_argument("--vault", type=Path, help="a real vault to save to (copied)")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--only", choices=("save", "idle", "scan", "files"), action="append")
    args = parser.parse_args()
    only = set(args.only or ("save", "idle", "scan"))
    before = cpu_times()
    with tempfile.TemporaryDirectory(prefix="kbtui-watch-") as tmp:
        work = Path(tmp)
        if "save" in only:
            target = None
            if args.vault is not None or args.vault_notes:
                args.work.mkdir(parents=True, exist_ok=True)
                model_id = FastEmbedder().model_id
                if args.vault is not None:
                    source = args.vault.resolve()
                    cache = indexed_vault(source, args.work / f"watch_{source.name}", model_id)
                else:
                    cache = hub_sized_vault(args.work, args.vault_notes, model_id)
                target = working_copy(cache, work / "live")
            save_to_searchable(args.rounds, work, target)
        if "files" in only:
            target = None
            if args.vault_notes:
                cache = hub_sized_vault(args.work, args.vault_notes, FastEmbedder().model_id)
                target = working_copy(cache, work / "files")
            file_to_base(args.rounds, work, target)
        if "idle" in only:
            idle_cpu(args.idle, work)
        if "scan" in only:
            no_change_start(args.notes, work)
    print(machine_note(before))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
