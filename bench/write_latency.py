"""What a write costs (issue 39's goals): an edit's answer, the history's size after a week, and
the history's share of a cold index.

    .venv/bin/python bench/write_latency.py edit --notes 10000 --rounds 100
    .venv/bin/python bench/write_latency.py history --notes 6000 --days 7
    .venv/bin/python bench/write_latency.py observe --notes 10000 --runs 3

- `edit`: NoteWriter.edit (append a sentence to a random note) on a `--notes` synthetic vault
  (bench_common.hub_sized_vault: indexed once with the hash embedder, its vectors labelled as
  the real model's), the real model embedding the changed chunks (`--hash`: the hash
  embedder), from the call to the answer with the index updated: p50 / p95, and where the
  time goes (history, the file swap, the index pass, the model inside it).
- `history`: a `--notes` synthetic vault opened by kbtui (its first pass keeps every note in
  the history), then `--days` simulated days of 50 kbtui edits and 50 edits by another
  program (each seen by the indexer, as the watcher's pass does), History.prune() each
  night, the clock faked: the history's files (`.kbtui/history.sqlite*`) against the vault's
  size on disk (du) each day.
- `observe`: a cold index (hash embedder: the text pass, where the history's share is
  largest) of a `--notes` vault with and without the history, `--runs` each, alternated.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench_common import (
    WORDS_PER_NOTE,
    WORK,
    copy_vault,
    cpu_times,
    hub_sized_vault,
    machine_note,
    quantile,
    working_copy,
)
from synth_vault import WORDS

from kbtui.config import Settings

Timings = dict[str, list[float]]


def sentence(rng: random.Random, n: int) -> str:
    return f"Edit {n}: " + " ".join(rng.choice(WORDS) for _ in range(18)) + "."


def appending(line: str) -> Callable[[Any], str]:
    """The change an append makes: the note's text and `line` on a line of its own."""
    from kbtui.vault.edit.sections import append_text

    return lambda note: append_text(note.text, note.newline, line)


def notes_of(vault: Path) -> list[str]:
    return sorted(
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*.md")
        if not p.relative_to(vault).parts[0].startswith(".")
    )


@contextmanager
def timing(obj: Any, name: str, into: dict[str, float], label: str) -> Iterator[None]:
    """Wrap obj.name so its wall ms add up in into[label] (the current edit's)."""
    real = getattr(obj, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            into[label] += (time.perf_counter() - t0) * 1000

    setattr(obj, name, timed)
    try:
        yield
    finally:
        setattr(obj, name, real)


def ms_line(label: str, samples: list[float]) -> str:
    return (
        f"  {label:<22} p50 {statistics.median(samples):7.1f} ms  "
        f"p95 {quantile(samples, 0.95):7.1f} ms  max {max(samples):7.1f} ms"
    )


# -- (a) an edit's answer ------------------------------------------------------------------------
def bench_edit(opts: argparse.Namespace) -> None:
    from kbtui.embed import FastEmbedder, HashEmbedder
    from kbtui.runtime.knowledge_base import KnowledgeBase
    from kbtui.tools.write import service
    from kbtui.tools.write.service import NoteWriter

    embedder = HashEmbedder() if opts.hash else FastEmbedder()
    cache = hub_sized_vault(opts.work, opts.notes, embedder.model_id)
    tmp = Path(opts.work) / "write_latency_edit"
    shutil.rmtree(tmp, ignore_errors=True)
    vault = working_copy(cache, tmp / "vault")
    settings = Settings.for_vault(vault)
    kb = KnowledgeBase.open(settings, embedder, approximate=False)  # no HNSW build meanwhile
    try:
        kb.indexer.run()  # brought up to date, as a server's start does (untimed)
        writer = NoteWriter(kb.tools.parts)
        rng = random.Random(opts.seed)
        paths = notes_of(vault)
        phase: dict[str, float] = defaultdict(float)
        got: Timings = defaultdict(list)
        before = cpu_times()
        with (
            timing(kb.history, "observe", phase, "history before"),
            timing(kb.history, "record", phase, "history after"),
            timing(service, "replace_file", phase, "swap (+history after)"),
            timing(service, "recover_writes", phase, "recover (none to do)"),
            timing(kb.indexer, "run", phase, "index pass"),
            timing(kb.store, "note_states", phase, "  note states (all)"),
            timing(kb.store, "write_notes", phase, "  write the note"),
            timing(kb.indexer, "embed_pending", phase, "  embed what waits"),
            timing(embedder, "embed", phase, "    the model"),
        ):
            for n in range(opts.rounds + opts.warmup):
                phase.clear()
                path = rng.choice(paths)
                line = sentence(rng, n)
                t0 = time.perf_counter()
                writer.edit(path, appending(line), "append")
                total = (time.perf_counter() - t0) * 1000
                if n >= opts.warmup:
                    got["edit, index updated"].append(total)
                    for label, ms in phase.items():
                        got[label].append(ms)
        hits = kb.call("kb_search", {"query": line, "mode": "keyword", "top_k": 10})
        found = path in [r["metadata"]["file_path"] for r in hits.get("results", [])]
    finally:
        kb.close()
    model = "the hash embedder" if opts.hash else f"the real model ({embedder.model_id})"
    print(
        f"edit on a {opts.notes}-note vault, {opts.rounds} edits after {opts.warmup} warm-up, "
        f"{model} embedding the changed chunks:"
    )
    for label, samples in got.items():
        print(ms_line(label, samples))
    print(f"  the last edit found by a keyword search right after: {found}; {machine_note(before)}")


# -- (b) the history's size after a week -----------------------------------------------------------
def du(path: Path, exclude: str = "") -> int:
    args = ["du", "-s", "--block-size=1", *([f"--exclude={exclude}"] if exclude else []), str(path)]
    return int(subprocess.run(args, capture_output=True, text=True).stdout.split()[0])


def bench_history(opts: argparse.Namespace) -> None:
    from synth_vault import make_vault

    import kbtui.store.history.versions as versions
    from kbtui.embed import HashEmbedder
    from kbtui.runtime.knowledge_base import KnowledgeBase
    from kbtui.store import Store
    from kbtui.tools.write.service import NoteWriter

    clock = [time.time()]
    fake = SimpleNamespace(time=lambda: clock[0], strftime=time.strftime, localtime=time.localtime)
    setattr(versions, "time", fake)  # noqa: B010 - the history's clock, days apart
    source = Path(opts.work) / f"history_synth_{opts.notes}"
    if not source.exists():
        make_vault(source, opts.notes, 0, WORDS_PER_NOTE)
    tmp = Path(opts.work) / "write_latency_history"
    shutil.rmtree(tmp, ignore_errors=True)
    vault = copy_vault(source, tmp / "vault")
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir(parents=True)
    before = cpu_times()
    kb = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    rng = random.Random(opts.seed)
    try:
        t0 = time.perf_counter()
        kb.indexer.run()
        history = kb.history
        print(
            f"history of a {opts.notes}-note vault (du {du(vault, '.kbtui') / 1e6:.1f} MB, "
            f"apparent {sum(p.stat().st_size for p in vault.rglob('*.md')) / 1e6:.1f} MB): "
            f"first pass {time.perf_counter() - t0:.0f} s, history "
            f"{history.size_on_disk() / 1e6:.1f} MB"
        )
        writer, paths = NoteWriter(kb.tools.parts), notes_of(vault)
        start = clock[0]
        for day in range(1, opts.days + 1):
            for n in range(opts.per_day):
                clock[0] = start + (day - 1) * 86400 + n * 600
                path = rng.choice(paths)
                line = sentence(rng, n)
                writer.edit(path, appending(line), "append")
                other = vault / rng.choice(paths)
                with other.open("a", encoding="utf-8") as fh:  # another program, in place
                    fh.write("\n" + sentence(rng, n) + "\n")
                kb.indexer.run(paths=[other.relative_to(vault).as_posix()])  # the watcher
            clock[0] = start + day * 86400 - 3600
            dropped = history.prune()
            print(
                f"  day {day}: {2 * opts.per_day} edits, prune dropped {dropped} versions; "
                f"history {history.size_on_disk() / 1e6:.1f} MB "
                f"({len(history.recent(10**7))} versions), vault du "
                f"{du(vault, '.kbtui') / 1e6:.1f} MB",
                flush=True,
            )
    finally:
        kb.close()
    files = sorted(settings.index_dir.glob("history.sqlite*"))
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in files)
    print(f"  after close: {sizes}; vault du {du(vault, '.kbtui') / 1e6:.1f} MB")
    print(f"  {machine_note(before)}")


