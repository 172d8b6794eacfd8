"""Property-based fuzzing of every MCP tool through the real protocol: `kbtui mcp` as a
subprocess (real model, real DuckDB), the SDK's ClientSession over stdio_client.

Arguments come from each tool's own input schema, mixed with wrong types, out-of-range
numbers, unknown keys and hostile strings (`../../x`, absolute paths, NUL bytes, 100k
characters). Whatever arrives, the server answers with the structured envelope (never an
INTERNAL error, never a dead server) and nothing is written outside the vault.

KBTUI_FUZZ_EXAMPLES sets the examples per tool (default 8; the long run uses thousands).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from kbtui.tools.registry import PUBLISHED
from tests.conftest import REPO, VAULT_EXAMPLE
from tests.test_mcp import Mcp, server_args

sys.path.insert(0, str(REPO / "bench"))
from crashkit import vault_digest

EXAMPLES = int(os.environ.get("KBTUI_FUZZ_EXAMPLES", "8"))
MARK = "fuzzescape"  # in every path-like string: a file by this name anywhere is an escape
HOSTILE = (
    f"../../{MARK}", f"../../../{MARK}/x", f"/tmp/{MARK}", f"/{MARK}", f"~/{MARK}",
    f"imports/../../{MARK}", f"..\\..\\{MARK}", f"C:\\{MARK}", f"%2e%2e%2f{MARK}",
    f"{MARK}\x00.md", "\x00", "..", ".", "", " ", ".kbtui/index.duckdb", ".kbtui",
    f"[[../../{MARK}]]", f"person:../../{MARK}", f"\n---\nid: x:{MARK}\n---\n", "CON",
    "💥" * 300, "a" * 100_000,
)  # fmt: skip
IDS = (
    "person:andrei_clodius", "project:vector_watch_project", "person:sofia_marquez",
    "person:andrei_clodius_chunk_0", "technology:zephyr_rtos",
)  # fmt: skip
BIG_TEXT_FIELDS = {"content", "text", "memoryContent", "taskContent", "description"}
# Any character JSON can carry (a lone surrogate cannot: the SDK client fails to encode it,
# and closes its own session), and those that break notes and links, often.
MARKDOWN = st.characters(codec="utf-8") | st.sampled_from("[]|#:-\n`'\"{}*>")
junk = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30), st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)  # fmt: skip


def strings(field: str, limit: int | None = None) -> st.SearchStrategy[Any]:
    """Text, hostile strings and real ids; within `limit` characters when one is given.
    Id fields mostly get real ids, so calls get past "not found" to the code that writes."""
    size = 3000 if field in BIG_TEXT_FIELDS else 120
    pool = [s for s in HOSTILE if len(s) < 1000] if field in BIG_TEXT_FIELDS else list(HOSTILE)
    pool += IDS
    if limit is not None:
        size, pool = min(size, limit), [s for s in pool if len(s) <= limit]
    options = st.one_of(st.text(MARKDOWN, max_size=size), st.sampled_from(pool))
    if field.lower().endswith(("id", "ids")):
        return st.one_of(st.sampled_from(IDS), st.sampled_from(IDS), options)
    return options


def value(field: str, schema: dict[str, Any], valid: bool) -> st.SearchStrategy[Any]:
    """What the schema allows (so the call reaches the tool) or, unless `valid`, anything:
    wrong types and out-of-range numbers too."""
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    slack = 0 if valid else 3
    options: list[st.SearchStrategy[Any]] = []
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    for kind in kinds:
        low, high = schema.get("minimum"), schema.get("maximum")
        if kind == "string" and "enum" not in schema:
            options.append(strings(field, schema.get("maxLength") if valid else None))
        elif kind == "integer":
            lo = int(low) - slack if low is not None else -5
            hi = int(high) + slack if high is not None else lo + 2000
            options.append(st.integers(lo, hi))
        elif kind == "number":
            options.append(st.floats(0.0, 1.0) if valid else st.floats(-1.0, 2.0))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "array":
            options.append(st.lists(strings(field, 100 if valid else None), max_size=4))
        elif kind == "object":
            keys = st.sampled_from(("type", "category", "voice", MARK))
            options.append(st.dictionaries(keys, strings(field, 50) | st.booleans(), max_size=3))
        elif kind == "null":
            options.append(st.none())
    if valid and options:
        return st.one_of(*options)
    return st.one_of(*options, junk) if options else junk


def arguments(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Half the time arguments the schema accepts (hostile strings included), half the
    time anything at all, unknown keys included."""
    schema = PUBLISHED[name].input_schema()
    props: dict[str, Any] = schema["properties"]

    def build(valid: bool) -> st.SearchStrategy[dict[str, Any]]:
        fields = {f: value(f, s, valid) for f, s in props.items()}
        if not valid:
            return st.fixed_dictionaries({}, optional={**fields, MARK: strings(MARK)})
        # Every field given: the schemas do not say which the tools need (the specs don't).
        return st.fixed_dictionaries(fields)

    return st.one_of(build(True), build(False))


