"""Fault injection for kbtui: a child process that indexes or runs one tool call and is
killed with SIGKILL at a chosen kind of moment, and the checks the parent runs afterwards.

Used by tests/test_crash.py (short runs) and bench/crash_index.py, bench/crash_writes.py
(long runs). Everything is real: the DuckDB file, the vault's files, the process and its
death. The child only picks *when* to die:

- ``timer``: after a random delay (anywhere in the pass);
- ``commit``: while DuckDB runs a COMMIT (a kill armed a few ms into the statement);
- ``txn``: inside an open transaction, right after one of its statements;
- ``checkpoint``: while DuckDB runs a CHECKPOINT forced after a commit;
- ``embed``: in the middle of embedding a batch;
- ``pdf``: while a PDF's pages are read (at a random page of the pass's PDFs);
- ``fs:<name>``: just before a call of os.<name> in kbtui.vault.edit.write and .swap (fdopen,
  link, rename, replace, fsync): between the steps of an atomic note write;
- ``side``: just before a side file of the search indexes (kbtui/store/side/arrays.py) is
  renamed into place, its temporary file written.

An index child also opens the search indexes before and after its pass, so their side files
are mapped, found stale, caught up and rewritten along the way; after each clean run the
parent checks that searches through the side files answer as a build from the store does.

    python bench/crashkit.py index --vault V --fault commit --p 0.5 --seed 3
    python bench/crashkit.py call --vault V --name knowledge_import --args '{...}' --fault fs:link
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if str(REPO / "bench") not in sys.path:
    sys.path.insert(0, str(REPO / "bench"))

from crashpdf import add_pdfs, dying_on_page  # noqa: E402

from kbtui.config import Settings  # noqa: E402
from kbtui.embed import Embedder, FastEmbedder, HashEmbedder  # noqa: E402
from kbtui.indexing.indexer import Indexer  # noqa: E402
from kbtui.search.keyword_index import KeywordIndex  # noqa: E402
from kbtui.search.service import SearchService  # noqa: E402
from kbtui.search.vector_index import VectorIndex  # noqa: E402
from kbtui.store import Store  # noqa: E402
from kbtui.store.file.verify import Snapshot  # noqa: E402
from kbtui.tokenize import query_terms  # noqa: E402

FAULTS = ("timer", "commit", "txn", "checkpoint", "embed", "side", "pdf")
FS_FAULTS = ("fs:fdopen", "fs:link", "fs:rename", "fs:replace", "fs:fsync")
KILLED = -signal.SIGKILL


def die(after: float = 0.0) -> None:
    """SIGKILL this process now, or from a thread `after` seconds from now."""
    if after <= 0:
        os.kill(os.getpid(), signal.SIGKILL)
    timer = threading.Timer(after, os.kill, (os.getpid(), signal.SIGKILL))
    timer.daemon = True
    timer.start()


class FaultyConnection:
    """The real DuckDB connection; at a randomly chosen statement it arms a SIGKILL."""

    def __init__(self, con: Any, fault: str, p: float, rng: random.Random) -> None:
        self._con, self._fault, self._p, self._rng = con, fault, p, rng

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        word = sql.strip().split(None, 1)[0].upper() if sql.strip() else ""
        roll = self._rng.random() < self._p
        if self._fault == "commit" and word == "COMMIT" and roll:
            die(self._rng.uniform(0.0, 0.004))
        result = self._con.execute(sql, *args, **kwargs)
        if self._fault == "txn" and word in ("INSERT", "UPDATE", "DELETE") and roll:
            die()
        if self._fault == "checkpoint" and word == "COMMIT" and roll:
            die(self._rng.uniform(0.0, 0.05))
            self._con.execute("CHECKPOINT")
        return result


class FaultyEmbedder:
    """Embeds for real, and dies halfway through a randomly chosen batch."""

    def __init__(self, inner: Embedder, p: float, rng: random.Random) -> None:
        self.inner, self.p, self.rng = inner, p, rng
        self.model_id, self.dim, self.embed_query = inner.model_id, inner.dim, inner.embed_query

    def embed(self, texts: list[str]) -> Any:
        if self.rng.random() < self.p:
            self.inner.embed(texts[: max(1, len(texts) // 2)])
            die()
        return self.inner.embed(texts)


class FaultyOs:
    """os for kbtui.vault.edit's writers, dying just before a randomly chosen call of one
    function."""

    def __init__(self, name: str, p: float, rng: random.Random) -> None:
        self._name, self._p, self._rng = name, p, rng

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if name != self._name:
            return real

        def maybe_die(*args: Any, **kwargs: Any) -> Any:
            if self._rng.random() < self._p:
                die()
            return real(*args, **kwargs)

        return maybe_die


def make_embedder(real: bool) -> Embedder:
    return FastEmbedder(batch_size=32, threads=1) if real else HashEmbedder()


def _child(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("index", "call"))
    ap.add_argument("--vault", required=True)
    ap.add_argument("--fault", default="none")
    ap.add_argument("--p", type=float, default=0.5)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real", action="store_true")
    ap.add_argument("--name", default="")
    ap.add_argument("--args", default="{}")
    opts = ap.parse_args(argv)
    rng = random.Random(opts.seed)
    settings = Settings.for_vault(opts.vault)
    embedder = make_embedder(opts.real)
    fault: str = opts.fault
    if fault == "timer":
        die(opts.delay)
    if fault == "embed":
        embedder = FaultyEmbedder(embedder, opts.p, rng)
    if fault.startswith("fs:"):
        import kbtui.vault.edit.swap as swap
        import kbtui.vault.edit.write as write

        faulty = FaultyOs(fault[3:], opts.p, rng)
        setattr(write, "os", faulty)  # noqa: B010
        setattr(swap, "os", faulty)  # noqa: B010
    if fault == "pdf":
        import kbtui.vault.attachments.pdf as pdf

        setattr(pdf, "clean_page", dying_on_page(pdf.clean_page, rng.randint(1, 30)))  # noqa: B010
    if fault == "side":
        import kbtui.store.side.arrays as side

        setattr(side, "os", FaultyOs("replace", opts.p, rng))  # noqa: B010
    if opts.mode == "index":
        store = Store(settings.db_path)
        if store.recovered:
            print(json.dumps({"recovered": store.recovered}), flush=True)
        if fault in ("commit", "txn", "checkpoint"):
            store.con = FaultyConnection(store.con, fault, opts.p, rng)  # type: ignore[assignment]
            # commit/txn: a small WAL limit, so commits checkpoint too (a kill lands inside);
            # checkpoint: a large one, so the forced CHECKPOINT has all the pass's work to do.
            store.wal_limit("1GB" if fault == "checkpoint" else "64KB")
        search_indexes(store, embedder)  # map, catch up, maybe rewrite the side files
        report = Indexer(settings, store, embedder).run()
        search_indexes(store, embedder)
        store.close()
        print(json.dumps({"skipped": len(report.skipped), "new": len(report.new)}))
        return 0
    from kbtui.runtime.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.open(settings, embedder)
    if fault in ("commit", "txn", "checkpoint"):
        kb.store.con = FaultyConnection(kb.store.con, fault, opts.p, rng)  # type: ignore[assignment]
    answer = kb.call(opts.name, json.loads(opts.args))
    kb.close()
    print(json.dumps(answer, default=str))
    return 0


def search_indexes(store: Store, embedder: Embedder) -> SearchService:
    search = SearchService(store, embedder)
    search.keywords.sync()
    search.vectors.sync()
    return search


# -- the parent's side -----------------------------------------------------------------------
SIDE_QUERIES = ("watch battery", "gesture model training", "sync offline", "design review")


def side_file_differences(vault: Path) -> list[str]:
    """Where searches through the side files answer otherwise than a build from the store."""
    store = Store(Settings.for_vault(vault).db_path)
    try:
        mapped = SearchService(store, HashEmbedder())
        kw, vec = mapped.keywords, mapped.vectors
        fresh_kw, fresh_vec = (
            KeywordIndex(store, side_files=False),
            VectorIndex(store, side_files=False),
        )
        out = []
        for query in SIDE_QUERIES:
            terms = query_terms(query)
            if kw.search(terms, 20) != fresh_kw.search(terms, 20):
                out.append(f"keywords differ for {query!r}")
            q = HashEmbedder().embed([query])[0]
            if [c for c, _ in vec.search(q, 20)] != [c for c, _ in fresh_vec.search(q, 20)]:
                out.append(f"vectors differ for {query!r}")
        return out
    finally:
        store.close()


def facts_differences(vault: Path) -> list[str]:
    """Where an open's facts (kbtui/store/vectors/open_facts.py: recorded by the last clean close,
    or read) differ from a read of the vector column."""
    store = Store(Settings.for_vault(vault).db_path)
    try:
        cids, has, waiting = store._vector_flags()
        out = []
        at_open = store.embedded_at_open()
        if at_open is None or at_open.tolist() != sorted(cids[has].tolist()):
            out.append("the embedded ids at open differ from the table's")
        if waiting.any() and store._pending_from > int(cids[waiting].min()):
            out.append("a chunk waits for a vector under the open's floor")
        return out
    finally:
        store.close()


def run_child(
    mode: str, vault: Path, *extra: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), mode, "--vault", str(vault), *extra],
        capture_output=True, text=True, cwd=REPO, timeout=timeout,
    )  # fmt: skip


def index_snapshot(vault: Path) -> tuple[Snapshot, str | None]:
    """Open the index as a restart would (replaying its WAL) and read all of it."""
    store = Store(Settings.for_vault(vault).db_path)
    try:
        return store.snapshot(), store.recovered
    finally:
        store.close()


def fresh_snapshot(vault: Path, scratch: Path, real: bool = False) -> Snapshot:
    """The index a fresh build of this vault gives (a copy with the same file times)."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(vault, scratch, symlinks=True, ignore=shutil.ignore_patterns(".kbtui"))
    settings = Settings.for_vault(scratch)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, make_embedder(real)).run()
        snap = store.snapshot()
    finally:
        store.close()
    return snap


