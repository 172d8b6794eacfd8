"""The graph map's tools: `app_graph_map` (the TUI's data) and `kg_graph_image` (an SVG)."""

from __future__ import annotations

from typing import Any

from kbtui.graphmap.model import Neighbourhood, hood_to_dict
from kbtui.tools.envelope import ok
from kbtui.tools.graph.map import group_map, neighbourhood, overview
from kbtui.tools.parts import VaultParts


def map_data(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """app_graph_map: centre -> neighbourhood, group -> its members, neither -> overview."""
    hood = _hood(parts, args.get("centre"), args.get("group"), args)
    return ok(map=hood_to_dict(hood), message=_count(hood))


def graph_image(parts: VaultParts, args: dict[str, Any]) -> dict[str, Any]:
    """kg_graph_image: the same layout the terminal draws, as a standalone SVG. The layout
    (igraph, numpy) and the SVG writer (xml.sax, which loads urllib.request) are imported here:
    every other command of a fresh process starts without them (tests/test_cli_imports.py)."""
    from kbtui.graphmap.layout import layout
    from kbtui.graphmap.svg import to_svg

    types = [args["type"]] if args.get("type") else None
    hood = _hood(parts, args.get("entityId"), None, {**args, "types": types})
    title = svg_title(hood)
    svg = to_svg(layout(hood), title=title)
    return ok(svg=svg, nodeCount=len(hood.nodes), edgeCount=len(hood.edges), message=title)


def _hood(
    parts: VaultParts, centre: str | None, group: str | None, args: dict[str, Any]
) -> Neighbourhood:
    store, cap = parts.store, int(args.get("maxNodes") or 60)
    if centre:
        depth = int(args.get("depth") or 1)
        return neighbourhood(store, centre, depth=depth, types=args.get("types"), max_nodes=cap)
    if group:
        return group_map(store, group, max_nodes=cap)
    return overview(store, args.get("types"))


def svg_title(hood: Neighbourhood) -> str:
    if hood.centre is None:
        return f"Vault overview: {_count(hood)}"
    centre = hood.node(hood.centre)
    return f"{centre.label if centre else hood.centre}: {_count(hood)}"


def _count(hood: Neighbourhood) -> str:
    return f"{len(hood.nodes)} nodes, {len(hood.edges)} links"
