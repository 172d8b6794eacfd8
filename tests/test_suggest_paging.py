"""Issue 28 item 10: every link suggestion can be fetched, page by page (offset + totalFound),
over MCP's tool and the CLI alike; the pages together are the whole list, in one order."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kbtui.cli import main
from kbtui.runtime.runtime import VaultRuntime


def key(s: dict[str, object]) -> tuple[object, ...]:
    return (s["filePath"], s["line"], s["column"], s["targetEntityId"])


def test_pages_cover_every_suggestion_once(runtime: VaultRuntime) -> None:
    whole = runtime.call("kg_suggest_links", {"limit": 100})
    total = whole["totalFound"]
    assert whole["ok"] and total > 6 and whole["count"] == min(total, 100)
    pages: list[tuple[object, ...]] = []
    offset = 0
    while offset < total:
        page = runtime.call("kg_suggest_links", {"limit": 3, "offset": offset})
        assert page["ok"] and page["totalFound"] == total and page["offset"] == offset
        assert f"showing {offset + 1}-{offset + page['count']}" in page["message"]
        pages += [key(s) for s in page["suggestions"]]
        offset += 3
    assert pages == [key(s) for s in whole["suggestions"]][: len(pages)]
    assert len(pages) == total
    past = runtime.call("kg_suggest_links", {"limit": 3, "offset": total})
    assert past["ok"] and past["suggestions"] == [] and past["totalFound"] == total
    bad = runtime.call("kg_suggest_links", {"offset": -1})
    assert bad["ok"] is False and bad["error"]["field"] == "offset"


def test_cli_offset(tui_vault: Path) -> None:
    def run(*args: str) -> dict[str, object]:
        got = CliRunner().invoke(
            main, ["links", "suggest", *args, "--json", "--vault", str(tui_vault)]
        )
        assert got.exit_code == 0, got.output
        answer: dict[str, object] = json.loads(got.output)
        return answer

    first, second = run("--limit", "2"), run("--limit", "2", "--offset", "2")
    assert second["offset"] == 2 and second["totalFound"] == first["totalFound"]
    assert first["suggestions"] != second["suggestions"]
    both = run("--limit", "4")
    assert both["suggestions"] == [*first["suggestions"], *second["suggestions"]]  # type: ignore[misc]
