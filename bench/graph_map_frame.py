"""The graph map's first frame after Enter, on an obsidian-hub-sized vault (issue 32's goal:
<= 300 ms on 6.6k notes).

    python bench/graph_map_frame.py                       # 6,600 notes, 30 centres
    python bench/graph_map_frame.py --notes 6600 --rounds 50 --depth 2

The app runs headless (120x40) on a VaultRuntime over a copy of watch_latency.py's
obsidian-hub-sized synthetic vault (bench_common.hub_sized_vault, built once under --work).
Each sample selects a neighbour on the map and presses Enter (delivered as a terminal
delivers it); the time runs to the moment the canvas has rendered the new centre's frame:
the query (app_graph_map), the layout (never cached: every centre is new) and the drawing.
Also printed: the query, the layout and the drawing alone for the same centres.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from bench_common import (
    WORK,
    cpu_times,
    hub_sized_vault,
    machine_note,
    percentiles,
    working_copy,
)
from rich.text import Text
from textual import events

from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.graphmap.canvas import draw
from kbtui.graphmap.layout import layout
from kbtui.runtime.runtime import VaultRuntime
from kbtui.tui.app import KbApp
from kbtui.tui.messages import ShowGraph
from kbtui.tui.widgets.graph_map import MAX_NODES, MapPane, hood_from
from kbtui.tui.widgets.map_canvas import MapCanvas

SIZE = (120, 40)
drawn: dict[str, float] = {}  # centre -> when its frame was first rendered


def timed_render(self: MapCanvas) -> Text:
    text = untimed_render(self)
    if self.map_layout is not None and self.map_layout.hood.centre is not None:
        drawn.setdefault(self.map_layout.hood.centre, time.perf_counter())
    return text


untimed_render = MapCanvas.render
MapCanvas.render = timed_render  # type: ignore[method-assign]


def centres(runtime: VaultRuntime, count: int, seed: int) -> list[str]:
    """Entities of the linked kinds (people, projects, meetings ...), chosen at random."""
    page = runtime.call("app_list_entities", {"limit": 1000})
    ids = [str(e["id"]) for e in page["entities"] if not str(e["id"]).startswith("note:")]
    random.Random(seed).shuffle(ids)
    return ids[:count]


async def frames(runtime: VaultRuntime, start: str, rounds: int, depth: int) -> list[float]:
    app = KbApp(runtime, vault_name="bench", status_seconds=60)
    out: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(ShowGraph(start, "map"))
        while start not in drawn:
            await pilot.pause(0.01)
        pane = app.screen.query_one(MapPane)
        for _ in range(depth - 1):
            pane.action_depth(1)
        seen = {start}
        rng = random.Random(1)
        while len(out) < rounds:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert pane.hood is not None
            fresh = [n.id for n in pane.hood.nodes if n.id not in seen and not n.more]
            if not fresh:  # a dead end: jump elsewhere
                fresh = [rng.choice(centres(runtime, 200, len(out)))]
                pane.centre_on(fresh[0])
                seen.add(fresh[0])
                continue
            target = rng.choice(fresh)
            seen.add(target)
            pane.canvas.select(target)
            await pilot.pause()  # the selection drawn (as a person sees it before Enter)
            started = time.perf_counter()
            app.post_message(events.Key("enter", None))
            while target not in drawn:
                await asyncio.sleep(0.001)
            out.append((drawn[target] - started) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--notes", type=int, default=6600)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--depth", type=int, default=1, choices=(1, 2, 3))
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    before = cpu_times()
    cache = hub_sized_vault(args.work, args.notes, FastEmbedder().model_id)
    with tempfile.TemporaryDirectory() as tmp:
        vault = working_copy(cache, Path(tmp) / "vault")
        runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
        stats = runtime.status()["stats"]
        print(f"index: {stats['notes']} notes, {stats['links']} links")
        sample = centres(runtime, args.rounds, seed=7)
        queries, layouts, draws, sizes = [], [], [], []
        for centre in sample:
            started = time.perf_counter()
            found = runtime.call(
                "app_graph_map", {"centre": centre, "depth": args.depth, "maxNodes": MAX_NODES}
            )
            if not found.get("ok"):
                raise SystemExit(f"app_graph_map failed: {found.get('message')}")
            queries.append((time.perf_counter() - started) * 1000)
            hood = hood_from(found)
            sizes.append(len(hood.nodes))
            started = time.perf_counter()
            laid = layout(hood)
            layouts.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            draw(laid, SIZE[0], SIZE[1] - 8, selected=centre)
            draws.append((time.perf_counter() - started) * 1000)
        after_enter = asyncio.run(frames(runtime, sample[0], args.rounds, args.depth))
        runtime.close()
    print(f"nodes on the map (depth {args.depth})      median {sorted(sizes)[len(sizes) // 2]}")
    print(f"app_graph_map query               {percentiles(queries)}")
    print(f"layout                            {percentiles(layouts)}")
    print(f"drawing (canvas.draw, 120x32)     {percentiles(draws)}")
    print(f"Enter -> the new map's first frame {percentiles(after_enter)}   goal <= 300 ms")
    print(machine_note(before))


if __name__ == "__main__":
    main()
