"""The README's pictures: PNGs of the TUI snapshot tests' own SVGs.

    .venv/bin/python screenshots/make_screenshots.py

The SVGs are tests/__snapshots__/test_tui_snapshots/*.svg (and, for the editor, the conflict
view and the Review screen, test_tui_edit_snapshots/*.svg): the snapshot tests render them
from the current code on a copy of vault_example and fail when a fresh render differs, so
there is no second rendering path to fall behind. Each PNG records the sha256 of the SVG it
was made from; tests/test_docs.py fails when that SVG has changed since (then run this again,
after `pytest tests/test_tui_snapshots.py --snapshot-update` and a look at the SVGs).
Needs `rsvg-convert` (Debian: librsvg2-bin); Pillow (a fastembed dependency) shrinks the PNGs.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image
from PIL.PngImagePlugin import PngInfo

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SNAPSHOTS = REPO / "tests" / "__snapshots__" / "test_tui_snapshots"
SOURCE_KEY = "kbtui-source"  # PNG text chunk: "<svg path from the repo root> <sha256>"
# README picture -> the snapshot test whose SVG it shows
SHOTS = {
    "search": "test_search_results",
    "note": "test_note_view",
    "graph": "test_graph_neighbours",
    "path": "test_path_result",
    "merge": "test_merge_confirmation",
    "base": "test_base_table",
    "base-list": "test_base_list",
    "base-cards": "test_base_cards",
    "base-embed": "test_note_with_base_embeds",
    "base-block": "test_note_with_base_blocks",
    "base-list-indented": "test_base_list_indented",
    "dashboards": "test_note_with_query_blocks",
    "map": "test_graph_map_200x60",
    "map-small": "test_graph_map_80x24",
    "map-kepano": "test_graph_map_kepano",
    "overview": "test_graph_overview",
    "new-note": "test_new_note_with_template_picker",
    "history": "test_history_diff",
    "changes": "test_changes_screen",
    # the editor's and review's snapshots have a file of their own
    "editor": "../test_tui_edit_snapshots/test_editor_with_link_completion",
    "conflict": "../test_tui_edit_snapshots/test_conflict_view",
    "review": "../test_tui_edit_snapshots/test_review_screen",
}


def source_of(svg: Path) -> str:
    """What a PNG made from `svg` records: its path and the sha256 of its bytes."""
    digest = hashlib.sha256(svg.read_bytes()).hexdigest()
    return f"{svg.resolve().relative_to(REPO).as_posix()} {digest}"


def to_png(svg: Path, png: Path) -> None:
    """Rasterise with rsvg-convert (spaces kept as drawn), then a 64-colour palette: a
    terminal has few colours, so the PNG is a fraction of its size."""
    with tempfile.TemporaryDirectory() as work:
        raw = Path(work) / "raw.png"
        fixed = Path(work) / "in.svg"
        fixed.write_text(svg.read_text().replace("<svg ", '<svg xml:space="preserve" ', 1))
        subprocess.run(["rsvg-convert", "-z", "0.75", "-o", str(raw), str(fixed)], check=True)
        with Image.open(raw) as image:
            small = image.convert("RGB").quantize(colors=64)
    info = PngInfo()
    info.add_text(SOURCE_KEY, source_of(svg))
    small.save(png, optimize=True, pnginfo=info)


def main() -> None:
    if shutil.which("rsvg-convert") is None:
        sys.exit("rsvg-convert not found: apt-get install librsvg2-bin")
    for name, test in SHOTS.items():
        png = HERE / f"{name}.png"
        to_png(SNAPSHOTS / f"{test}.svg", png)
        print(png.relative_to(REPO), "<-", test)


if __name__ == "__main__":
    main()
