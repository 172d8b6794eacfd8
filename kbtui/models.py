"""Frozen value objects passed between the layers (README, "How the code is laid out")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EMBED_DIM = 384


@dataclass(frozen=True)
class Link:
    """A link out of a note: a body wikilink/embed or a typed frontmatter relation."""

    target: str  # the raw target, e.g. "vector_watch_project" (no heading, no label)
    rel: str  # "references" for body links, "embeds" for ![[...]], else the frontmatter key
    heading: str = ""  # the part after '#', if any
    label: str = ""  # the part after '|', if any
    form: str = "wiki"  # "wiki" ([[x]]), "md" ([t](x.md)), "bare" (a relation key's plain value)
    via: str = ""  # a canvas edge: the file of the card it starts from (the link's real source)


@dataclass(frozen=True)
class Task:
    """A `- [c] text` list item: Obsidian's and the Tasks plugin's fields (dates as written)."""

    line: int  # 1-based line of the file
    status: str  # the character between the brackets
    text: str  # the whole line as written, e.g. "- [ ] Buy milk 📅 2026-01-02"
    due: str = ""
    scheduled: str = ""
    start: str = ""
    done: str = ""
    priority: str = ""  # highest, high, medium, low, lowest
    recurrence: str = ""
    heading: str = ""  # the nearest heading above the task, as written
    plugin: str = ""  # the Tasks plugin's reading (kbtui.vault.obsidian.task_line.pack)


@dataclass(frozen=True)
class ListItem:
    """A list item as the Dataview plugin reads it (a task when it has a status)."""

    line: int  # 1-based line of the file
    parent: int  # 1-based line of the item it sits under; 0 at the top of its list
    list_line: int  # 1-based first line of the list it belongs to
    symbol: str  # "-", "*", "+", "1." ...
    status: str | None  # a task's status character; None for a plain list item
    text: str  # after the marker and box; continuation lines joined by "\n"
    line_count: int
    section: str  # the heading above it as written, "" when none
    block_id: str  # its `^id`, "" when none
    fields: str  # JSON {key: [values]} (kbtui.vault.obsidian.dv_values' encoding)
    tags: tuple[str, ...]  # "#tag" as written
    links: str  # JSON list of links (the same encoding)
    # a task's due, completion, created, start and scheduled as Dataview derives them from its
    # fields: the date's text, "?" for a value that is not a date without a zone, "" for none
    dates: tuple[str, str, str, str, str] = ("", "", "", "", "")


@dataclass(frozen=True)
class DataviewPage:
    """What the Dataview plugin adds to a markdown note's properties (kbtui.vault.obsidian)."""

    fields: str  # JSON {key: value}: properties and inline fields, also under simplified names
    tags: tuple[str, ...]  # file.etags: "#Tag/Sub" as written, body tags first
    day: str | None  # file.day (kbtui.vault.obsidian.dv_values' date text), if any
    items: tuple[ListItem, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """A piece of a note's body; start/end are character offsets into the body."""

    index: int
    content: str
    start: int
    end: int
    heading: str  # heading path, e.g. "Work on Vector Watch > Hardware"


@dataclass(frozen=True)
class ParsedNote:
    """Everything the indexer needs from one markdown file."""

    path: str  # vault-relative, POSIX separators
    entity_id: str
    type: str
    name: str
    title: str
    body: str
    frontmatter: dict[str, Any]
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    links: tuple[Link, ...]
    sections: tuple[tuple[int, str], ...]  # (body offset, heading path) where each section starts
    warnings: tuple[str, ...] = ()
    # (token type, first line, end line) of the body's code blocks and tables, from the one
    # markdown-it parse (kbtui.vault.meaning reads them); None: not parsed yet
    blocks: tuple[tuple[str, int, int], ...] | None = None
    tasks: tuple[Task, ...] = ()
    # Bases' `file.tags`, as Obsidian's getAllTags gives them: `#` first and the case written,
    # the frontmatter's then the body's, each written form once (`tags` is lower case, no `#`)
    file_tags: tuple[str, ...] = ()
    tag_uses: tuple[int, ...] = ()  # how often each of file_tags is written (Obsidian's counts)
    dataview: DataviewPage | None = None  # markdown notes only

    @property
    def folder(self) -> str:
        return self.path.rpartition("/")[0]


@dataclass(frozen=True)
class FileState:
    """What a scan knows about a file without reading it."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class NoteWrite:
    """A parsed, chunked note ready for the store; `replaces` are entity ids it supersedes."""

    note: ParsedNote
    state: FileState
    file_hash: str
    chunk_size: int
    chunk_overlap: int
    chunks: tuple[Chunk, ...]
    chunk_hashes: tuple[str, ...]
    chunk_terms: tuple[dict[int, int], ...]
    chunk_lengths: tuple[int, ...]
    replaces: tuple[str, ...] = ()
    # Each chunk's text as Obsidian shows it (kbtui.vault.hidden); "" when that is the content.
    chunk_shown: tuple[str, ...] = ()
    # Why each chunk gets no vector (kbtui.vault.meaning: "code", "data", "markup"), or "".
    chunk_not_embedded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass
class IndexReport:
    """Summary of one indexing pass, shown by `kbtui index` and returned to callers."""

    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[Skipped] = field(default_factory=list)
    # files a watcher batch touched that are not indexed as notes (a .zip, a .psd): only
    # their `file.*` facts changed (vault_files), which a base over attachments shows
    other_files: list[str] = field(default_factory=list)
    chunks_embedded: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class SearchFilters:
    """Additive (AND) filters; None means no filter."""

    type: str | None = None
    tag: str | None = None
    folder: str | None = None
    entity_id: str | None = None
    category: str | None = None  # frontmatter `category` (knowledge_import writes it)
    document_id: str | None = None  # frontmatter `document_id`, or the entity id

    def active(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class ChunkHit:
    """One chunk-level result with the scores that produced it."""

    cid: int
    chunk_id: str
    entity_id: str
    score: float
    vector_score: float
    keyword_score: float


@dataclass(frozen=True)
class SearchResult:
    """A note-level hit: the best chunk of an entity."""

    id: str
    type: str
    title: str
    snippet: str
    score: float
    metadata: dict[str, Any]
