"""What the kg_* tool tests share: an indexed knowledge base on the example vault (hash
embedder: these tests are about the graph) and the spec's failure shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store


def indexed_kb(settings: Settings) -> Iterator[KnowledgeBase]:
    base = KnowledgeBase(settings, Store(settings.db_path), HashEmbedder())
    base.indexer.run()
    yield base
    base.close()


def fails(response: dict[str, Any], error_type: str, **empty: Any) -> None:
    """A spec 004 failure: success and ok false, the error's type, a message, empty fields."""
    assert response["success"] is False and response["ok"] is False
    assert response["error_type"] == error_type and response["message"]
    for key, value in empty.items():
        assert response[key] == value, key


# spec 004's example of kg_extract_from_text, and what it must find
SPEC_TEXT = (
    "Sarah Chen from Google is leading the TensorFlow migration project. "
    "The team uses Python and Docker."
)
SPEC_ENTITIES = {
    ("Sarah Chen", "person"),
    ("Google", "organization"),
    ("TensorFlow migration", "project"),
    ("TensorFlow", "technology"),
    ("Python", "technology"),
    ("Docker", "technology"),
}
SPEC_RELATIONS = {
    ("Sarah Chen", "MEMBER_OF", "Google"),
    ("Sarah Chen", "WORKS_ON", "TensorFlow migration"),
    ("TensorFlow migration", "USES", "Python"),
    ("TensorFlow migration", "USES", "Docker"),
}
