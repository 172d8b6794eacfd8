"""The front door stays true: the tools page matches the tool table, every relative link in
README.md and docs/ leads to a file, and the README's pictures are the current snapshots."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from PIL import Image

from kbtui.tools.reference import PAGE, REGENERATE, render_page, sections

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
TOP_FOLDERS = {"kbtui", "tests", "bench", "docs", "screenshots", "vault_example"}
# Pages another branch writes; each goes from this set when that branch is merged.
PENDING: set[str] = set()


def tool_page_problems(page: str, fresh: str) -> list[str]:
    """What differs between the page and a fresh render, tool by tool."""
    have, want = sections(page), sections(fresh)
    problems = [f"{name}: in the tool table but not on {PAGE}" for name in want if name not in have]
    problems += [
        f"{name}: on {PAGE} but not in the tool table" for name in have if name not in want
    ]
    problems += [
        f"{name}: its contract in code (description, arguments, defaults, ranges) differs "
        f"from {PAGE}"
        for name in want
        if name in have and have[name] != want[name]
    ]
    if not problems and page != fresh:
        problems.append(f"{PAGE}: the header or the list of tools differs")
    return problems


def test_tools_page_matches_the_tool_table() -> None:
    problems = tool_page_problems((REPO / PAGE).read_text(encoding="utf-8"), render_page())
    assert not problems, "\n".join([*problems, f"regenerate the page: {REGENERATE}"])


def test_a_changed_description_is_named() -> None:
    """The check names the tool whose section changed, and only that one."""
    fresh = render_page()
    section = sections(fresh)["kg_find_path"]
    edited = fresh.replace(section, section.replace("Shortest", "Longest", 1))
    assert edited != fresh
    problems = tool_page_problems(fresh, edited)
    assert len(problems) == 1 and problems[0].startswith("kg_find_path: its contract")
    # A tool added to the table whose page was not regenerated.
    without = fresh.replace(sections(fresh)["kg_rename_entity"], "")
    assert tool_page_problems(without, fresh) == [
        "kg_rename_entity: in the tool table but not on docs/tools.md"
    ]


def markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def without_code(text: str) -> str:
    """Markdown without fenced blocks and code spans: a link shown as code is no link."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))


def anchors(md: Path) -> set[str]:
    """The anchors GitHub gives a page's headings (`## The TUI in short` -> the-tui-in-short)."""
    headings = re.findall(r"^#{1,6} +(.+?) *$", md.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_relative_links_lead_to_files_and_headings() -> None:
    broken = []
    for md in markdown_files():
        for target in LINK.findall(without_code(md.read_text(encoding="utf-8"))):
            path, _, anchor = target.partition("#")
            if re.match(r"^[a-z]+:", path):
                continue  # a URL
            resolved = (md.parent / path).resolve() if path else md
            if resolved.relative_to(REPO).as_posix() in PENDING:
                continue
            if not resolved.exists():
                broken.append(f"{md.relative_to(REPO)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{md.relative_to(REPO)}: {target} (no such heading)")
    assert not broken, "links to nothing:\n" + "\n".join(broken)


def test_code_paths_named_in_docs_exist() -> None:
    """`search/service.py`, `kbtui/store/`, `tests/test_crash.py`: a page that names a file
    the code no longer has is no longer true. Paths are from the repository or from kbtui/."""
    missing = []
    for md in markdown_files():
        for span in re.findall(r"`([\w./-]+(?:\.py|/))`", md.read_text(encoding="utf-8")):
            if "/" not in span or span.startswith(("~", "/", ".")):
                continue
            if span.endswith("/") and span.split("/")[0] not in TOP_FOLDERS:
                continue  # a vault's folder (`people/`), not the repository's
            if not any((base / span).exists() for base in (REPO, REPO / "kbtui")):
                missing.append(f"{md.relative_to(REPO)}: {span}")
    assert not missing, "pages name files that do not exist:\n" + "\n".join(missing)


def test_readme_stays_a_front_door() -> None:
    """What kbtui is, install, first use, where the rest is: details go to docs/."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines (at most 300): move details to docs/"


def test_every_docs_page_is_in_the_index() -> None:
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in markdown_files()[1:] if p.name != "README.md"]
    missing = [name for name in missing if f"]({name})" not in index]
    assert not missing, f"docs/README.md does not list {missing}"


def load_screenshots() -> ModuleType:
    path = REPO / "screenshots" / "make_screenshots.py"
    spec = importlib.util.spec_from_file_location("make_screenshots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_pictures_are_the_current_snapshots() -> None:
    """Each PNG records the snapshot SVG it was made from; the snapshot tests keep that SVG
    equal to a fresh render, so a stale PNG means the screen changed since."""
    shots = load_screenshots()
    stale = []
    for name, test in shots.SHOTS.items():
        png = REPO / "screenshots" / f"{name}.png"
        with Image.open(png) as image:
            recorded = image.info.get(shots.SOURCE_KEY)
        svg = shots.SNAPSHOTS / f"{test}.svg"
        if recorded != shots.source_of(svg):
            stale.append(f"{png.relative_to(REPO)} was made from another {svg.name} ({recorded})")
    fix = ".venv/bin/python screenshots/make_screenshots.py"
    assert not stale, "\n".join([*stale, f"remake the pictures: {fix}"])
