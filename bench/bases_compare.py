"""Bases on real vaults: every view of every `.base` file through kbtui, against the same view
computed independently of kbtui (issue 30: >= 90% identical rows, order included where the
view sorts).

    python bench/bases_compare.py VAULT [VAULT ...]

Each vault is copied to a temporary folder and indexed there without the model. The
independent side reads each note's frontmatter with PyYAML and its body's #tags with a regex,
and turns each filter into a Python predicate by its own small translator, which knows only the
filter idioms real bases use most (folder, tag, extension, a frontmatter list holding a link,
a property empty or compared with a literal, a file name containing a text); a view with any
other construct is counted as "not comparable", never as a match. Order is compared where the
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


def read_rows(vault: Path) -> list[Row]:
    rows = []
    for path in sorted(p for p in vault.rglob("*") if p.is_file()):
        rel = path.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue  # Obsidian shows no hidden file or folder (.obsidian, .gitignore)
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
        rows.append({"path": rel, "folder": rel.rsplit("/", 1)[0] if "/" in rel else "/",
                     "name": name, "basename": name[: -len(ext) - 1] if ext else name,
                     "ext": ext, "tags": [t.lower() for t in tags], "props": props})  # fmt: skip
    return rows


def _strings(text: str) -> list[str]:
    """The string literals of an argument list, when it holds nothing else."""
    found = [a or b for a, b in re.findall(_STR, text)]
    rest = re.sub(_STR, "", text).replace(",", "").strip()
    return found if found and not rest else []


def _prop(row: Row, name: str) -> Any:
    return row["props"].get(name.removeprefix("note."))


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


def predicate(expr: str) -> Pred | None:
    """A filter expression as a predicate, for the idioms below only; None otherwise."""
    e = expr.strip()
    if e.startswith("!") and not e.startswith("!="):
        inner = predicate(e[1:])
        return (lambda r: not inner(r)) if inner else None
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
        return lambda r: any(w in r["tags"] for w in wanted)
    if (m := re.fullmatch(r"file\.inFolder\((.*)\)", e)) and _strings(m[1]):
        folder = _strings(m[1])[0].strip("/")
        return lambda r: r["path"].startswith(folder + "/")
    m = re.fullmatch(r"file\.(folder|name|ext|basename|path)\.contains\((.*)\)", e)
    if m and _strings(m[2]):
        key, part = m[1], _strings(m[2])[0]
        return lambda r: part in r[key]
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


def tree(f: Any) -> Pred | None:
    if f is None:
        return lambda r: True
    if isinstance(f, (str, bool, int, float)):
        return predicate(str(f))
    if isinstance(f, dict) and len(f) == 1:
        ((kind, items),) = f.items()
        subs = [tree(i) for i in (items if isinstance(items, list) else [items])]
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


def independent(base: dict[str, Any], view: dict[str, Any], rows: list[Row]) -> list[str] | None:
    """The view's rows in view order, or None when a filter is beyond the translator."""
    both = [tree(base.get("filters")), tree(view.get("filters"))]
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
                error = ""
                ours: list[str] | None = None
                try:
                    ours = [r["path"] for r in service.query(rel, view=name)[1].rows]
                except BaseError as exc:
                    error = str(exc)
                theirs = independent(base, view, rows)
                if theirs is None:
                    skipped += 1
                    verdict = "not comparable (a filter beyond the independent translator)"
                elif ours is None:
                    verdict = f"kbtui refused: {error}"
                elif strict_order(view, rows, theirs):
                    theirs = _sorted(view, rows, theirs)
                    verdict = "identical, order included" if ours == theirs else "DIFFERENT"
                else:
                    verdict = (
                        "identical (as sets)" if sorted(ours) == sorted(theirs) else "DIFFERENT"
                    )
                same += verdict.startswith("identical")
                mine = "-" if ours is None else len(ours)
                other = "-" if theirs is None else len(theirs)
                print(f"  {rel} / {name}: kbtui {mine}, independent {other}: {verdict}")
        store.close()
    return views, same, skipped


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
