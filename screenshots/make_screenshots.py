"""Current screenshots of the TUI on vault_example, for the README.

    .venv/bin/python screenshots/make_screenshots.py

Indexes a copy of vault_example with the real model, drives the app headless at 120x40 and
writes one SVG per screen into screenshots/, plus a PNG of each when `rsvg-convert` or
ImageMagick's `convert` is installed.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kbtui.services.indexer import Indexer
from kbtui.services.runtime import VaultRuntime
from textual.message import Message
from textual.widgets import Input

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.store import Store
from kbtui.tui.app import KbApp
from kbtui.tui.messages import OpenNote, ShowGraph

HERE = Path(__file__).resolve().parent
VAULT_EXAMPLE = HERE.parent / "vault_example"
SIZE = (120, 40)
Step = Message | str  # a message to post, "type:<text>", or a key

SHOTS: dict[str, Sequence[Step]] = {
    "search": ("type:who worked on the watch",),
    "note": (OpenNote("person:andrei_clodius"),),
    "graph": (OpenNote("project:vector_watch_project"), "g"),
    "path": (ShowGraph(None, "path"), "type:Andrei", "enter", "type:Harbor", "enter"),
    "merge": (ShowGraph(None, "duplicates"), "m"),
}


async def shoot(runtime: VaultRuntime, steps: Sequence[Step]) -> str:
    app = KbApp(runtime, vault_name="vault_example", status_seconds=60)
    async with app.run_test(size=SIZE) as pilot:

        async def settle() -> None:
            for _ in range(3):
                await pilot.pause()
                await app.workers.wait_for_complete()
            await pilot.pause()

        await settle()
        for step in steps:
            if isinstance(step, Message):
                app.post_message(step)
            elif step.startswith("type:"):
                await pilot.press(*("space" if c == " " else c for c in step[5:]))
            else:
                await pilot.press(step)
            await settle()
        for field in app.screen.query(Input):
            field.cursor_blink = False
        return app.export_screenshot(title="kbtui")


def to_png(svg: Path) -> Path | None:
    """A PNG next to the SVG, if a converter is installed (spaces kept as drawn)."""
    png = svg.with_suffix(".png")
    if shutil.which("rsvg-convert"):
        with tempfile.NamedTemporaryFile("w", suffix=".svg") as tmp:
            tmp.write(svg.read_text().replace("<svg ", '<svg xml:space="preserve" ', 1))
            tmp.flush()
            subprocess.run(["rsvg-convert", "-z", "0.75", "-o", str(png), tmp.name], check=True)
    elif shutil.which("convert"):
        subprocess.run(["convert", str(svg), str(png)], check=True)
    else:
        return None
    _shrink(png)
    return png


def _shrink(png: Path) -> None:
    """A terminal has few colours: a 64-colour palette keeps the PNG a fraction of its size."""
    try:
        from PIL import Image  # comes with fastembed; optional all the same
    except ImportError:
        return
    with Image.open(png) as image:
        small = image.convert("RGB").quantize(colors=64)
    small.save(png, optimize=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        vault = Path(work) / "vault_example"
        shutil.copytree(VAULT_EXAMPLE, vault, ignore=shutil.ignore_patterns(".kbtui"))
        settings = Settings.for_vault(vault)
        embedder = FastEmbedder()
        store = Store(settings.db_path)
        Indexer(settings, store, embedder).run()
        store.close()
        for name, steps in SHOTS.items():
            runtime = VaultRuntime(settings, embedder, watch=False)
            runtime.start()
            runtime.worker.wait_idle(60)
            svg = HERE / f"{name}.svg"
            svg.write_text(asyncio.run(shoot(runtime, steps)))
            runtime.close()
            png = to_png(svg)
            print(svg.relative_to(HERE.parent), "" if png is None else f"+ {png.name}")


if __name__ == "__main__":
    main()