def vault_digest(vault: Path) -> dict[str, str]:
    """sha256 of every file under the vault except the index folder (hidden files too)."""
    out: dict[str, str] = {}
    for path in sorted(vault.rglob("*")):
        rel = path.relative_to(vault).as_posix()
        if rel.split("/", 1)[0] == ".kbtui" or path.is_symlink() or not path.is_file():
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def mutate(vault: Path, rng: random.Random, round_no: int) -> list[str]:
    """Edit, add, rename and delete a few notes, as a user does between two passes."""
    notes = sorted(
        p for p in vault.rglob("*.md") if not p.relative_to(vault).parts[0].startswith((".", "_"))
    )
    done: list[str] = []
    for path in rng.sample(notes, min(3, len(notes))):
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"\n\n## Round {round_no}\n\nEdited in round {round_no}: see [[Home]].\n")
        done.append(f"edit {path.name}")
    done += add_pdfs(vault, round_no, rng)
    new = vault / "crash" / f"round {round_no}.md"
    new.parent.mkdir(exist_ok=True)
    vocabulary = ("alpha", "beta", "gamma", "sensor", "battery")
    words = " ".join(rng.choice(vocabulary) for _ in range(400))
    new.write_text(f"---\ntype: note\nrelated_to: [[Home]]\n---\n# Round {round_no}\n\n{words}\n")
    done.append(f"add {new.name}")
    victim = rng.choice(notes)
    if victim.exists():
        target = victim.with_name(f"moved-{round_no}-{victim.name}")
        victim.rename(target)
        done.append(f"rename {victim.name}")
    victim = rng.choice(notes)
    if victim.exists():
        victim.unlink()
        done.append(f"delete {victim.name}")
    return done


