"""`kbtui graph`: the graph map in the terminal, or as an SVG (kg_graph_image) or PNG to share.

Without NOTE: the vault's overview (one node per entity type, sized by notes). Both go through
the tools (app_graph_map, kg_graph_image), so a running TUI or MCP server answers them too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kbtui.cli.common import emit, opened_vault, out, vault_option
from kbtui.cli.graph import resolve


@click.command()
@vault_option
@click.argument("note", required=False)
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 3), help="Hops.")
@click.option("--type", "types", multiple=True, help="Only neighbours of this type (repeatable).")
@click.option("--max-nodes", default=60, show_default=True, type=click.IntRange(2, 200))
@click.option("--svg", "svg_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--png", "png_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--edge-labels", is_flag=True, help="Print relationship names on the edges (terminal)."
)
def graph(
    vault: str | None,
    note: str | None,
    depth: int,
    types: tuple[str, ...],
    max_nodes: int,
    svg_file: Path | None,
    png_file: Path | None,
    edge_labels: bool,
) -> None:
    """The graph map of NOTE (a path, name or id) to --depth hops, or the vault's overview;
    drawn in the terminal, or written as a picture with --svg FILE and/or --png FILE."""
    args: dict[str, Any] = {"depth": depth, "maxNodes": max_nodes}
    picture = bool(svg_file or png_file)
    with opened_vault(vault, need_model=False) as kb:
        if note:
            args["entityId" if picture else "centre"] = resolve(kb, note)
        if picture:
            if len(types) > 1:
                raise click.ClickException("a picture takes one --type")
            if types:
                args["type"] = types[0]
            response = kb.call("kg_graph_image", args)
        else:
            if types:
                args["types"] = list(types)
            response = kb.call("app_graph_map", args)
    emit(response, as_json=False)
    if not picture:
        _print_map(response, edge_labels)
        return
    from rich.text import Text

    if png_file:
        png_file.write_bytes(_png(response["svg"]))
        out().print(Text(f"{response['message']} -> {png_file}"))
    if svg_file:
        svg_file.write_text(response["svg"], encoding="utf-8")
        out().print(Text(f"{response['message']} -> {svg_file}"))


def _png(svg: str) -> bytes:
    """The SVG rasterised by resvg with the bundled fonts (kbtui.graphmap.png)."""
    from kbtui.graphmap.png import to_png

    try:
        return to_png(svg)
    except ValueError as exc:
        raise click.ClickException(f"could not render the PNG: {exc}") from exc


def _print_map(response: dict[str, Any], edge_labels: bool) -> None:
    from rich.text import Text

    from kbtui.graphmap.canvas import draw
    from kbtui.graphmap.layout import layout
    from kbtui.graphmap.model import hood_from_dict

    hood = hood_from_dict(response["map"])
    console = out()
    width = min(console.width, 200)
    height = max(12, min(width * 3 // 10, (console.height or 24) - 2))
    frame = draw(layout(hood), width, height, selected=hood.centre, edge_labels=edge_labels)
    for line in frame.lines:
        console.print(line, crop=True, soft_wrap=False)
    shown = len(frame.boxes)
    note = (
        f" ({len(hood.nodes) - shown} left out: widen the terminal)"
        if shown < len(hood.nodes)
        else ""
    )
    console.print(Text(f"{response['message']}{note}"))


GRAPH_MAP_COMMANDS = (graph,)
