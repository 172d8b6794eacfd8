"""bench/ keeps its shape: no import cycle among its modules (they import each other by bare
name, bench/ being sys.path[0] when a script runs), no module past 400 lines, and every module
listed in bench/README.md. The cycle check also runs on small trees, to show it can fail."""

from __future__ import annotations

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench_imports(folder: Path) -> dict[str, set[str]]:
    """{module: the folder's modules it imports}: every import, inside functions and
    `if TYPE_CHECKING:` too."""
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
        graph[path.stem] = found & names
    return graph


def cycle(folder: Path) -> list[str] | None:
    """One import cycle among the folder's modules, or None."""
    try:
        TopologicalSorter(bench_imports(folder)).prepare()
    except CycleError as err:
        return list(err.args[1])
    return None


def test_bench_has_no_import_cycle() -> None:
    assert cycle(BENCH) is None


@pytest.mark.parametrize(
    "files",
    [
        {"a.py": "import b\n", "b.py": "from a import x\n"},
        {  # inside a function, as retrieval.py and mcp_ranking.py once did
            "retrieval.py": "import mcp_ranking\n",
            "mcp_ranking.py": "def main():\n    import retrieval\n",
        },
        {  # a longer ring, one side type-only
            "a.py": "from b import B\n",
            "b.py": "from c import C\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a import A\n",
        },
    ],
)
def test_the_cycle_check_catches_a_ring(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found = cycle(tmp_path)
    assert found is not None and set(found) >= {Path(name).stem for name in files}


def test_the_cycle_check_accepts_a_tree(tmp_path: Path) -> None:
    files = {
        "common.py": "import json\n",
        "a.py": "from common import x\nimport numpy\n",
        "b.py": "import common\nfrom a import y\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert cycle(tmp_path) is None
    assert bench_imports(tmp_path) == {"a": {"common"}, "b": {"a", "common"}, "common": set()}


def test_no_bench_module_is_longer_than_400_lines() -> None:
    long = {
        p.name: n
        for p in BENCH.glob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def test_bench_readme_lists_every_module_and_no_other() -> None:
    listed = set(re.findall(r"`(\w+\.py)`", (BENCH / "README.md").read_text(encoding="utf-8")))
    assert listed == {p.name for p in BENCH.glob("*.py")}
