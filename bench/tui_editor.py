"""The TUI's editor (issue 40's goals): a keystroke to the next frame on a 2,000-line note
(p95 <= 50 ms), and the `[[` completion list on a 10k-note vault (within 100 ms).

    python bench/tui_editor.py                        # 10,000 notes, 2,000 lines, 200 keys
    python bench/tui_editor.py --notes 10000 --lines 2000 --keys 300 --links 30

The vault is watch_latency.py's synthetic one (bench_common.hub_sized_vault: `--notes` notes,
indexed once under --work with the hash embedder), a copy per run, plus one note of `--lines`
lines (headings, lists, links, tags) in markdown. The app runs headless (120x40) on a
VaultRuntime with the editor open on that note (markdown highlighting and soft wrap on, as
a person has it). Each key is delivered as a terminal delivers it (a Key event); the time
runs from then to the first frame the app composes after the text changed (App._display,
which writes a frame to the terminal; headless it draws nothing but is called the same).

- typing: printable characters and spaces typed in the middle of the note, then at its end
  (also printed: the process's CPU time from a key to its frame, which the machine's load
  changes less than the wall time);
- `[[`: the second `[` of a new link to the frame showing the list, then each letter of a
  name typed after it to the frame with the list ranked for it (rapidfuzz over every note's
  name, title and alias); also printed: the names' one load when the editor opens
  (app_link_names) and the ranking alone.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import WORK, cpu_times, hub_sized_vault, machine_note, percentiles, working_copy
from textual import events

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.edit.completion import link_ranker
from kbtui.tui.edit.editor import EditorScreen

SIZE = (120, 40)
LONG = "bench/long note.md"
PROSE = (
    "the sync engine keeps a log of operations and merges them on read so every device "
    "converges without a server while the watch holds only the settings it needs"
)
WORDS = PROSE.split()
frames: list[float] = []  # when each frame was composed
cpu_ms: list[float] = []  # this process's CPU time from each typed key to its frame


def timed_display(self: KbApp, screen: Any, renderable: Any) -> None:
    if renderable is not None:
        frames.append(time.perf_counter())
    untimed_display(self, screen, renderable)


untimed_display = KbApp._display
KbApp._display = timed_display  # type: ignore[method-assign,assignment]


def long_note(lines: int, names: list[str], seed: int = 0) -> str:
    """`lines` lines of markdown: a heading every 25, list items with links and tags,
    paragraphs of prose."""
    rng = random.Random(seed)
    out = ["---", "tags: [bench, long]", "---", "# A long note", ""]
    while len(out) < lines:
        n = len(out)
        if n % 25 == 0:
            out += [f"## Section {n // 25}", ""]
        elif n % 3 == 0:
            link = rng.choice(names)
            out.append(f"- {' '.join(rng.choices(WORDS, k=8))} [[{link}]] #{rng.choice(WORDS)}")
        else:
            out.append(" ".join(rng.choices(WORDS, k=rng.randint(8, 18))))
    return "\n".join(out[:lines]) + "\n"


async def press(app: KbApp, editor: EditorScreen, key: str, char: str | None) -> float:
    """Milliseconds from a key's delivery to the first frame after the text changed."""
    await app.workers.wait_for_complete()
    await asyncio.sleep(0.005)  # as a person types: the previous frame is out
    area = editor.area
    version = area.document.line_count, len(area.document.get_line(area.cursor_location[0]))
    cpu, started = time.process_time(), time.perf_counter()
    frames.clear()
    app.post_message(events.Key(key, char))
    while True:
        await asyncio.sleep(0.0005)
        now = area.document.line_count, len(area.document.get_line(area.cursor_location[0]))
        if now != version and frames and frames[-1] > started:
            break
    cpu_ms.append((time.process_time() - cpu) * 1000)
    return (frames[-1] - started) * 1000


