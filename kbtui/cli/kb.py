"""CLI commands for the kb tools: each builds the tool's arguments, calls the query layer and
prints the answer for people, or with --json exactly the tool's response."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from kbtui.cli.common import (
    emit,
    err,
    escape,
    json_option,
    opened_vault,
    out,
    piped,
    plural,
    vault_option,
)

# Rich's Markdown, Table and Text are imported inside the commands that print them: loading
# this module (every `kbtui` start, `--version` included) stays cheap.


@click.command()
@vault_option
@click.argument("query")
@click.option("--type", "type_", help="Only notes of this type (person, project, ...).")
@click.option("--tag", help="Only notes with this tag (nested tags included).")
@click.option("--folder", help="Only notes under this folder.")
@click.option("--top-k", default=5, show_default=True, type=int, help="1-10 notes.")
@click.option("--voice", is_flag=True, help="Voice mode: at most 3 results.")
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "vector", "keyword"]),
    default="hybrid",
    show_default=True,
)
@click.option("--ids", is_flag=True, help="Show each note's id (for kbtui get).")
@json_option
def search(
    vault: str | None,
    query: str,
    type_: str | None,
    tag: str | None,
    folder: str | None,
    top_k: int,
    voice: bool,
    mode: str,
    ids: bool,
    as_json: bool,
) -> None:
    """kb_search: hybrid (meaning + keyword) search, one result per note."""
    filters = {k: v for k, v in (("type", type_), ("tag", tag), ("folder", folder)) if v}
    args: dict[str, Any] = {"query": query, "top_k": top_k, "filters": filters, "mode": mode}
    if voice:
        args["capabilities"] = {"voice": True}
    with opened_vault(vault, need_model=mode != "keyword") as kb:
        response = kb.call("app_search", args)  # kb_search, and two ideographs are a word
    shown = emit(response, as_json)
    exit_if_never_indexed(response, as_json)
    if not shown:
        return
    if not response["results"]:
        out().print("No results." + (f" {response['message']}" if response.get("message") else ""))
        return
    from kbtui.cli.results import print_results

    print_results(out(), response["results"], ids)


@click.command()
@vault_option
@click.argument("entity_id")
@json_option
def get(vault: str | None, entity_id: str, as_json: bool) -> None:
    """kb_get: a whole note by its entity id (type:name)."""
    with opened_vault(vault, need_model=False) as kb:
        response = kb.call("kb_get", {"id": entity_id})
    if not emit(response, as_json):
        return
    from rich.markdown import Markdown

    meta = response["metadata"]
    out().print(
        f"[bold]{escape(response['title'])}[/]  [dim]{escape(response['id'])} · "
        f"{escape(meta['file_path'])} · {plural(response['chunks_count'], 'chunk')}[/]"
    )
    if piped():  # the note as written: a pipe wants its lines, not a terminal rendering
        click.echo(response["content"])
    else:
        out().print(Markdown(response["content"]))


@click.command()
@vault_option
@click.argument("chunk_id")
@click.option("--no-related", is_flag=True, help="Leave out related chunks.")
@click.option("--related-limit", default=5, show_default=True, type=int, help="1-20.")
@click.option("--exclude-same-note", is_flag=True, help="Related chunks from other notes only.")
@json_option
def chunk(
    vault: str | None,
    chunk_id: str,
    no_related: bool,
    related_limit: int,
    exclude_same_note: bool,
    as_json: bool,
) -> None:
    """get_chunk: a chunk with knowledge card, cluster, URLs and related chunks."""
    args = {
        "chunk_id": chunk_id,
        "include_related": not no_related,
        "related_limit": related_limit,
        "exclude_same_note": exclude_same_note,
    }
    with opened_vault(vault) as kb:
        response = kb.call("get_chunk", args)
    if not emit(response, as_json):
        return
    from rich.text import Text

    out().print(
        f"[bold]{escape(response['title'])}[/]  "
        f"[dim]{escape(response['chunk_id'])} ({response['chunk_info']})[/]"
    )
    out().print(Text(response["content"]))
    card = response["knowledge_card"]
    out().print(f"\n[bold]Summary[/] [dim]({card['source']})[/] ", Text(card["summary"]))
    for point in card["takeaways"]:
        out().print("  •", Text(point))
    if response["cluster"]:
        c = response["cluster"]
        out().print(
            f"[bold]Cluster[/] {c['cluster_id'][0]}: ",
            Text(f"{c['cluster_name']} — {c['description']}"),
        )
    for r in response["related_chunks"]:
        out().print(f"  {r['similarity_score']:.2f}", Text(f"{r['chunk_id']}  {r['snippet']}"))
    out().print(Text(response["obsidian_url"], style="dim"))


@click.command("import")
@vault_option
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--title", required=True, help="Document title.")
@click.option("--source", help="Source URL or file path.")
@click.option("--category", help="Classification category.")
@click.option("--chunk-size", default=500, show_default=True, type=int, help="100-10000.")
@click.option("--chunk-overlap", default=50, show_default=True, type=int)
@click.option("--metadata", default="{}", help="Extra metadata as a JSON object.")
@json_option
def import_(
    vault: str | None,
    file: Any,
    title: str,
    source: str | None,
    category: str | None,
    chunk_size: int,
    chunk_overlap: int,
    metadata: str,
    as_json: bool,
) -> None:
    """knowledge_import: save FILE (or - for stdin) as a new note in the vault and index it."""
    try:
        meta = json.loads(metadata)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--metadata") from exc
    args = {
        "title": title,
        "content": file.read(),
        "source": source,
        "category": category,
        "chunk_size": chunk_size,
        "chunk_overlap": chunk_overlap,
        "metadata": meta,
    }
    with opened_vault(vault) as kb:
        response = kb.call("knowledge_import", args)
    if emit(response, as_json):
        out().print(
            f"Imported [bold]{escape(response['title'])}[/] as {escape(response['entity_id'])} "
            f"({plural(response['chunks_created'], 'chunk')}) -> {escape(response['file_path'])}"
        )


@click.command()
@vault_option
@click.argument("query")
@click.option("--top-k", default=5, show_default=True, type=int, help="1-50 chunks.")
@click.option("--category", help="Only documents of this category.")
@click.option("--document-id", help="Only this document (document_id or entity id).")
@click.option("--no-document-info", is_flag=True, help="Leave out document metadata.")
@json_option
def query(
    vault: str | None,
    query: str,
    top_k: int,
    category: str | None,
    document_id: str | None,
    no_document_info: bool,
    as_json: bool,
) -> None:
    """knowledge_query: the best matching chunks (passages), optionally within a document."""
    args = {
        "query": query,
        "top_k": top_k,
        "category": category,
        "document_id": document_id,
        "include_document_info": not no_document_info,
    }
    with opened_vault(vault) as kb:
        response = kb.call("knowledge_query", args)
    shown = emit(response, as_json)
    exit_if_never_indexed(response, as_json)
    if not shown:
        return
    from rich.text import Text

    if not response["results"]:
        out().print("No results.")
    for r in response["results"]:
        doc = r.get("document", {})
        title = doc.get("title", "")
        head = f"{escape(r['chunk_id'])}  [dim]{escape(title)}[/]"
        out().print(f"[bold]{r['similarity']:.2f}[/] {head}")
        out().print(Text(r["content"].strip()[:400]), "\n")


KB_COMMANDS = (search, get, chunk, import_, query)


def exit_if_never_indexed(response: dict[str, Any], as_json: bool) -> None:
    """As `kbtui get`: nothing found in a vault never indexed is an error that says how to
    index it (exit 1), not "No results." (or "no bases", "0 rows") with exit 0."""
    index = response.get("index") or {}
    found = response.get("results") or response.get("bases") or response.get("rows")
    found = found or response.get("blocks")
    if found or index.get("notes_indexed") != 0 or index.get("state") != "ready":
        return
    if not as_json:
        message = response.get("message", "the vault is not indexed")
        err().print(f"[red]error[/]: {escape(message)}")
    sys.exit(1)
