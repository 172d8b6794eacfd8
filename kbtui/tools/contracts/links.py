"""Contracts of the link tools (issue 20), in spec 004's conventions: camelCase arguments,
`success`/`message`, a `count`, result fields empty on failure."""

from __future__ import annotations

from kbtui.tools.contracts.kb import ENTITY_ID_PATTERN, READ, Effects, ToolSpec
from kbtui.tools.params import Param


def _entity_id(description: str, required: bool = True) -> Param:
    return Param(
        "string", description, required, min_length=3, max_length=100, pattern=ENTITY_ID_PATTERN
    )


LINK_TOOLS = {
    t.name: t
    for t in (
        ToolSpec(
            "kg_suggest_links",
            "Unlinked mentions: where a note names an entity (title or alias, whole words, any "
            "case) without linking it, outside code, frontmatter, links and URLs. With "
            "entityId: each mention of it; without: the best across the vault (one per pair "
            "of notes not yet linked).",
            {
                "entityId": _entity_id("Only mentions of this entity.", required=False),
                "limit": Param("integer", "Max suggestions.", default=20, minimum=1, maximum=100),
                "offset": Param(
                    "integer", "Skip this many (page with totalFound).", default=0, minimum=0
                ),
            },
            {"suggestions": [], "count": 0, "totalFound": 0},
            effects=READ,
        ),
        ToolSpec(
            "kg_rename_entity",
            "Rename or move an entity's note; every link to it (body and frontmatter, any "
            "form: [[Old|label]], [[Old#Heading]], ![[Old]], paths, other case) is "
            "rewritten. All files change or none; dryRun shows the changes. A name another "
            "note answers to is refused unless force; `retargeted` lists links that would "
            "change target.",
            {
                "entityId": _entity_id("The entity to rename, e.g. person:ines_duarte."),
                "newName": Param(
                    "string",
                    "New file name without .md; a path (folder/name) moves the note.",
                    True,
                    min_length=1,
                    max_length=300,
                ),
                "dryRun": Param("boolean", "List the changes; write nothing.", default=False),
                "force": Param("boolean", "Take a name another note answers to.", default=False),
            },
            {
                "entity": None,
                "oldPath": None,
                "newPath": None,
                "filesChanged": [],
                "linksRewritten": 0,
                "retargeted": [],
            },
            effects=Effects(read_when=("dryRun", (True,)), scoped=True),
        ),
    )
}
LINK_MENTION = ToolSpec(
    "app_link_mention",
    "Link one unlinked mention (a kg_suggest_links suggestion) as [[Target|text]].",
    {
        "sourceEntityId": _entity_id("The note holding the mention."),
        "targetEntityId": _entity_id("The entity it names."),
        "text": Param("string", "The words as written.", True, min_length=1, max_length=300),
        "line": Param("integer", "1-based line.", True, minimum=1),
        "column": Param("integer", "1-based column.", True, minimum=1),
    },
    {"filePath": None},
    effects=Effects(scoped=True),
)
NOTE_MENTIONS = ToolSpec(
    "app_note_mentions",
    "Unlinked mentions both ways for one note: of it elsewhere, and of others in it.",
    {
        "entityId": _entity_id("The note."),
        "limit": Param("integer", "Max per direction.", default=50, minimum=1, maximum=100),
    },
    {"incoming": [], "outgoing": []},
)
