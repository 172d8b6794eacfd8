"""Bases on real vaults: every view of every `.base` file through kbtui, against the same view
computed independently of kbtui (issue 30: >= 90% identical rows, order included where the
view sorts).

    python bench/bases_compare.py VAULT [VAULT ...]

Each vault is copied to a temporary folder and indexed there without the model. The
independent side reads each note's frontmatter with PyYAML, its body's #tags and its
[[wikilinks]] with regexes, and turns each filter into a Python predicate by its own small
translator, which knows only the filter idioms real bases use most (folder, tag, extension, a
frontmatter list holding a link, a property empty or compared with a literal, a file name
containing a text, a link between a file and `this`); a view with any other construct is
counted as "not comparable", never as a match. A view whose filters name `this` (one meant to
be embedded in a note) runs once with every note of the vault as `this`, and is identical only
when it is identical for each. Order is compared where the
view sorts by one property whose values are all different (ties leave order to the app);
otherwise rows are compared as sets. Prints per view: kbtui's row count, the independent
count, and whether they are identical; then the totals and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from bench_common import cpu_times, machine_note

from kbtui.bases.errors import BaseError
from kbtui.bases.service import BaseService
from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store

Row = dict[str, Any]  # path, folder, name, basename, ext, tags, props
Pred = Callable[[Row], bool]
_TAG = re.compile(r"(?:^|\s)#([\w/-]+)")
_STR = r'"([^"]*)"|\'([^\']*)\''
_WIKI = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")  # links and embeds, body and properties alike


# Help: Files and folders > Accepted file formats; others only with "Detect all file
# extensions" (`showUnsupportedFiles` in .obsidian/app.json)
_ACCEPTED = {
    "md", "base", "canvas", "pdf", "avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp",
    "flac", "m4a", "mp3", "ogg", "wav", "webm", "3gp", "mkv", "mov", "mp4", "ogv",
}  # fmt: skip


def _shows_all(vault: Path) -> bool:
    try:
        return yaml.safe_load((vault / ".obsidian" / "app.json").read_text()).get(
            "showUnsupportedFiles") is True  # fmt: skip
    except (OSError, yaml.YAMLError, AttributeError):
        return False


def read_rows(vault: Path) -> list[Row]:
    rows = []
    shows_all = _shows_all(vault)
    for path in sorted(p for p in vault.rglob("*") if p.is_file()):
        rel = path.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue  # Obsidian shows no hidden file or folder (.obsidian, .gitignore)
        if not shows_all and path.suffix.lower().lstrip(".") not in _ACCEPTED:
            continue
        props: dict[str, Any] = {}
        tags: list[str] = []
        if path.suffix == ".md":
            text = path.read_text(encoding="utf-8", errors="replace")
            body = text
            if text.startswith("---\n") and "\n---" in text[4:]:
                head, _, body = text[4:].partition("\n---")
                try:
                    loaded = yaml.safe_load(head)
                except yaml.YAMLError:
                    loaded = None
                props = loaded if isinstance(loaded, dict) else {}
            raw = props.get("tags") or []
            tags = [str(t).lstrip("#") for t in (raw if isinstance(raw, list) else [raw])]
            tags += _TAG.findall(body)
        name = rel.rsplit("/", 1)[-1]
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        links = {_link_target(t) for t in _WIKI.findall(text)} if path.suffix == ".md" else set()
        rows.append({"path": rel, "folder": rel.rsplit("/", 1)[0] if "/" in rel else "/",
                     "name": name, "basename": name[: -len(ext) - 1] if ext else name,
                     "ext": ext, "tags": [t.lower() for t in tags], "props": props,
                     "links": links})  # fmt: skip
    return rows


def _strings(text: str) -> list[str]:
    """The string literals of an argument list, when it holds nothing else."""
    found = [a or b for a, b in re.findall(_STR, text)]
    rest = re.sub(_STR, "", text).replace(",", "").strip()
    return found if found and not rest else []


def _prop(row: Row, name: str) -> Any:
    return row["props"].get(name.removeprefix("note."))


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [] if v is None else [v]


def _tag_under(tag: str, wanted: list[str]) -> bool:
    """A tag (any case, `#` or not) is one of `wanted` (lower case) or nested under one."""
    t = tag.lstrip("#").lower()
    return any(t == w or t.startswith(w + "/") for w in wanted)


def _empty(v: Any) -> bool:
    return v is None or v == "" or v == [] or v == {}


def _holds_link(v: Any, target: str) -> bool:
    items = v if isinstance(v, list) else [v]
    want = target.lower()
    return any(isinstance(i, str) and i.strip("[]").split("|")[0].lower() == want for i in items)


def _compare(a: Any, op: str, b: Any) -> bool:
    if op in ("==", "!="):
        return bool(a == b) == (op == "==")
    if a is None or isinstance(a, (list, dict, bool)):
        return False
    try:
        return bool({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op])
    except TypeError:
        return False


def _is_this(v: Any, this: Row | None) -> bool:
    """A property holding a link to `this` (by file name or path, as Obsidian resolves)."""
    if this is None:
        return False
    names = {this["basename"].lower(), this["path"].lower(), this["path"][:-3].lower()}
    items = v if isinstance(v, list) else [v]
    return any(isinstance(i, str) and _link_target(i) in names for i in items)


def _names(row: Row) -> set[str]:
    """What a link may say to reach this file: its name (a note's without .md) or path."""
    path = row["path"].lower()
    names = {row["name"].lower(), path}
    if row["ext"] == "md":
        names |= {row["basename"].lower(), path[:-3]}
    return names


def _links_to(row: Row, target: Row | None) -> bool:
    """`row` links to `target` (a wikilink or embed by name or path; nearest-file ties are
    not modelled: a name two files share counts for both)."""
    return target is not None and bool(row["links"] & _names(target))


def _link_target(text: str) -> str:
    return text.strip().strip("[]").split("|")[0].split("#")[0].strip().lower()


def predicate(expr: str, this: Row | None = None) -> Pred | None:
    """A filter expression as a predicate, for the idioms below only; None otherwise."""
    e = expr.strip()
    if e.startswith("!") and not e.startswith("!="):
        inner = predicate(e[1:], this)
        return (lambda r: not inner(r)) if inner else None
    if m := re.fullmatch(r"not\(empty\((?:note\.)?(\w+)\)\)", e):
        key = m[1]
        return lambda r: not _empty(_prop(r, key))
    if e == "file.hasLink(this)":
        return lambda r: _links_to(r, this)
    if e == "this.file.hasLink(file)":
        return lambda r: this is not None and _links_to(this, r)
    # a list property holding a link to the note the base is embedded in (`this`)
    if m := re.fullmatch(r"(?:list\((?:note\.)?(\w+)\)|(?:note\.)?(\w+))\.contains\(this\)", e):
        key = m[1] or m[2]
        return lambda r: _is_this(_prop(r, key), this)
    m = re.fullmatch(r"list\((?:note\.)?(\w+)\)\.contains\(link\((.*)\)\)", e)
    if m and _strings(m[2]):
        key, target = m[1], _strings(m[2])[0]
        return lambda r: _holds_link(_prop(r, key), target)
    # the `tags` property as written in the frontmatter (a list of texts), not file.tags
    if (m := re.fullmatch(r"(?:note\.)?tags\.(contains|containsAny)\((.*)\)", e)) and _strings(
        m[2]
    ):
        texts = [t.lstrip("#").lower() for t in _strings(m[2])]  # Obsidian 1.9.14: as tags
        return lambda r: any(_tag_under(str(t), texts) for t in _as_list(_prop(r, "tags")))
    if not re.search(r"\(|==|!=|<|>", e) and "." not in e.removeprefix("note."):
        return None  # a bare property's truthiness: left to the app
    if m := re.fullmatch(r"file\.hasTag\((.*)\)", e):
        wanted = [s.lower() for s in _strings(m[1])]
        if not wanted:
            return None
        return lambda r: any(t == w or t.startswith(w + "/") for t in r["tags"] for w in wanted)
    if m := re.fullmatch(r"file\.tags\.(contains|containsAny)\((.*)\)", e):
        wanted = [s.lower() for s in _strings(m[2])]
        if not wanted:
            return None
        wanted = [w.lstrip("#") for w in wanted]  # `#` optional, nested tags (1.9.11)
        return lambda r: any(_tag_under(t, wanted) for t in r["tags"])
    if (m := re.fullmatch(r"file\.inFolder\((.*)\)", e)) and _strings(m[1]):
        folder = _strings(m[1])[0].strip("/")
        return lambda r: r["path"].startswith(folder + "/")
    m = re.fullmatch(r"file\.(folder|name|ext|basename|path)\.(contains|containsAny)\((.*)\)", e)
    if m and _strings(m[3]) and (m[2] == "containsAny" or len(_strings(m[3])) == 1):
        key, parts = m[1], _strings(m[3])
        return lambda r: any(part in r[key] for part in parts)
    m = re.fullmatch(r"file\.(folder|name|ext|basename|path)\s*(==|!=)\s*(.*)", e)
    if m and _strings(m[3]):
        key, op, text = m[1], m[2], _strings(m[3])[0]
        return lambda r: (r[key] == text) == (op == "==")
    m = re.fullmatch(r"(?:note\.)?(\w+)\.contains\(link\((.*)\)\)", e)
    if m and _strings(m[2]):
        key, target = m[1], _strings(m[2])[0]
        return lambda r: _holds_link(_prop(r, key), target)
    if m := re.fullmatch(r"(?:note\.)?(\w+)\.isEmpty\(\)", e):
        key = m[1]
        return lambda r: _empty(_prop(r, key))
    if m := re.fullmatch(r"(?:note\.)?(\w+)\s*(==|!=|<=|>=|<|>)\s*([^()]+)", e):
        key, op, lit = m[1], m[2], m[3].strip()
        value: Any = _strings(lit)[0] if _strings(lit) else None
        if value is None:
            try:
                value = float(lit)
            except ValueError:
                return None
        return lambda r: _compare(_prop(r, key), op, value)
    return None


def tree(f: Any, this: Row | None = None) -> Pred | None:
    if f is None:
        return lambda r: True
    if isinstance(f, (str, bool, int, float)):
        return predicate(str(f), this)
    if isinstance(f, dict) and len(f) == 1:
        ((kind, items),) = f.items()
        subs = [tree(i, this) for i in (items if isinstance(items, list) else [items])]
        if None in subs:
            return None
        parts = [s for s in subs if s is not None]
        if kind == "and":
            return lambda r: all(p(r) for p in parts)
        if kind == "or":
            return lambda r: any(p(r) for p in parts)
        if kind == "not":
            return lambda r: not any(p(r) for p in parts)
    return None


def independent(
    base: dict[str, Any], view: dict[str, Any], rows: list[Row], this: Row | None = None
) -> list[str] | None:
    """The view's rows in view order, or None when a filter is beyond the translator."""
    both = [tree(base.get("filters"), this), tree(view.get("filters"), this)]
    if None in both:
        return None
    found = [r for r in rows if all(p(r) for p in both if p is not None)]
    out = [r["path"] for r in found]
    return out[: int(view["limit"])] if view.get("limit") and not view.get("sort") else out


def strict_order(view: dict[str, Any], rows: list[Row], paths: list[str]) -> bool:
    """True when the view sorts by one property whose values all differ (then order counts)."""
    sort = view.get("sort") or []
    if len(sort) != 1:
        return False
    key = str(sort[0].get("property") or sort[0].get("column") or "")
    by_path = {r["path"]: r for r in rows}
    if key.startswith("file."):
        values = [by_path[p].get(key[5:]) for p in paths if p in by_path]
    else:
        values = [_prop(by_path[p], key) for p in paths if p in by_path]
    return None not in values and len({repr(v) for v in values}) == len(values)


def compare(vault: Path) -> tuple[int, int, int]:
    """(views, identical, not comparable) for one vault, printing one line a view."""
    views = same = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / vault.name
        shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".kbtui", ".git"))
        settings = Settings.for_vault(copy)
        store = Store(settings.db_path)
        Indexer(settings, store, None).run(embed=False)
        service = BaseService(store, copy)
        rows = read_rows(copy)
        for base_path in sorted(p for p in copy.rglob("*.base") if ".kbtui" not in p.parts):
            rel = base_path.relative_to(copy).as_posix()
            base = yaml.safe_load(base_path.read_text(encoding="utf-8")) or {}
            for view in base.get("views") or []:
                views += 1
                name = str(view.get("name"))
                if uses_this(base, view):  # an embedded view: each note of the vault as `this`
                    verdict, mine, other = with_this(service, rel, base, view, rows)
                else:
                    verdict, mine, other = one_view(service, rel, base, view, rows, None)
                skipped += verdict.startswith("not comparable")
                same += verdict.startswith("identical")
                print(f"  {rel} / {name}: kbtui {mine}, independent {other}: {verdict}")
        store.close()
    return views, same, skipped


