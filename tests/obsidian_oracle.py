"""An independent reading of a vault's links, tasks and tags, as Obsidian reads them: plain
regular expressions over the files (no markdown-it, no index), used to check what kbtui's
commands answer. Code (fenced blocks, inline code spans) is blanked first."""

from __future__ import annotations

import os
import posixpath
import re
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import unquote

FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,}).*?^\1\2[`~]*[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
WIKI = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
MD = re.compile(r"!?\[[^\]\n]*\]\((<[^>\n]*>|[^\s()]+)(?:\s+\"[^\"]*\")?\)")
FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---[ \t]*(\r?\n|\Z)", re.S)
TASK = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[(.)\](?:[ \t]|$)")


def files(vault: Path) -> list[str]:
    out = []
    for root, dirs, names in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = Path(root).relative_to(vault).as_posix()
        out += [n if rel == "." else f"{rel}/{n}" for n in names if not n.startswith(".")]
    return sorted(out)


def blank_code(text: str) -> str:
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)


def raw_links(path: str, text: str) -> list[str]:
    """Vault targets (as written, decoded, relative ones made vault paths) of every link."""
    found = []
    front = FRONT.match(text)
    body = text[front.end() :] if front else text
    if front:
        for m in WIKI.finditer(front.group(1)):
            found.append(m.group(1).split("|")[0].split("#")[0].strip())
    body = blank_code(body)
    for m in WIKI.finditer(body):
        found.append(m.group(1).split("|")[0].split("#")[0].strip())
    folder = path.rpartition("/")[0]
    for m in MD.finditer(body):
        dest = m.group(1).strip("<>")
        if re.match(r"^[a-zA-Z][\w+.-]*:", dest) or dest.startswith("#"):
            continue
        dest = unquote(dest.split("#")[0]).strip()
        if dest.startswith("/"):
            dest = dest.lstrip("/")
        elif dest.startswith(("./", "../")):
            dest = posixpath.normpath(posixpath.join(folder, dest))
            if dest.startswith(".."):
                continue
        found.append(dest)
    return [t for t in found if t]


class Oracle:
    def __init__(self, vault: Path) -> None:
        self.all = files(vault)
        self.notes = [p for p in self.all if p.endswith(".md")]
        self.names: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for p in self.all:
            stem = p[:-3] if p.endswith(".md") else p
            parts = stem.lower().split("/")
            for i in range(len(parts)):
                kind = 1 if i == 0 else 3 if i == len(parts) - 1 else 2
                self.names["/".join(parts[i:])].append((kind, p))
        self.links: dict[str, list[tuple[str, str | None]]] = {}
        self.text: dict[str, str] = {}
        for p in self.notes:
            text = _decode((vault / p).read_bytes())
            self.text[p] = text
            self.links[p] = [(t, self.resolve(t, p)) for t in raw_links(p, text)]

    def resolve(self, target: str, source: str) -> str | None:
        key = target.lower().strip("/")
        key = key[:-3] if key.endswith(".md") else key
        found = self.names.get(key)
        if not found:
            return None
        best = min(k for k, _ in found)
        folder = source.rpartition("/")[0]
        return min((p for k, p in found if k == best), key=lambda p: (_steps(folder, p), p))

    def backlinks(self, note: str) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for src, links in self.links.items():
            counts.update(src for _, dst in links if dst == note and src != note)
        return dict(counts)

    def unresolved(self) -> dict[str, int]:
        return dict(Counter(t for links in self.links.values() for t, dst in links if dst is None))

    def orphans(self) -> list[str]:
        linked = {dst for src, ls in self.links.items() for _, dst in ls if dst and dst != src}
        return [p for p in self.notes if p not in linked]

    def deadends(self) -> list[str]:
        return [p for p in self.notes if not any(d and d != p for _, d in self.links[p])]

    def tasks(self) -> list[tuple[str, int, str]]:
        out = []
        for p, text in self.text.items():
            front = FRONT.match(text)
            skip = text[: front.end()].count("\n") if front else 0
            for n, line in enumerate(blank_code(text).split("\n")):
                m = TASK.match(line)
                if m and n >= skip:
                    out.append((p, n + 1, m.group(1)))
        return sorted(out)


def _steps(folder: str, path: str) -> int:
    a = folder.split("/") if folder else []
    b = path.split("/")[:-1]
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return len(a) + len(b) - 2 * common


def _decode(data: bytes) -> str:
    """As a text editor would: a BOM's encoding, else UTF-8, else Windows-1252."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")
