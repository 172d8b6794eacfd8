"""TUI latency: first frame on a 10k-note vault, keystroke to updated results at ~100k chunks.

    python bench/tui_latency.py                          # both, modest rounds
    python bench/tui_latency.py --notes 10000 --chunks 100000 --frames 5 --keys 40
    python bench/tui_latency.py --vault-notes 6600 --frames 5 --keys 0   # obsidian-hub size

First frame: a fresh Python process runs the app headless (120x40) the way `kbtui` does
(VaultSession opener, index opened in a worker) and reports the time from just before the
process was spawned (imports included) to the first rendered frame, to the first note
list on screen, and to the first note shown (the list's first note opened as soon as the list
is there; also timed from that moment: what a person who opens a note at once waits).
With `--vault-notes N` the first-frame vault is watch_latency.py's obsidian-hub-sized one
(N notes, ~6.5 chunks each, vectors labelled as the real model's; a copy per run) and the
app runs the real model, as `kbtui` does.

Keystrokes: the app on a VaultRuntime over the big vault with the real model embedding
each query; each sample types one more character of a query and waits until the
results list holds that query's answer (the 50 ms debounce included; drawn at the next refresh).

Vaults are synthetic (bench/synth_vault.py), indexed once with the hash embedder under
--work (shared with kb_latency.py); queries are still embedded by the real model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import (
    CHUNKS_PER_NOTE,
    QUERIES,
    WORK,
    cpu_times,
    hub_sized_vault,
    machine_note,
    percentiles,
    synthetic_vault,
    working_copy,
)
from textual import events
from textual.widgets import Input, Markdown

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui import VaultSession
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote
from kbtui.tui.screens.note import NoteScreen
from kbtui.tui.screens.search import SearchScreen
from kbtui.tui.widgets.results import EntityList

SIZE = (120, 40)


class TimedApp(KbApp):
    """Records when the first frame was drawn and when the note list first appeared."""

    first_frame: float | None = None
    first_list: float | None = None
    first_note: float | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self.call_after_refresh(self._drawn)

    def _drawn(self) -> None:
        self.first_frame = time.time()


async def _child_first_frame(vault: Path, spawned: float, real: bool) -> dict[str, float]:
    """In the child process: run the app like `kbtui --vault` does, report the timings."""
    # The embedder the vault's vectors were made with (or labelled as), so the background
    # pass has nothing to embed: another would re-embed every chunk first.
    session = VaultSession(
        Settings.for_vault(vault), lambda s: FastEmbedder() if real else HashEmbedder()
    )
    app = TimedApp(opener=session.open, vault_name=vault.name, status_seconds=60)
    async with app.run_test(size=SIZE) as pilot:
        while app.first_frame is None:
            await pilot.pause(0.001)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        while screen.last_query is None:  # the note list (app_list_entities) is on screen
            await pilot.pause(0.005)
        listed = time.time()
        first = screen.query_one(EntityList).get_option_at_index(0).id
        assert first is not None
        app.post_message(OpenNote(first))
        while not (isinstance(app.screen, NoteScreen) and app.screen.note is not None):
            await pilot.pause(0.005)
        body = app.screen.query_one("#note-body", Markdown)
        while not body.children:  # its blocks are mounted
            await asyncio.sleep(0.002)
        drawn = asyncio.Event()  # and drawn: not pilot.pause(), which waits for an idle CPU
        app.call_after_refresh(drawn.set)
        await drawn.wait()
        shown = time.time()
    session.close()
    assert app.first_frame is not None
    return {
        "first_frame": app.first_frame - spawned,
        "first_list": listed - spawned,
        "first_note": shown - spawned,
        "note_after_list": shown - listed,
    }


def first_frame(vault: Path, runs: int, real: bool = False, copy_from: Path | None = None) -> None:
    frames, lists, notes, after = [], [], [], []
    for _ in range(runs):
        if copy_from is not None:  # the runtime's pass may write: each run on a fresh copy
            shutil.rmtree(vault, ignore_errors=True)
            vault = working_copy(copy_from, vault)
        spawned = time.time()
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(vault), str(spawned), str(int(real))],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        result = json.loads(out.strip().splitlines()[-1])
        frames.append(result["first_frame"] * 1000)
        lists.append(result["first_list"] * 1000)
        notes.append(result["first_note"] * 1000)
        after.append(result["note_after_list"] * 1000)
    print(f"first frame (process spawn → frame)   {percentiles(frames)}   goal < 1000 ms")
    print(f"first note list on screen             {percentiles(lists)}")
    print(f"first note shown (spawn → note)       {percentiles(notes)}")
    print(f"  opened when the list came → shown   {percentiles(after)}   goal < 500 ms")


def _samples() -> list[tuple[str, str]]:
    """(text already typed, next key): prefixes of every query, from 4 characters on."""
    out = []
    for query in QUERIES:
        for cut in range(4, len(query), 7):
            if query[cut - 1] == " ":  # a space changes nothing once the query is stripped
                cut += 1
            out.append((query[: cut - 1], query[cut - 1]))
    return out


async def _keystrokes(runtime: VaultRuntime, rounds: int) -> tuple[list[float], list[float]]:
    app = KbApp(runtime, vault_name="bench", status_seconds=60)
    keys, searches = [], []
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        query = screen.query_one("#query", Input)
        samples = _samples()
        for i in range(rounds + 5):
            typed, key = samples[i % len(samples)]
            query.value, query.cursor_position = typed, len(typed)
            while screen.last_query != typed.strip():
                await pilot.pause(0.002)
            await app.workers.wait_for_complete()
            started = time.perf_counter()
            # As a terminal delivers it: Pilot.press would also wait for the CPU to go idle.
            app.post_message(events.Key(key, key))
            expected = (typed + key).strip()
            while screen.last_query != expected:
                await asyncio.sleep(0.001)
            if i >= 5:  # the first few warm caches
                keys.append((time.perf_counter() - started) * 1000)
        for i in range(rounds):
            started = time.perf_counter()
            runtime.call("kb_search", {"query": QUERIES[i % len(QUERIES)], "top_k": 10})
            searches.append((time.perf_counter() - started) * 1000)
    return keys, searches


def keystrokes(settings: Settings, rounds: int) -> None:
    embedder = FastEmbedder()
    embedder.load()
    runtime = VaultRuntime(settings, embedder, watch=False)  # not started: nothing re-embedded
    stats = runtime.status()["stats"]
    print(f"index: {stats['notes']} notes, {stats['chunks']} chunks, {stats['embedded']} vectors")
    keys, searches = asyncio.run(_keystrokes(runtime, rounds))
    status_ms = []
    for _ in range(20):
        started = time.perf_counter()
        runtime.status()
        status_ms.append((time.perf_counter() - started) * 1000)
    runtime.close()
    print(f"keystroke → updated results          {percentiles(keys)}   goal < 100 ms")
    print(f"  of which kb_search (hybrid, top 10) {percentiles(searches)}")
    print(f"status() (polled once a second)       {percentiles(status_ms)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--notes", type=int, default=10_000, help="first-frame vault size")
    parser.add_argument("--chunks", type=int, default=100_000, help="keystroke vault size")
    parser.add_argument("--frames", type=int, default=5, help="first-frame runs")
    parser.add_argument("--keys", type=int, default=40, help="keystroke samples")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--vault-notes", type=int, default=0, help="first frame on this size")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        vault, spawned, real = Path(args.child[0]), float(args.child[1]), args.child[2] == "1"
        print(json.dumps(asyncio.run(_child_first_frame(vault, spawned, real))))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    before = cpu_times()
    if args.vault_notes:
        cache = hub_sized_vault(args.work, args.vault_notes, FastEmbedder().model_id)
        with tempfile.TemporaryDirectory(prefix="kbtui-tui-") as tmp:
            print(f"first frame on {cache.name}, real model (headless, {SIZE[0]}x{SIZE[1]})")
            first_frame(Path(tmp) / "live", args.frames, real=True, copy_from=cache)
    else:
        small = synthetic_vault(args.work, int(args.notes * CHUNKS_PER_NOTE))
        print(f"first frame on {small.vault.name} (headless, {SIZE[0]}x{SIZE[1]})")
        first_frame(small.vault, args.frames)
    if args.keys:
        big = synthetic_vault(args.work, args.chunks)
        print(f"keystrokes on {big.vault.name}")
        keystrokes(big, args.keys)
    print(machine_note(before))


if __name__ == "__main__":
    main()