def uses_this(base: dict[str, Any], view: dict[str, Any]) -> bool:
    return re.search(r"\bthis\b", f"{base.get('filters')} {view.get('filters')}") is not None


def one_view(
    service: BaseService, rel: str, base: dict[str, Any], view: dict[str, Any],
    rows: list[Row], this: Row | None,
) -> tuple[str, Any, Any]:  # fmt: skip
    """(verdict, kbtui's row count, the independent count) for one view and one `this`."""
    ours: list[str] | None = None
    error = ""
    try:
        found = service.query(rel, view=str(view.get("name")), this=this["path"] if this else None)
        ours = [r["path"] for r in found[1].rows]
    except BaseError as exc:
        error = str(exc)
    theirs = independent(base, view, rows, this)
    if theirs is None:
        verdict = "not comparable (a filter beyond the independent translator)"
    elif ours is None:
        verdict = f"kbtui refused: {error}"
    elif strict_order(view, rows, theirs):
        theirs = _sorted(view, rows, theirs)
        verdict = "identical, order included" if ours == theirs else "DIFFERENT"
    else:
        verdict = "identical (as sets)" if sorted(ours) == sorted(theirs) else "DIFFERENT"
    return verdict, "-" if ours is None else len(ours), "-" if theirs is None else len(theirs)


