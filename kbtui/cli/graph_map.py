"""`kbtui graph`: the graph map in the terminal, or as an SVG (kg_graph_image) to share.

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
    edge_labels: bool,
) -> None:
    """The graph map of NOTE (a path, name or id) to --depth hops, or the vault's overview;
    drawn in the terminal, or written as an SVG picture with --svg FILE."""
    args: dict[str, Any] = {"depth": depth, "maxNodes": max_nodes}
    with opened_vault(vault, need_model=False) as kb:
        if note:
            args["entityId" if svg_file else "centre"] = resolve(kb, note)
        if svg_file:
            if len(types) > 1:
                raise click.ClickException("--svg takes one --type")
            if types:
                args["type"] = types[0]
            response = kb.call("kg_graph_image", args)
        else:
            if types:
                args["types"] = list(types)
            response = kb.call("app_graph_map", args)
    emit(response, as_json=False)
    if svg_file:
        svg_file.write_text(response["svg"], encoding="utf-8")
        out().print(f"{response['message']} -> {svg_file}")
        return
    _print_map(response)


def _print_map(response: dict[str, Any]) -> None:
    from kbtui.graphmap.canvas import draw
    from kbtui.graphmap.layout import layout
    from kbtui.graphmap.model import hood_from_dict

    hood = hood_from_dict(response["map"])
    console = out()
    width = min(console.width, 200)
    height = max(12, min(width * 3 // 10, (console.height or 24) - 2))
    frame = draw(layout(hood), width, height, selected=hood.centre)
    for line in frame.lines:
        console.print(line, crop=True, soft_wrap=False)
    shown = len(frame.boxes)
    note = (
        f" ({len(hood.nodes) - shown} left out: widen the terminal)"
        if shown < len(hood.nodes)
        else ""
    )
    console.print(f"{response['message']}{note}")


GRAPH_MAP_COMMANDS = (graph,)
