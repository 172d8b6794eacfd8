"""What one live save costs the index (issue 33): the watcher's one-note pass (read, parse,
chunk, write the note, re-link, link_dest, path tables, COMMIT, vault files, embed what waits)
timed phase by phase, with the time the store's lock is held, which is what every tool call
beside the save waits for.

Each round edits one generated note (written aside, renamed over, as the load bench's writer
does) and runs the indexer on that path, as the watcher's worker does. Per phase: wall ms
p50/p95 and the process's CPU ms p50/p95 of the whole save; `--statements`: the SQL
statements that took longest in total. Vaults (indexed once under /tmp/kbtui-bench, each run
on a copy): `load` = vault_example + 1,500 generated notes (as bench/load_http.py builds it),
`synth` = a 10k-note synth_vault.py vault (bench_common.synthetic_vault, under
/tmp/kbtui-bench/save_cost). Each run first brings the copy up to date (a whole-vault pass, as
a server starts), untimed.

    .venv/bin/python bench/save_cost.py                      # both vaults, 40 saves each
    .venv/bin/python bench/save_cost.py --vault synth --saves 60 --statements 12
    .venv/bin/python bench/save_cost.py --model              # the real model embeds

The hash embedder is the default: the model computes outside the lock, its vectors' writes
are what a save adds under it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

from bench_common import WORK, cpu_times, machine_note, quantile, synthetic_vault, working_copy

PHASES = (
    "read+parse",
    "chunks",
    "write (rest)",
    "relationships",
    "link_dest",
    "path tables",
    "commit",
    "vault files",
    "embed (store)",
    "embed (model)",
)


class Clock:
    """Wall ms per phase of the current save; nested phases are taken out of their parent."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = defaultdict(float)
        self._stack: list[str] = []
        self.statements: dict[str, list[float]] = defaultdict(list)
        self.statement_cpu: dict[str, float] = defaultdict(float)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self._stack.append(name)
        started = time.perf_counter()
        try:
            yield
        finally:
            spent = (time.perf_counter() - started) * 1000
            self._stack.pop()
            self.ms[name] += spent
            if self._stack:
                self.ms[self._stack[-1]] -= spent

    def charge(self, name: str, spent: float) -> None:
        """A statement of phase `name` (told by its SQL) ran inside the current phase."""
        self.ms[name] += spent
        if self._stack:
            self.ms[self._stack[-1]] -= spent

    def wrap(self, owner: Any, attr: str, name: str) -> None:
        original = getattr(owner, attr)
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            with clock.phase(name):
                return original(*args, **kwargs)

        setattr(owner, attr, timed)


class TimedLock:
    """The indexer's lock, counting how long it is held (outermost acquire to release)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self._since = 0.0
        self.held_ms = 0.0

    def __enter__(self) -> None:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            self._since = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.held_ms += (time.perf_counter() - self._since) * 1000
        self._lock.release()


class TimedConnection:
    """The store's DuckDB connection, timing each statement (and charging its phase)."""

    def __init__(self, con: Any, clock: Clock) -> None:
        self._con = con
        self._clock = clock

    def execute(self, sql: str, *args: Any) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return self._con.execute(sql, *args)
        finally:
            spent = (time.perf_counter() - started) * 1000
            key = " ".join(sql.split())[:90]
            self._clock.statements[key].append(spent)
            self._clock.statement_cpu[key] += (time.process_time() - cpu) * 1000
            phase = _phase_of(sql)
            if phase is not None:
                self._clock.charge(phase, spent)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def _phase_of(sql: str) -> str | None:
    """The phase a store statement belongs to, told by the tables it names (the same for
    the old and the new write path, so both are broken down alike)."""
    if sql.strip().upper() == "COMMIT":
        return "commit"
    if "link_dest" in sql:
        return "link_dest"
    if any(t in sql for t in ("graph_edges", "graph_nodes", "_path_")):
        return "path tables"
    if any(t in sql for t in ("relationships", "_relink", "entity_names", "_changed_keys")):
        return "relationships"
    return None


def instrument(clock: Clock) -> None:
    """Wrap the save's steps (class attributes: every store and indexer in this process)."""
    from kbtui.indexing import indexer as indexer_module
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import db
    from kbtui.store.vectors.embeddings import EmbeddingWrites

    clock.wrap(Indexer, "_read", "read+parse")
    clock.wrap(Indexer, "_chunked", "chunks")
    clock.wrap(db.Store, "write_notes", "write (rest)")
    clock.wrap(db.Store, "delete_notes", "write (rest)")
    clock.wrap(indexer_module, "sync_files", "vault files")
    clock.wrap(Indexer, "embed_pending", "embed (model)")
    for attr in ("set_embeddings", "pending_embeddings", "count_pending"):
        clock.wrap(EmbeddingWrites, attr, "embed (store)")


def vault_of(kind: str, work: Path) -> Path:
    """The indexed source vault (built once)."""
    if kind == "synth":  # built by this kbtui: an older index's names differ from today's
        return synthetic_vault(WORK / "save_cost", 55_000).vault
    from load_http import build_vault

    return build_vault(WORK)


