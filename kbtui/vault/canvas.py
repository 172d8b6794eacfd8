"""Canvases (`.canvas`, JSON Canvas 1.0) read as notes: each text card is a section of the
body headed by the card, so search finds it and names the canvas and the card; a file card is
a link from the canvas to its file (backlinks, graph); an edge between two file cards is a
relationship between their files, the way its arrows point, labelled with the edge's text
(its origin is the canvas).
A canvas that is not JSON Canvas is a broken note: reported and skipped."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from kbtui.models import Link, ParsedNote
from kbtui.vault.names import derive_type_and_name, page_title

CANVAS_SUFFIX = ".canvas"


def is_canvas(path: str) -> bool:
    return path.lower().endswith(CANVAS_SUFFIX)


class CanvasError(ValueError):
    """Not a JSON Canvas file; the message says why."""


def canvas_markdown(text: str) -> tuple[str, list[Link]]:
    """The canvas as markdown (one section per card, in reading order: top to bottom, left
    to right) and its links (file cards, labelled edges between file cards)."""
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise CanvasError(f"broken canvas: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise CanvasError("broken canvas: not a JSON object")
    nodes, edges = data.get("nodes", []), data.get("edges", [])
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise CanvasError("broken canvas: `nodes` and `edges` must be lists")
    for node in nodes:
        if not isinstance(node, dict) or not isinstance(node.get("id"), str):
            raise CanvasError("broken canvas: a node without an `id`")
    nodes = sorted(nodes, key=lambda n: (_num(n.get("y")), _num(n.get("x"))))
    files = {n["id"]: n["file"] for n in nodes if isinstance(n.get("file"), str)}
    parts: list[str] = []
    links: list[Link] = []
    for node in nodes:
        kind = node.get("type")
        if kind == "text" and isinstance(node.get("text"), str):
            body = re.sub(r"^(#{1,5}) ", r"#\1 ", node["text"], flags=re.M)  # under the card
            parts.append(f"# Card {node['id']}\n\n{body.strip()}")
        elif kind == "file" and node["id"] in files:
            target = files[node["id"]]
            sub = node.get("subpath") if isinstance(node.get("subpath"), str) else ""
            links.append(Link(target, "references", heading=sub.lstrip("#")))
            parts.append(f"# File {node['id']}\n\n{target}{sub}")
        elif kind == "link" and isinstance(node.get("url"), str):
            parts.append(f"# Link {node['id']}\n\n<{node['url']}>")
        elif kind == "group" and isinstance(node.get("label"), str):
            parts.append(f"# Group {node['id']}\n\n{node['label']}")
    for edge in edges:
        if not isinstance(edge, dict):
            raise CanvasError("broken canvas: an edge that is not an object")
        said = edge.get("label")
        label = said.strip() if isinstance(said, str) else ""
        a, b = files.get(edge.get("fromNode", "")), files.get(edge.get("toNode", ""))
        if a and b:  # card to card, the way the arrows point (the text is the label)
            links += [
                Link(dst, "related_to", label=label, form="bare", via=src)
                for src, dst in edge_directions(edge, a, b)
            ]
        if label and a and b:
            parts.append(f"# Edge {edge.get('id', '')}\n\n{a} → {label} → {b}")
    return "\n\n".join(parts) + "\n", links


def edge_directions(edge: dict[str, Any], a: str, b: str) -> list[tuple[str, str]]:
    """(from, to) of each way an edge between the cards of `a` and `b` points, as Obsidian
    draws it: JSON Canvas ends default to no arrow at `fromNode` and an arrow at `toNode`;
    arrows at both ends point both ways; a line with no arrow keeps the order drawn."""
    at_a = edge.get("fromEnd", "none") == "arrow"
    at_b = edge.get("toEnd", "arrow") == "arrow"
    if at_a and not at_b:
        return [(b, a)]
    if at_a and at_b:
        return [(a, b), (b, a)]
    return [(a, b)]


def parse_canvas(path: str, text: str, parse_markdown: Any) -> ParsedNote:
    """A ParsedNote of the canvas at `path`: entity `canvas:<name>`, the cards as its body."""
    markdown, links = canvas_markdown(text)
    note: ParsedNote = parse_markdown(path, markdown)
    _, name = derive_type_and_name(path, {})
    return replace(
        note,
        entity_id=f"canvas:{name}",
        type="canvas",
        name=name,
        title=page_title(path),
        links=tuple(links),
        tags=(),
        tasks=(),
    )


def _num(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


_FILE_FIELD = re.compile(r'"file"\s*:\s*("(?:[^"\\]|\\.)*")')


def rewrite_canvas_files(text: str, resolves: Any, new_path: str) -> tuple[str, int]:
    """`text` (a canvas) with every file card whose file `resolves` (given the card's path)
    pointing at `new_path`, as Obsidian updates a canvas when a note moves. Only the card's
    path string changes: the rest of the file is kept byte for byte. Returns the new text and
    how many cards changed."""
    edits: list[tuple[int, int, str]] = []
    for match in _FILE_FIELD.finditer(text):
        try:
            value = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(value, str) and value != new_path and resolves(value):
            edits.append((match.start(1), match.end(1), json.dumps(new_path, ensure_ascii=False)))
    for start, end, new in reversed(edits):
        text = text[:start] + new + text[end:]
    return text, len(edits)