def pick_fault(rng: random.Random, pass_seconds: float) -> list[str]:
    """Child arguments for one randomly chosen fault."""
    fault = rng.choice(FAULTS)
    args = ["--fault", fault, "--seed", str(rng.randrange(1 << 30)), "--p", "0.5"]
    if fault == "timer":
        args += ["--delay", f"{rng.uniform(0.0, pass_seconds):.4f}"]
    return args


@dataclass
class Counts:
    """What a long or short run did, printed by the bench scripts and asserted by tests."""

    runs: int = 0  # child processes started
    faults: int = 0  # of them, killed by the injected SIGKILL
    by_kind: dict[str, int] = field(default_factory=dict)
    checks: int = 0  # restarts whose index was opened and compared or read
    failures: list[str] = field(default_factory=list)

    def line(self, what: str) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.by_kind.items()))
        return (
            f"{what}: runs {self.runs}, faults injected {self.faults} ({kinds}), "
            f"checks {self.checks}, failures {len(self.failures)}"
        )


def crash_rounds(
    vault: Path,
    scratch: Path,
    rounds: int,
    rng: random.Random,
    real: bool = False,
    pass_seconds: float = 0.6,
) -> Counts:
    """Each round: the user changes a few notes, then 1-3 indexer runs are killed at random
    moments; after each kill the index must open (no damage), and once a clean run has
    finished it must equal a fresh build of the same vault."""
    counts = Counts()
    extra = ["--real"] if real else []
    add_pdfs(vault, 0, rng)
    for round_no in range(rounds):
        if round_no:
            mutate(vault, rng, round_no)
        for _ in range(rng.randint(1, 3)):
            args = pick_fault(rng, pass_seconds)
            proc = run_child("index", vault, *args, *extra)
            counts.runs += 1
            if proc.returncode == KILLED:
                counts.faults += 1
                counts.by_kind[args[1]] = counts.by_kind.get(args[1], 0) + 1
            elif proc.returncode != 0:
                counts.failures.append(f"round {round_no} {args}: {proc.stderr[-800:]}")
            try:
                _, recovered = index_snapshot(vault)
            except Exception as exc:
                counts.failures.append(f"round {round_no} {args}: cannot open: {exc}")
                continue
            counts.checks += 1
            if recovered:
                counts.failures.append(f"round {round_no} {args}: index damaged: {recovered}")
            if facts := facts_differences(vault):  # recorded by the close just made
                counts.failures.append(f"round {round_no} {args}: {facts}")
        proc = run_child("index", vault, *extra)
        counts.runs += 1
        if proc.returncode != 0:
            counts.failures.append(f"round {round_no} clean run: {proc.stderr[-800:]}")
            continue
        after, _ = index_snapshot(vault)
        fresh = fresh_snapshot(vault, scratch, real)
        counts.checks += 1
        diffs = after.differences(fresh) + side_file_differences(vault) + facts_differences(vault)
        if diffs:
            counts.failures.append(f"round {round_no}: differs from a fresh build: {diffs[:4]}")
    return counts


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