def with_this(
    service: BaseService, rel: str, base: dict[str, Any], view: dict[str, Any], rows: list[Row]
) -> tuple[str, Any, Any]:
    """A view meant to be embedded, run with every note as `this`: identical only when it is
    identical for each; the counts are rows summed over the notes."""
    notes = [r for r in rows if r["ext"] == "md"]
    results = [one_view(service, rel, base, view, rows, note) for note in notes]
    if any(v.startswith("not comparable") for v, _, _ in results):
        return results[0][0], "-", "-"
    differ = [n["path"] for n, (v, _, _) in zip(notes, results, strict=True)
              if not v.startswith("identical")]  # fmt: skip
    mine = sum(m for _, m, _ in results if isinstance(m, int))
    other = sum(o for _, _, o in results if isinstance(o, int))
    with_rows = sum(1 for _, _, o in results if isinstance(o, int) and o)
    shown = f"with each of {len(notes)} notes as `this` ({with_rows} with rows)"
    if differ:
        return f"DIFFERENT {shown}, first for {differ[0]}", mine, other
    return f"identical {shown}", mine, other


def _sorted(view: dict[str, Any], rows: list[Row], paths: list[str]) -> list[str]:
    spec = view["sort"][0]
    key = str(spec.get("property") or spec.get("column"))
    by_path = {r["path"]: r for r in rows}

    def value(p: str) -> Any:
        return by_path[p].get(key[5:]) if key.startswith("file.") else _prop(by_path[p], key)

    out = sorted(paths, key=value, reverse=str(spec.get("direction", "ASC")).upper() == "DESC")
    return out[: int(view["limit"])] if view.get("limit") else out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("vaults", type=Path, nargs="+")
    args = parser.parse_args()
    before = cpu_times()
    total = same = skipped = 0
    for vault in args.vaults:
        print(vault)
        v, s, k = compare(vault)
        total, same, skipped = total + v, same + s, skipped + k
    compared = total - skipped
    share = f"{100 * same / compared:.0f}%" if compared else "-"
    print(f"views {total}; compared {compared}; identical {same} ({share}); "
          f"not comparable {skipped}")  # fmt: skip
    print(machine_note(before), f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
