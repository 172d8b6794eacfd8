"""What the note view renders besides the body: wikilinks made followable, the metadata
panel, the knowledge card and cluster, and link lists grouped by entity."""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets.option_list import Option

from kbtui.cells import cell_safe
from kbtui.tui.widgets.results import entity_option
from kbtui.vault.hidden import visible_markdown

WIKILINK_SCHEME = "wikilink:"
# Code first, so a [[link]] inside a fence or a code span is left as written.
_LINKS = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)|(!?)\[\[([^\[\]\n]+?)\]\]", re.DOTALL)
# Index bookkeeping, and what the title line and the knowledge card already show.
HIDDEN_METADATA = frozenset(
    {"created_at", "indexed_at", "id", "title", "type", "file_path"}
    | {"summary", "takeaways", "description", "key_points"}
)


def note_markdown(markdown: str) -> str:
    """A note's markdown for the view: what Obsidian's reading view hides left out
    (`%%comments%%`, HTML markup), wikilinks made followable, text made width-safe."""
    return linkify(visible_markdown(markdown))


def linkify(markdown: str) -> str:
    """`[[target#heading|label]]` as a markdown link the Markdown widget can follow. Text is
    made width-safe (kbtui.cells); link targets stay as written, so they still resolve."""
    out: list[str] = []
    pos = 0
    for match in _LINKS.finditer(markdown):
        out.append(cell_safe(markdown[pos : match.start()]))
        pos = match.end()
        if match.group(1):
            out.append(cell_safe(match.group(1)))
            continue
        target, _, label = match.group(3).partition("|")
        name, _, heading = target.partition("#")
        shown = label.strip() or (f"{name.strip()} › {heading.strip()}" if heading else name)
        shown = cell_safe(shown.replace("[", "(").replace("]", ")"))
        wanted = name.strip()
        if wanted.lower().endswith(".base") and heading.strip():  # ![[X.base#View]]: that view
            wanted += "#" + heading.strip()
        href = (WIKILINK_SCHEME + wanted).replace(">", "")
        out.append(f"[{shown.strip()}](<{href}>)")
    out.append(cell_safe(markdown[pos:]))
    return "".join(out)


def metadata_table(metadata: dict[str, Any]) -> RenderableType:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in metadata.items():
        if value in (None, "", [], {}):
            continue
        if key in HIDDEN_METADATA and not (key == "type" and "[[" in _value_text(value)):
            continue  # `type: [[UI]]` is a link, not the note's type: a property to show
        table.add_row(
            Text(cell_safe(key)), Text(cell_safe(_value_text(value)))
        )  # values are not Rich markup
    return table


def _value_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def card_text(chunk: dict[str, Any]) -> Text:
    card = chunk.get("knowledge_card") or {}
    text = Text()
    if card.get("summary"):
        text.append(cell_safe(str(card["summary"])) + "\n")
    for point in card.get("takeaways") or []:
        text.append("• ", style="green")
        text.append(cell_safe(str(point)) + "\n")
    if card.get("source") and text.plain:  # a source alone ("(extracted)") says nothing
        text.append(f"({card['source']})", style="dim")
    return text if text.plain else Text("no card", style="dim")


def cluster_text(chunk: dict[str, Any]) -> Text:
    cluster = chunk.get("cluster") or {}
    if not cluster.get("cluster_name"):
        return Text("not clustered yet", style="dim")
    text = Text(str(cluster["cluster_name"]), style="bold")
    if cluster.get("description"):
        text.append("\n" + str(cluster["description"]), style="dim")
    return text


def link_options(envelope: dict[str, Any], entity_id: str) -> list[Option]:
    """One option per linked entity, its relationship types (and labels) after the name."""
    kinds: dict[str, list[str]] = {}
    for rel in envelope.get("relationships", []):
        other = rel["toEntityId"] if rel["fromEntityId"] == entity_id else rel["fromEntityId"]
        kind = rel["type"] + (f" ({rel['label']})" if rel.get("label") else "")
        if kind not in kinds.setdefault(other, []):
            kinds[other].append(kind)
    for other, found in kinds.items():
        typed = [k for k in found if not k.startswith("REFERENCES")]
        kinds[other] = typed or found  # a typed relation says more than the body link
    return [
        entity_option(e, ", ".join(kinds.get(e["id"], []))) for e in envelope.get("entities", [])
    ]


def related_options(chunk: dict[str, Any]) -> list[Option]:
    """Related chunks, one per note (its best), with the similarity and a snippet."""
    seen: set[str] = set()
    options = []
    for related in chunk.get("related_chunks") or []:
        entity = related.get("entity_id")
        if not entity or entity in seen:
            continue
        seen.add(entity)
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(cell_safe(str(related.get("title") or entity)), style="bold")
        line.append(f"  {float(related.get('similarity_score', 0)):.2f}", style="green")
        snippet = Text(cell_safe(" ".join(str(related.get("snippet", "")).split())), style="dim")
        snippet.truncate(160, overflow="ellipsis")
        options.append(Option(Text("\n").join([line, snippet]), id=entity))
    return options


def pdf_markdown(pages: list[dict[str, Any]], first: int | None, unreadable: Any) -> str:
    """A PDF's pages as markdown, page `first` (the search hit's) on top; each page's text
    as written (a fenced block would lose the wrapping, so markup characters are escaped)."""
    if not pages:
        return f"*No text to show: {unreadable or 'this PDF has none'}. Press `o` to open it.*"
    ordered = sorted(pages, key=lambda p: (p["page"] != first, p["page"]))
    parts = []
    for page in ordered:
        text = re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", str(page["text"]))
        parts.append(f"### p. {page['page']}\n\n" + text.replace("\n", "  \n"))
    return "\n\n".join(parts)