def run(kind: str, saves: int, model: bool, statements: int, seed: int, profile: bool) -> None:
    from kbtui.config import Settings
    from kbtui.embed import Embedder, FastEmbedder, HashEmbedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import Store

    clock = Clock()
    instrument(clock)
    source = vault_of(kind, WORK)
    with tempfile.TemporaryDirectory(prefix="save_cost_", dir=WORK) as tmp:
        vault = working_copy(source, Path(tmp) / "vault")
        settings = Settings.for_vault(vault)
        store = Store(settings.db_path)
        raw = store.con  # untimed: the CHECKPOINT after the saves is not one of theirs
        store.con = TimedConnection(raw, clock)  # type: ignore[assignment]
        embedder: Embedder = FastEmbedder() if model else HashEmbedder()
        lock = TimedLock()
        indexer = Indexer(settings, store, embedder, lock=lock)
        started = time.perf_counter()
        indexer.run()  # as a server's first pass: an index from an older kbtui is read again
        print(f"{kind}: first pass {time.perf_counter() - started:.1f} s (not counted)")
        folder = vault / "generated" if (vault / "generated").is_dir() else vault
        notes = sorted(p for p in folder.rglob("*.md") if ".kbtui" not in p.parts)
        rng = random.Random(seed)
        profiler = cProfile.Profile()
        wal = Path(f"{settings.db_path}.wal")
        wal_sizes: list[int] = []
        walls, cpus, held = [], [], []
        per_phase: dict[str, list[float]] = defaultdict(list)
        before = cpu_times()
        for i in range(saves + 3):  # the first three warm the caches
            path = rng.choice(notes)
            text = path.read_text(encoding="utf-8")
            aside = path.with_suffix(".md.tmp")
            aside.write_text(text + f"\nEdited at {time.time():.3f}: battery sensor review.\n")
            aside.replace(path)
            rel = path.relative_to(vault).as_posix()
            clock.ms.clear()
            if i == 3:
                clock.statements.clear()
                clock.statement_cpu.clear()
            lock.held_ms = 0.0
            if profile and i == 3:
                profiler.enable()
            wall0, cpu0 = time.perf_counter(), time.process_time()
            report = indexer.run(paths=[rel])
            wall, cpu = (time.perf_counter() - wall0) * 1000, (time.process_time() - cpu0) * 1000
            if report.changed != [rel]:
                raise SystemExit(f"the save of {rel} was not indexed: {report}")
            if i < 3:
                continue
            wal_sizes.append(wal.stat().st_size if wal.exists() else 0)
            walls.append(wall)
            cpus.append(cpu)
            held.append(lock.held_ms)
            for name in PHASES:
                per_phase[name].append(clock.ms.get(name, 0.0))
        profiler.disable()
        load = machine_note(before)
        wal_before = wal.stat().st_size if wal.exists() else 0
        started = time.perf_counter()
        with lock:
            raw.execute("CHECKPOINT")  # what an automatic one costs the save it ends
        checkpoint_ms = (time.perf_counter() - started) * 1000
        stats = store.stats()
        store.close()
    print(f"\n{kind}: {stats['notes']} notes, {stats['chunks']} chunks; {saves} saves; {load}")
    growth = [b - a for a, b in pairwise(wal_sizes) if b >= a]
    checkpoints = sum(1 for a, b in pairwise(wal_sizes) if b < a)
    print(
        f"  WAL: +{sum(growth) / max(len(growth), 1) / 1024:.0f} KB a save, {checkpoints} "
        f"automatic checkpoints in {saves} saves (the WAL shrank); a CHECKPOINT of "
        f"the {wal_before / 1024:.0f} KB WAL after them: {checkpoint_ms:.0f} ms"
    )
    print(f"  {'save (wall)':<16} {_p(walls)}")
    print(f"  {'save (CPU)':<16} {_p(cpus)}")
    print(f"  {'lock held':<16} {_p(held)}")
    for name in PHASES:
        print(f"  {name:<16} {_p(per_phase[name])}")
    if profile:
        print("  where the saves' CPU goes in Python (cProfile, cumulative):")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)
    if statements:
        calls = sum(len(ms) for ms in clock.statements.values())
        print(
            f"  {calls / saves:.0f} statements a save; the slowest (wall ms and CPU ms over "
            f"{saves} saves, calls, wall p95 ms):"
        )
        top = sorted(clock.statements.items(), key=lambda kv: -sum(kv[1]))[:statements]
        for sql, ms in top:
            cpu = clock.statement_cpu[sql]
            print(f"    {sum(ms):7.0f} {cpu:7.0f} {len(ms):5d} {quantile(ms, 0.95):7.1f}  {sql}")


def _p(samples: list[float]) -> str:
    return f"p50 {quantile(samples, 0.5):7.1f} ms  p95 {quantile(samples, 0.95):7.1f} ms"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", choices=("load", "synth", "both"), default="both")
    parser.add_argument("--saves", type=int, default=40)
    parser.add_argument("--model", action="store_true", help="embed with the real model")
    parser.add_argument("--statements", type=int, default=0, help="list the N slowest SQL")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="cProfile the saves")
    args = parser.parse_args(argv)
    kinds = ("load", "synth") if args.vault == "both" else (args.vault,)
    for kind in kinds:
        run(kind, args.saves, args.model, args.statements, args.seed, args.profile)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