class Outside:
    """Everything a stray write could reach: the test's folder, the server's cwd, /tmp, /."""

    def __init__(self, root: Path, vault: Path) -> None:
        self.root, self.vault = root, vault
        self.before = self.listing()

    def listing(self) -> set[str]:
        inside = {p.relative_to(self.root).as_posix() for p in self.root.rglob("*")
                  if self.vault not in p.parents and p != self.vault}  # fmt: skip
        for folder in (Path("/tmp"), Path("/"), Path.home()):
            inside |= {f"{folder}/{n}" for n in os.listdir(folder) if MARK in n}
        return inside


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Mcp, Outside, Counter[str]]]:
    root = tmp_path_factory.mktemp("fuzz")
    vault = root / "vault"
    for folder in ("people", "projects", "tech"):
        shutil.copytree(VAULT_EXAMPLE / folder, vault / folder)
    cwd = root / "cwd"
    cwd.mkdir()
    outside = Outside(root, vault)
    params = StdioServerParameters(command=sys.executable, args=server_args(vault), cwd=cwd)
    tally: Counter[str] = Counter()
    with open(root / "server.log", "w") as errlog, start_blocking_portal() as portal:
        outside.before.add("server.log")

        @asynccontextmanager
        async def session() -> AsyncIterator[ClientSession]:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                yield client

        with portal.wrap_async_context_manager(session()) as client:
            yield Mcp(portal, client, vault), outside, tally
    print(f"\nMCP fuzz: {sum(tally.values())} calls, {dict(sorted(tally.items()))}")
    assert "Traceback" not in (root / "server.log").read_text()


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_any_arguments_get_a_structured_answer(
    fuzz: tuple[Mcp, Outside, Counter[str]], name: str
) -> None:
    mcp, outside, tally = fuzz

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(args=arguments(name))
    def one(args: dict[str, Any]) -> None:
        before = vault_digest(mcp.vault)
        answer = mcp.call(name, args)  # asserts the envelope's shape and its text copy
        kind = "ok" if answer["ok"] else answer["error"]["type"]
        tally[kind] += 1
        assert kind in ("ok", "VALIDATION", "PERMANENT", "TRANSIENT"), (name, args, answer)
        if not answer["ok"]:  # a refused call leaves every note as it was
            assert vault_digest(mcp.vault) == before, (name, args, answer)
        mcp.portal.call(mcp.session.send_ping)  # still alive

    one()
    assert outside.listing() == outside.before, "something was written outside the vault"


@settings(max_examples=EXAMPLES * 3, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(name=st.text(max_size=40) | st.sampled_from(("app_reindex", "app_facets", "")),
       uri=st.sampled_from(("kbtui://note/", "kbtui://status", "file:///etc/passwd"))
       .flatmap(lambda p: st.sampled_from(HOSTILE[:20]).map(lambda s: p + s)))  # fmt: skip
def test_unknown_tools_and_resources_are_refused_cleanly(
    fuzz: tuple[Mcp, Outside, Counter[str]], name: str, uri: str
) -> None:
    mcp, _, tally = fuzz
    if name not in PUBLISHED:
        answer = mcp.call(name, {"x": 1})
        assert answer["ok"] is False and answer["error"]["type"] == "VALIDATION"
        tally["unknown tool"] += 1
    try:
        mcp.portal.call(mcp.session.read_resource, uri)
    except MCPError as exc:
        assert str(exc)
    except Exception as exc:  # the SDK refusing a URI client-side is no server failure
        assert "uri" in str(exc).lower() or "url" in str(exc).lower(), exc
    tally["resource"] += 1
    mcp.portal.call(mcp.session.send_ping)


REL_TYPES = PUBLISHED["kg_create_relationship"].input_schema()["properties"]["type"]["enum"]


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(
    source=st.sampled_from(IDS[:3]),
    target=st.sampled_from(("technology:zephyr_rtos", "project:vector_watch_project")),
    kind=st.sampled_from(REL_TYPES),
    label=st.text(MARKDOWN, max_size=40),
    name=st.text(MARKDOWN, min_size=1, max_size=40),
)
def test_writes_with_markdown_in_their_text_are_whole_or_not_made(
    fuzz: tuple[Mcp, Outside, Counter[str]], source: str, target: str, kind: str, label: str,
    name: str,
) -> None:  # fmt: skip
    """Valid ids, any text in the label and the name: the call succeeds and the note still
    parses with the relation in it, or it fails and no file changed."""
    mcp, _, tally = fuzz
    for tool, args in (
        ("kg_create_relationship",
         {"fromEntityId": source, "toEntityId": target, "type": kind, "label": label}),
        ("kg_create_entity", {"name": name, "type": "concept", "description": label}),
    ):  # fmt: skip
        before = vault_digest(mcp.vault)
        answer = mcp.call(tool, args)
        tally[f"{tool} {'ok' if answer['ok'] else answer['error']['type']}"] += 1
        if not answer["ok"]:
            assert answer["error"]["type"] in ("VALIDATION", "PERMANENT"), answer
            assert vault_digest(mcp.vault) == before, (tool, args, answer)
        elif tool == "kg_create_relationship":
            found = mcp.call("kg_get_neighbors", {"entityId": source, "direction": "outgoing"})
            assert answer["relationship"]["id"] in {r["id"] for r in found["relationships"]}
