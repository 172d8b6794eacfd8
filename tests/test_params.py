"""Tool parameters: one declaration gives the JSON schema and the validation."""

from __future__ import annotations

import pytest

from kbtui.tools.contracts.kb import KB_TOOLS
from kbtui.tools.envelope import ValidationError, failure, guarded, ok


def test_schemas_carry_the_specs_defaults_and_ranges() -> None:
    search = KB_TOOLS["kb_search"].input_schema()
    assert search["required"] == ["query"] and search["additionalProperties"] is False
    query = search["properties"]["query"]
    assert (query["minLength"], query["maxLength"]) == (3, 500)
    top_k = search["properties"]["top_k"]
    assert (top_k["minimum"], top_k["maximum"]) == (1, 10)
    get = KB_TOOLS["kb_get"].input_schema()["properties"]["id"]
    assert get["pattern"] == "^[a-z_]+:[a-z0-9_]+$" and (get["minLength"], get["maxLength"]) == (
        3,
        100,
    )
    chunk = KB_TOOLS["get_chunk"].input_schema()["properties"]
    assert chunk["include_related"]["default"] is True
    assert (chunk["related_limit"]["default"], chunk["related_limit"]["minimum"]) == (5, 1)
    assert chunk["related_limit"]["maximum"] == 20
    imp = KB_TOOLS["knowledge_import"].input_schema()
    assert imp["required"] == ["title", "content"]
    size = imp["properties"]["chunk_size"]
    assert (size["default"], size["minimum"], size["maximum"]) == (500, 100, 10000)
    assert imp["properties"]["chunk_overlap"]["default"] == 50
    assert imp["properties"]["source"]["type"] == ["string", "null"]
    query_schema = KB_TOOLS["knowledge_query"].input_schema()["properties"]
    assert query_schema["top_k"]["default"] == 5
    assert query_schema["include_document_info"]["default"] is True


def test_every_description_is_written_for_an_assistant() -> None:
    for spec in KB_TOOLS.values():
        assert len(spec.description) > 80
        for name, schema in spec.input_schema()["properties"].items():
            assert schema["description"], (spec.name, name)


def test_envelopes_have_every_field_the_specs_name() -> None:
    success = ok(results=[])
    assert success == {"ok": True, "success": True, "results": []}
    err = failure(
        ValidationError("chunk_size must be between 100 and 10000", "chunk_size"), {"entity": None}
    )
    assert err["ok"] is False and err["success"] is False and err["entity"] is None
    assert err["error"]["type"] == "VALIDATION" and err["error"]["retryable"] is False
    assert err["error_type"] == "ValidationError"
    assert err["message"] == "chunk_size must be between 100 and 10000"


def test_a_bug_becomes_an_internal_error_not_a_traceback() -> None:
    def broken() -> dict[str, object]:
        raise ZeroDivisionError("boom")

    answer = guarded(broken, "kb_get")
    assert answer["error_type"] == "InternalError" and answer["error"]["type"] == "INTERNAL"
    assert "ZeroDivisionError" in answer["message"]


@pytest.mark.parametrize("value", [5.0, 5])
def test_integral_floats_count_as_integers(value: float) -> None:
    from kbtui.tools.params import validate

    params = KB_TOOLS["kb_search"].params
    assert validate(params, {"query": "abc", "top_k": value})["top_k"] == 5
