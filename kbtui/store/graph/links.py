"""How links become relationships: the names a note is reached by, and the SQL that resolves
each link to one note the way Obsidian does.

A link's target matches an entity id, a vault path, the end of one, a file name, a title or
an alias, ignoring case (in that order of preference); when several notes share the name, the
one nearest the linking note wins (same folder first, then fewest folder steps apart), as in
Obsidian; a note at the root is reached by its name like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbtui.models import NoteWrite

# Frontmatter keys that name a spec relationship type; other link-bearing keys become
# RELATED_TO with the key as label, body links REFERENCES.
REL_TYPES = {
    "works_on": "WORKS_ON",
    "owns": "OWNS",
    "owner": "OWNS",
    "depends_on": "DEPENDS_ON",
    "related_to": "RELATED_TO",
    "member_of": "MEMBER_OF",
    "uses": "USES",
    "created": "CREATED",
    "modified": "MODIFIED",
    "references": "REFERENCES",
    "embeds": "REFERENCES",
    "blocks": "BLOCKS",
    "contradicts": "CONTRADICTS",
}
# Bump when a link turns into a relationship differently: an index opened by this kbtui
# derives its relationships again, once (2: a property's label is the property's name;
# 3: a path that ends the note's path reaches it; 4: link_dest, canvas edges card to card).
RELATION_RULE = "4"
# "suffix": a path that ends the note's path (`[[b/x]]` reaches a/b/x.md, as in Obsidian)
NAME_PRIORITY = {"id": 0, "path": 1, "suffix": 2, "stem": 3, "title": 4, "alias": 5}
_TYPE_CASE = (
    "CASE l.rel "
    + " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in REL_TYPES.items())
    + " ELSE 'RELATED_TO' END"
)
_LABEL_CASE = (
    "CASE WHEN l.rel IN ("
    + ", ".join(f"'{k}'" for k in REL_TYPES if k != "embeds")
    + ") THEN nullif(l.label, '') WHEN l.rel = 'embeds' THEN 'embeds' "
    "ELSE l.rel END"  # `related: [[X|Steph]]` is `related`; the link's own label is a display
)


def link_key(target: str) -> str:
    """How a link target is compared with entity names: case-folded, no `.md`, no slashes."""
    key = target.strip().lower()
    if key.endswith(".md"):
        key = key[:-3]
    return key.strip("/")


def note_keys(write: NoteWrite) -> list[tuple[str, str]]:
    """(key, kind) under which links can reach this note."""
    note = write.note
    # A note is linked without its suffix; a PDF or an image only with it (`[[paper.pdf]]`).
    markdown = note.path.lower().endswith((".md", ".markdown"))
    path = note.path.rsplit(".", 1)[0] if markdown else note.path
    keys = [(note.entity_id, "id"), (path.rsplit("/", 1)[-1], "stem")]
    if "/" in path:  # a note at the root is found by its name like any other: nearest first
        keys.insert(1, (path, "path"))
        parts = path.split("/")
        keys += [("/".join(parts[i:]), "suffix") for i in range(1, len(parts) - 1)]
    keys += [(note.title, "title")] + [(a, "alias") for a in note.aliases]
    return [(link_key(k), kind) for k, kind in keys if link_key(k)]


def link_rows(batch: Sequence[NoteWrite]) -> list[tuple[str, str, str, str, str, str, str, str]]:
    """The `links` rows of `batch`, in the table's column order (kbtui.store.graph.relink
    compares them with the rows a note had)."""
    return [
        (
            w.note.entity_id,
            lk.target,
            lk.rel,
            lk.heading,
            lk.label,
            link_key(lk.target),
            lk.form,
            link_key(lk.via) if lk.via else "",
        )
        for w in batch
        for lk in w.note.links
    ]


def _resolution(links_where: str, names: str, notes: str) -> tuple[str, str]:
    """The CTEs and the `l` subquery (every picked link with its `resolved` entity) of the one
    resolver; `names`/`notes` let a caller resolve against names a note does not have yet."""
    ctes = f"""
    scope AS (SELECT DISTINCT entity_id, key FROM links l WHERE {links_where}),
    best AS (SELECT key, min(priority) AS p,
                    arg_min(entity_id, (priority, entity_id)) AS entity_id
             FROM {names} WHERE key IN (SELECT key FROM scope) GROUP BY key),
    vias AS (  -- a canvas edge starts at its card's file (a vault path: one note)
        SELECT key, arg_min(entity_id, (priority, entity_id)) AS entity_id FROM {names}
        WHERE key IN (SELECT via FROM links l WHERE l.via <> '' AND {links_where})
        GROUP BY key),
    shared AS (SELECT e.key, b.p FROM {names} e
               JOIN best b ON b.key = e.key AND b.p = e.priority
               GROUP BY e.key, b.p HAVING count(DISTINCT e.entity_id) > 1),
    nearest AS (  -- a name several notes share: the one nearest the linking note
        SELECT l.entity_id AS source_id, l.key, arg_min(e.entity_id, (
                   {_folder_steps("sn.folder", "t.folder")}, e.entity_id)) AS entity_id
        FROM scope l
        JOIN shared s ON s.key = l.key
        JOIN {names} e ON e.key = l.key AND e.priority = s.p
        JOIN {notes} sn ON sn.entity_id = l.entity_id
        JOIN {notes} t ON t.entity_id = e.entity_id
        GROUP BY l.entity_id, l.key)"""
    resolved = f"""(SELECT l.*, coalesce(x.entity_id, b.entity_id) AS resolved,
                     CASE WHEN coalesce(l.via, '') = '' THEN l.entity_id ELSE v.entity_id END
                         AS source
              FROM links l
              JOIN best b ON b.key = l.key
              LEFT JOIN nearest x ON x.source_id = l.entity_id AND x.key = l.key
              LEFT JOIN vias v ON v.key = l.via
              WHERE {links_where}) l"""
    return ctes, resolved


def resolved_links_sql(links_where: str, names: str, notes: str) -> str:
    """SELECT (source_id, key, target_id) of the links `links_where` picks, resolved against
    the `names` and `notes` tables (the real ones, or what a rename would make of them)."""
    ctes, resolved = _resolution(links_where, names, notes)
    return f"""WITH {ctes}
    SELECT DISTINCT l.entity_id AS source_id, l.key, l.resolved AS target_id FROM {resolved}"""


def insert_relationships_sql(
    links_where: str, target_where: str = "TRUE", into: str = "relationships"
) -> str:
    """INSERT the relationships of the links `links_where` picks (a filter on `l.entity_id`
    and `l.key` only), each resolved to its best name: kind of name first, then nearness, then
    id. Only names several notes share are resolved per linking note; the rest keep one
    grouped pick, so this costs what the resolution without nearness did."""
    ctes, resolved = _resolution(links_where, "entity_names", "notes")
    return f"""
    INSERT INTO {into}
    WITH {ctes}
    SELECT DISTINCT ON (rel_id) * FROM (
        SELECT 'rel_' || left(md5(l.source || '|' || {_TYPE_CASE} || '|' ||
                                  r.entity_id || '|' || coalesce({_LABEL_CASE}, '') ||
                                  CASE WHEN l.source <> l.entity_id
                                       THEN '|' || l.entity_id ELSE '' END), 16)
                   AS rel_id,
               l.source AS source_id, r.entity_id AS target_id,
               {_TYPE_CASE} AS type, {_LABEL_CASE} AS label,
               1.0 AS confidence, n.path AS origin,
               hash(l.source) AS source_key, hash(r.entity_id) AS target_key
        FROM {resolved}
        JOIN (SELECT entity_id FROM notes) r ON r.entity_id = l.resolved
        JOIN notes n ON n.entity_id = l.entity_id
        WHERE l.source IS NOT NULL AND r.entity_id <> l.source AND {target_where})
    ORDER BY rel_id"""


def _folder_steps(a: str, b: str) -> str:
    """SQL: how many folders apart two vault folders are ('' is the vault's root)."""
    split = "CASE WHEN {0} = '' THEN []::VARCHAR[] ELSE string_split({0}, '/') END"
    sa, ca = split.format(a), split.format(b)
    shared = f"least(len({sa}), len({ca}))"
    common = (
        f"coalesce(list_position(list_transform(range(1, {shared} + 1), "
        f"i -> ({sa})[i] = ({ca})[i]), false) - 1, {shared})"
    )
    return f"(len({sa}) + len({ca}) - 2 * {common})"