# -- (c) the history's share of a cold index ----------------------------------------------------
def cold_index(vault: Path, with_history: bool) -> tuple[float, float, float]:
    """One cold index: (wall s, process CPU s, wall s inside History.observe)."""
    from kbtui.embed import HashEmbedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import Store
    from kbtui.store.history import History

    settings = Settings.for_vault(vault)
    shutil.rmtree(settings.index_dir, ignore_errors=True)
    settings.index_dir.mkdir(parents=True)
    store = Store(settings.db_path)
    history = History(settings.index_dir) if with_history else None
    inside: dict[str, float] = defaultdict(float)
    try:
        with timing(history, "observe", inside, "observe") if history else nullcontext():
            t0, c0 = time.perf_counter(), time.process_time()
            Indexer(settings, store, HashEmbedder(), history=history).run()
            return time.perf_counter() - t0, time.process_time() - c0, inside["observe"] / 1000
    finally:
        store.close()
        if history is not None:
            history.close()


def bench_observe(opts: argparse.Namespace) -> None:
    from synth_vault import make_vault

    vault = Path(opts.work) / f"observe_synth_{opts.notes}"
    if not vault.exists():
        make_vault(vault, opts.notes, 0, WORDS_PER_NOTE)
    got: dict[bool, list[tuple[float, float, float]]] = {False: [], True: []}
    before = cpu_times()
    for _ in range(opts.runs):
        for with_history in (False, True):
            wall, cpu, observe = cold_index(vault, with_history)
            got[with_history].append((wall, cpu, observe))
            print(f"  {'with' if with_history else 'without'} history: wall {wall:.1f} s, "
                  f"CPU {cpu:.1f} s, in History.observe {observe:.1f} s", flush=True)  # fmt: skip

    def med(on: bool, i: int) -> float:
        return statistics.median(run[i] for run in got[on])

    print(
        f"cold index of a {opts.notes}-note vault (hash embedder), median of {opts.runs}: "
        f"without the history wall {med(False, 0):.1f} s / CPU {med(False, 1):.1f} s, with "
        f"wall {med(True, 0):.1f} s / CPU {med(True, 1):.1f} s, of which History.observe "
        f"{med(True, 2):.1f} s ({100 * med(True, 2) / med(True, 0):.1f}% of the pass); "
        f"{machine_note(before)}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("what", choices=("edit", "history", "observe"))
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--per-day", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hash", action="store_true", help="the hash embedder, not the model")
    ap.add_argument("--work", type=Path, default=WORK)
    opts = ap.parse_args()
    run: dict[str, Callable[[argparse.Namespace], None]] = {
        "edit": bench_edit, "history": bench_history, "observe": bench_observe,
    }  # fmt: skip
    run[opts.what](opts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
