"""The MCP tools reference (docs/tools.md), rendered from the tool table so it cannot drift.

It is made from exactly what `tools/list` publishes (name, description, JSON input schema);
tests/test_docs.py renders it again and fails, naming the tool, when the page differs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from kbtui.tools.catalog import PUBLISHED
from kbtui.tools.contracts.kb import ToolSpec

REGENERATE = ".venv/bin/python docs/make_tools_page.py"
PAGE = "docs/tools.md"
_SECTION = "\n## `"
# Schema keys a row shows; any other key is a contract this page would hide, so it raises.
_SHOWN = {"type", "description", "default", "minimum", "maximum", "minLength", "maxLength"}
_SHOWN |= {"pattern", "enum", "maxItems", "items", "properties", "additionalProperties"}

_HEAD = f"""# MCP tools reference

<!-- Generated from kbtui/tools (the tool table) by `{REGENERATE}`: do not edit by hand. -->

What `kbtui mcp` offers an assistant, as `tools/list` publishes it: each tool's description
(what the assistant reads) and its arguments with their types, defaults and allowed values.
The CLI and the TUI call the same tools through the same checks (`kbtui call NAME '{{...}}'`
runs any of them). Every answer is one envelope (`ok`, and `error` on failure): see
[mcp.md](mcp.md). An argument not listed is refused, never ignored.
"""


def render_page(tools: Mapping[str, ToolSpec] = PUBLISHED) -> str:
    """The whole page: a header, an index, then one section per tool in table order."""
    index = "\n".join(f"- [`{name}`](#{name})" for name in tools)
    body = "".join(render_tool(spec) for spec in tools.values())
    return f"{_HEAD}\n{len(tools)} tools:\n\n{index}\n{body}"


def render_tool(spec: ToolSpec) -> str:
    """One tool's section: its description and a table of its arguments."""
    schema = spec.input_schema()
    required = set(schema["required"])
    rows = list(_rows(spec.name, schema["properties"], "", required))
    table = "| argument | type | default | allowed | what it is |\n|---|---|---|---|---|\n"
    table += "\n".join(rows) if rows else "| (none) | | | | |"
    description = " ".join(spec.description.split())
    return f"{_SECTION}{spec.name}`\n\n{description}\n\n{effects(spec)}\n\n{table}\n"


def effects(spec: ToolSpec) -> str:
    """What the tool does to the vault, in words, from the annotations it publishes."""
    e = spec.effects
    if e.read_only:
        return "*Reads only.*"
    text = "Writes; may replace or remove text" if e.destructive else "Writes; takes no text away"
    if e.read_when is not None:
        name, values = e.read_when
        reads = " or ".join(f"`{_json(v)}`" for v in values)
        text += f"; only reads with `{name}` {reads}"
    if e.idempotent:
        text += "; a repeat changes nothing more"
    return f"*{text}.*"


def sections(page: str) -> dict[str, str]:
    """A page's tool sections by tool name (what the test compares, tool by tool)."""
    out: dict[str, str] = {}
    for part in page.split(_SECTION)[1:]:
        name = part.split("`", 1)[0]
        out[name] = _SECTION + part
    return out


def _rows(tool: str, props: Mapping[str, Any], prefix: str, required: set[str]) -> Iterator[str]:
    for name, prop in props.items():
        unknown = set(prop) - _SHOWN
        if unknown:
            raise ValueError(f"{tool}.{prefix}{name}: schema keys {sorted(unknown)} not rendered")
        kind = _type(prop)
        if name in required:
            kind += ", required"
        default = f"`{_json(prop['default'])}`" if "default" in prop else ""
        yield (
            f"| `{prefix}{name}` | {kind} | {default} | {_allowed(prop)} "
            f"| {_cell(prop.get('description') or prop.get('items', {}).get('description', ''))} |"
        )
        if "properties" in prop:
            yield from _rows(tool, prop["properties"], f"{prefix}{name}.", set())
        if "properties" in prop.get("items", {}):  # a list of objects: their fields
            yield from _rows(tool, prop["items"]["properties"], f"{prefix}{name}[].", set())


def _type(prop: Mapping[str, Any]) -> str:
    kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
    text = " or ".join(kinds)
    if "items" in prop:
        text = text.replace("array", f"array of {_type(prop['items'])}")
    return text


def _allowed(prop: Mapping[str, Any]) -> str:
    parts = []
    lo, hi = prop.get("minLength"), prop.get("maxLength")
    if lo is not None or hi is not None:
        parts.append(_span(lo, hi, "characters"))
    lo, hi = prop.get("minimum"), prop.get("maximum")
    if lo is not None or hi is not None:
        parts.append(_span(lo, hi, ""))
    if "pattern" in prop:
        parts.append(f"`{prop['pattern']}`")
    if "enum" in prop:
        parts.append(" / ".join(f"`{v}`" for v in prop["enum"]))
    if "maxItems" in prop:
        parts.append(f"at most {prop['maxItems']} items")
    if "items" in prop:
        inner = _allowed(prop["items"])
        if inner:
            parts.append(f"each: {inner}")
    if prop.get("additionalProperties") is False:
        parts.append("only the fields below")
    elif prop.get("type") == "object":
        parts.append("any fields")
    return _cell("; ".join(parts))


def _span(lo: Any, hi: Any, unit: str) -> str:
    if lo is not None and hi is not None:
        text = f"{_json(lo)}-{_json(hi)}"
    else:
        text = f"at least {_json(lo)}" if lo is not None else f"at most {_json(hi)}"
    return f"{text} {unit}".strip()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")
