"""The write path's hammer (issue 39): another process saves a note 100 times a second while
kbtui edits it through NoteWriter; afterwards no line of either is lost.

    python bench/write_hammer.py --edits 1000 --mode alternate
    python bench/write_hammer.py --edits 1000 --mode append

The other process (`saver`, a child) is an editor that reloads on change: every 10 ms it
re-reads the note (its own copy when the file is not there), adds one unique line (`ext-<n>`)
and saves, in `alternate` mode once in place (open, truncate, write) and once by rename
(a temporary file, then os.replace), in `append` mode blindly with O_APPEND. Meanwhile kbtui
applies `--edits` edits (NoteWriter.edit, each appending `kb-<i>`), every other one with the
hash it read first as `expected_hash`. Then, the files kept beside writes ingested
(History.ingest_kept(grace=0)): every `ext-` line saved and every applied `kb-` line must be
in the final file or in some version of the note's history; a refused `kb-` line in neither.
tests/test_write_hammer.py runs it short (and long under `-m slow`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOTE = "hammer.md"
EMPTY = hashlib.sha256(b"").hexdigest()
START = "# Hammer\n\nA note two programs write at once.\n"


# -- the other program -----------------------------------------------------------------------
def saver(note: Path, mode: str, rate: float) -> int:
    """Save `note` `rate` times a second until a line arrives on stdin; print the counts."""
    stop = threading.Event()

    def wait_for_stop() -> None:
        sys.stdin.readline()
        stop.set()

    threading.Thread(target=wait_for_stop, daemon=True).start()
    own = note.read_bytes()
    counts: Counter[str] = Counter()
    n, tick = 0, time.monotonic()
    while not stop.is_set():
        line = f"ext-{n}\n".encode()
        if mode == "append":
            fd = os.open(note, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            counts["appended"] += 1
        else:
            try:
                own = note.read_bytes()  # reload on change, as an editor does
            except FileNotFoundError:
                counts["not there, own copy"] += 1
            own = own + line if own.endswith(b"\n") or not own else own + b"\n" + line
            if n % 2 == 0:
                with open(note, "wb") as fh:  # in place: O_TRUNC, then the bytes
                    fh.write(own)
                counts["in place"] += 1
            else:
                tmp = note.with_name(f".saver-{n}.tmp")
                tmp.write_bytes(own)
                os.replace(tmp, note)
                counts["by rename"] += 1
        n += 1
        if n == 1:
            print("ready", flush=True)
        tick += 1.0 / rate
        stop.wait(max(0.0, tick - time.monotonic()))  # the pace, not a synchronisation
    print(json.dumps({"saves": n, **counts}), flush=True)
    return 0


# -- kbtui's side ------------------------------------------------------------------------------
@dataclass
class HammerCounts:
    mode: str
    edits: int = 0
    applied: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # with / without expected_hash
    errors: list[str] = field(default_factory=list)
    saves: dict[str, int] = field(default_factory=dict)
    ext_where: Counter[str] = field(default_factory=Counter)  # file / history:<operation>
    kb_where: Counter[str] = field(default_factory=Counter)
    lost_ext: list[str] = field(default_factory=list)
    lost_kb: list[str] = field(default_factory=list)
    written_though_refused: list[str] = field(default_factory=list)
    versions: int = 0
    on_empty: int = 0  # applied edits that read the note empty (a save in place half done)
    history_bytes: int = 0
    seconds: float = 0.0
    edit_ms: list[float] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return len(self.lost_ext) + len(self.lost_kb) + len(self.written_though_refused)

    def line(self) -> str:
        saves = self.saves.get("saves", 0)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.saves.items()) if k != "saves")
        p50 = statistics.median(self.edit_ms) if self.edit_ms else 0.0
        return (
            f"hammer ({self.mode}): {self.edits} kbtui edits in {self.seconds:.1f} s "
            f"(p50 {p50:.0f} ms): applied {self.applied} ({self.on_empty} on an empty read), "
            f"refused as stale {sum(self.refused.values())} ({_items(self.refused)}), "
            f"errors {len(self.errors)}; "
            f"other process: {saves} saves ({saves / max(self.seconds, 1e-9):.0f}/s; {kinds}); "
            f"its lines found: {_items(self.ext_where)}; kbtui's applied lines found: "
            f"{_items(self.kb_where)}; history {self.versions} versions, "
            f"{self.history_bytes / 1e6:.1f} MB; lost {self.lost}"
        )


STALE_KINDS = (  # what a refusal says -> a short name for the counts
    ("since it was read (expected", "hash stated"),
    ("changed on disk since it was read", "changed before the swap"),
    ("as it was replaced", "saved into the file set aside"),
    ("saved by another program meanwhile", "saved under the name during the swap"),
    ("moved or deleted", "not there"),
)


def _why(message: str, stated: bool) -> str:
    kind = next((short for text, short in STALE_KINDS if text in message), message[:40])
    return f"{kind} ({'with' if stated else 'without'} hash)"


def _items(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"


def hammer(
    vault: Path, edits: int, mode: str, rate: float = 100.0, seconds: float | None = None
) -> HammerCounts:
    """Run the hammer on a fresh vault folder `vault` (created here) and check every line:
    `edits` edits, or fewer if `seconds` run out first."""
    from kbtui.config import Settings
    from kbtui.embed import HashEmbedder
    from kbtui.runtime.knowledge_base import KnowledgeBase
    from kbtui.store import Store
    from kbtui.tools.write.service import NoteWriter, StaleNoteError
    from kbtui.vault.edit.sections import append_text

    vault.mkdir(parents=True)
    (vault / NOTE).write_text(START, encoding="utf-8")
    (vault / "other.md").write_text("# Other\n\nLinks to [[hammer]].\n", encoding="utf-8")
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir()
    kb = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    counts = HammerCounts(mode)
    applied: list[str] = []
    refused: list[str] = []
    try:
        kb.indexer.run()
        writer = NoteWriter(kb.tools.parts)
        child = subprocess.Popen(
            [sys.executable, __file__, "saver", str(vault / NOTE), mode, str(rate)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
        )  # fmt: skip
        assert child.stdin is not None and child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        started = time.perf_counter()
        for i in range(edits):
            if seconds is not None and time.perf_counter() - started > seconds:
                break
            line = f"kb-{i}"
            expected = writer.read(NOTE).hash if i % 2 else None
            t0 = time.perf_counter()
            try:
                done = writer.edit(
                    NOTE,
                    lambda n, line=line: append_text(n.text, n.newline, line),  # type: ignore[misc]
                    "append",
                    expected_hash=expected,
                )
                applied.append(line)
                if done.previous_hash == EMPTY:
                    counts.on_empty += 1
            except StaleNoteError as exc:
                refused.append(line)
                counts.refused[_why(str(exc), expected is not None)] += 1
            except Exception as exc:  # a refusal of another kind: reported, counted as lost
                counts.errors.append(f"{line}: {type(exc).__name__}: {exc}")
            counts.edit_ms.append((time.perf_counter() - t0) * 1000)
        counts.seconds = time.perf_counter() - started
        out, _ = child.communicate("stop\n", timeout=60)
        counts.saves = json.loads(out.strip().splitlines()[-1])
        history = kb.history
        history.ingest_kept(grace=0)
        final = set((vault / NOTE).read_text(encoding="utf-8").splitlines())
        found: dict[str, str] = {}  # line -> the operation of the first version holding it
        versions = history.versions(NOTE)
        for version in reversed(versions):  # oldest first
            if version.hash is None:
                continue
            for text in history.data(version.hash).decode("utf-8").splitlines():
                found.setdefault(text, f"history ({version.operation})")
        counts.versions, counts.history_bytes = len(versions), history.size_on_disk()
    finally:
        kb.close()
    counts.applied = len(applied)
    counts.edits = len(applied) + len(refused) + len(counts.errors)

    def where(text: str) -> str | None:
        return "file" if text in final else found.get(text)

    for text in (f"ext-{n}" for n in range(counts.saves["saves"])):
        if (place := where(text)) is None:
            counts.lost_ext.append(text)
        else:
            counts.ext_where[place] += 1
    for text in applied:
        if (place := where(text)) is None:
            counts.lost_kb.append(text)
        else:
            counts.kb_where[place] += 1
    counts.written_though_refused = [t for t in refused if where(t) is not None]
    return counts


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "saver":
        return saver(Path(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    sys.path.insert(0, str(REPO))
    from bench_common import cpu_times, machine_note

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--edits", type=int, default=1000)
    ap.add_argument("--mode", choices=("alternate", "append", "both"), default="both")
    ap.add_argument("--rate", type=float, default=100.0)
    opts = ap.parse_args()
    import tempfile

    failed = False
    for mode in ("alternate", "append") if opts.mode == "both" else (opts.mode,):
        with tempfile.TemporaryDirectory(prefix="kbtui-hammer-") as tmp:
            before = cpu_times()
            counts = hammer(Path(tmp) / "vault", opts.edits, mode, opts.rate)
            print(counts.line() + "; " + machine_note(before), flush=True)
            for problem in counts.errors[:5] + counts.lost_ext[:5] + counts.lost_kb[:5]:
                print("  ", problem)
            failed |= bool(counts.lost or counts.errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
