"""No module outside the write path writes a note (issue 39: one write path).

The write path is kbtui/tools/write/ (NoteWriter: scope, precondition, history, index) over
kbtui/vault/edit/ (the codec and the files: swap, batch). An AST walk over kbtui finds
- every call of the write primitives (swap's replace/create/move, the files' batch, the old
  replace_note/write_new_note/archive_note, Send2Trash): only the write path may make them
  (its own API, NoteWriter, delete_note, write_batch, is what the tools call);
- every call that writes, moves or removes a file (write_bytes/write_text, os.replace,
  os.rename, os.link, os.unlink, shutil.move, open(..., "w") ...): outside the write path only
  the modules of OWN_FILES make them, each for files of its own that are never notes.
A new writer anywhere else fails here until it goes through NoteWriter (or, for a file that
is not a note, is added to OWN_FILES saying what it writes).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "kbtui"
WRITE_PATH = ("tools/write/", "vault/edit/")
PRIMITIVES = {
    "replace_file",
    "create_file",
    "move_file",
    "write_all",
    "replace_note",
    "write_new_note",
    "archive_note",
    "send2trash",
}
FILE_CALLS = {"write_bytes", "write_text", "hardlink_to", "symlink_to", "touch"}
FILE_CALLS |= {"replace", "move", "copy", "copy2", "copyfile", "copytree", "rmtree"}
MODULES = {"os", "shutil", "Path", "path"}  # replace/move/copy... count only on these
WRITE_MODES = set("wax+")
OWN_FILES = {  # module -> what it writes (never a note)
    "cli/graph_map.py": "the graph image where the person asked for it",
    "embed.py": "the embedding model's cache folder",
    "embed_e5.py": "the multilingual model's converted build in the cache folder",
    "model_files.py": "model builds' manifests, stamps and the build lock in the cache folder",
    "mcp/files.py": "the MCP server's token and record files under the index folder",
    "mcp/process.py": "nothing on disk: the protocol's own stdout descriptor",
    "runtime/owner.py": "the owner's record and socket under the index folder",
    "store/file/clean_close.py": "the index's clean-close stamp",
    "store/file/recover.py": "a damaged index file set aside",
    "store/history/versions.py": "the history's kept files, once read",
    "store/side/arrays.py": "the search indexes' side files",
    "store/vectors/hnsw.py": "the HNSW side index",
    "store/vectors/hnsw_build.py": "the HNSW side index's build",
}


def _name(func: ast.expr) -> tuple[str, str]:
    """(object, function) of a call: ("os", "replace"), ("", "open"), ("path", "unlink")."""
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute):
        owner = func.value
        if isinstance(owner, ast.Name):
            return owner.id, func.attr
        if isinstance(owner, ast.Attribute):
            return owner.attr, func.attr
        return "?", func.attr
    return "?", ""


def _writes_file(call: ast.Call) -> bool:
    owner, name = _name(call.func)
    if name in ("open", "fdopen") and owner in ("", "os", "io"):
        mode = call.args[1] if len(call.args) > 1 else None
        mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
        text = mode.value if isinstance(mode, ast.Constant) else "r"
        return isinstance(text, str) and bool(WRITE_MODES & set(text))
    if name in ("replace", "move", "copy", "copy2", "copyfile", "copytree", "rmtree", "remove"):
        return owner in MODULES  # str.replace, list.remove are not file writes
    if name in ("link", "symlink"):
        return owner == "os"  # a Bases row's link() is not a hard link
    if name in ("rename", "unlink"):
        return owner not in ("", "self")  # a screen's own rename() is not a file's
    return name in FILE_CALLS


def offences(root: Path = ROOT) -> list[str]:
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(WRITE_PATH):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            _, name = _name(node.func)
            where = f"kbtui/{rel}:{node.lineno}"
            if name in PRIMITIVES:
                found.append(f"{where}: calls {name}, a write primitive (use NoteWriter)")
            elif _writes_file(node) and rel not in OWN_FILES:
                found.append(f"{where}: writes a file with {name}() outside the write path")
    return found


def test_only_the_write_path_writes_notes() -> None:
    assert offences() == []


def test_every_module_allowed_to_write_its_own_files_still_does() -> None:
    """OWN_FILES lists no module that has stopped writing (or moved): the list stays true."""
    writers = set()
    for rel in OWN_FILES:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        if any(isinstance(n, ast.Call) and _writes_file(n) for n in ast.walk(tree)):
            writers.add(rel)
    assert writers == set(OWN_FILES)


def test_the_check_finds_a_writer_outside_the_write_path(tmp_path: Path) -> None:
    root = tmp_path / "kbtui"
    (root / "tools" / "obsidian").mkdir(parents=True)
    (root / "tools" / "write").mkdir(parents=True)
    (root / "tools" / "obsidian" / "tasks.py").write_text(
        "import os\n"
        "from kbtui.vault.edit.swap import replace_file\n"
        "def save(p, old, new, keep):\n"
        "    replace_file(p, old, new, keep)\n"
        "    p.write_bytes(new)\n"
        "    os.replace(p, p)\n"
        "    open(p, 'w').close()\n"
        "    'a'.replace('a', 'b')\n"
        "    open(p).read()\n"
    )
    (root / "tools" / "write" / "service.py").write_text("def f(p):\n    p.write_bytes(b'')\n")
    found = offences(root)
    assert [f.split(": ", 1)[0] for f in found] == [
        f"kbtui/tools/obsidian/tasks.py:{n}" for n in (4, 5, 6, 7)
    ]