async def list_frame(app: KbApp, editor: EditorScreen, char: str, query: str) -> float:
    """Milliseconds from a key to the first frame showing the list ranked for `query`."""
    await app.workers.wait_for_complete()
    await asyncio.sleep(0.005)
    started = time.perf_counter()
    frames.clear()
    app.post_message(events.Key(char if char != "[" else "left_square_bracket", char))
    while True:
        await asyncio.sleep(0.0005)
        ctx = editor.ctx
        ready = editor.completion.shown and ctx is not None and ctx.query == query
        if ready and frames and frames[-1] > started:
            break
    return (frames[-1] - started) * 1000


async def run(runtime: VaultRuntime, keys: int, links: int) -> dict[str, Any]:
    app = KbApp(runtime, vault_name="bench", status_seconds=60)
    out: dict[str, Any] = {"middle": [], "end": [], "open": [], "next": []}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        started = time.perf_counter()
        app.push_screen(EditorScreen(LONG))
        while not (isinstance(app.screen, EditorScreen) and app.screen.links is not None):
            await asyncio.sleep(0.001)
        out["names_loaded"] = (time.perf_counter() - started) * 1000
        editor = app.screen
        area = editor.area
        area.cursor_blink = False
        out["language"] = area.language
        rng = random.Random(3)
        text = " ".join(rng.choices(WORDS, k=keys))
        for where in ("middle", "end"):
            row = area.document.line_count // 2 if where == "middle" else area.document.line_count
            area.move_cursor((row, 0) if where == "middle" else area.document.end)
            await pilot.pause()
            for char in text[: keys // 2]:
                key = "space" if char == " " else char
                out[where].append(await press(app, editor, key, char))
        out["cpu"] = list(cpu_ms)  # the typing's, not the links' below
        names = [str(n["link"]) for n in runtime.call("app_link_names", {})["notes"]]
        for name in rng.sample(names, links):
            await press(app, editor, "enter", None)
            await press(app, editor, "left_square_bracket", "[")
            out["open"].append(await list_frame(app, editor, "[", ""))
            query = ""
            for char in name[:4].lower():
                query += char
                out["next"].append(await list_frame(app, editor, char, query))
            editor.dismiss_completion()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--keys", type=int, default=200, help="characters typed in all")
    parser.add_argument("--links", type=int, default=30, help="links started with [[")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    before = cpu_times()
    cache = hub_sized_vault(args.work, args.notes, FastEmbedder().model_id)
    with tempfile.TemporaryDirectory() as tmp:
        vault = working_copy(cache, Path(tmp) / "vault")
        runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
        listed = runtime.call("app_link_names", {})
        names = [str(n["link"]) for n in listed["notes"]]
        (vault / LONG).parent.mkdir()
        (vault / LONG).write_text(long_note(args.lines, names))
        runtime.call("app_reindex", {"paths": [LONG]})
        started = time.perf_counter()
        ranker = link_ranker(listed["notes"])
        built = (time.perf_counter() - started) * 1000
        ranks = []
        for name in random.Random(5).sample(names, 50):
            for n in range(1, 5):
                started = time.perf_counter()
                ranker.rank(name[:n])
                ranks.append((time.perf_counter() - started) * 1000)
        results = asyncio.run(run(runtime, args.keys, args.links))
        runtime.close()
    print(f"vault: {len(names)} notes; the note: {args.lines} lines; {machine_note(before)}")
    print(f"highlighting: {results['language'] or 'none'}; soft wrap on; 120x40")
    print(f"names loaded when the editor opens (app_link_names)  {results['names_loaded']:.0f} ms")
    print(f"ranker built from them                             {built:.0f} ms")
    print(f"ranking one query (1-4 letters)      {percentiles(ranks)}")
    print(f"key -> frame, middle of the note     {percentiles(results['middle'])}   goal p95 <= 50")
    print(f"key -> frame, end of the note        {percentiles(results['end'])}")
    print(f"CPU of this process per typed key    {percentiles(results['cpu'])}")
    print(f"[[ -> the list's frame               {percentiles(results['open'])}   goal <= 100")
    print(f"a letter -> the list re-ranked       {percentiles(results['next'])}")


if __name__ == "__main__":
    main()
