"""The optimised model build: same vectors as the wheel's model, rebuilt when altered."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from kbtui.embed import FastEmbedder, _optimised_ok, prepare_model_dir
from kbtui.embed_opt import DATA_FILE, OPTIMISER_VERSION

TEXTS = [
    "The watch firmware samples the accelerometer at 50 Hz to save battery.",
    "Quarterly tax filing is due at the end of the month.",
    "Notre équipe a révisé le cadran de la montre.",
    "東京のデザイン会議でバッテリーについて話した。",
]


@pytest.fixture(scope="module")
def shipped() -> FastEmbedder:
    embedder = FastEmbedder(optimise=False)
    embedder.load()
    return embedder


def test_optimised_vectors_match_the_shipped_model(
    real_embedder: FastEmbedder, shipped: FastEmbedder
) -> None:
    assert real_embedder.optimised and OPTIMISER_VERSION in real_embedder.model_id
    assert real_embedder.model_id != shipped.model_id  # vectors differ slightly: re-embed
    fast, slow = real_embedder.embed(TEXTS), shipped.embed(TEXTS)
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-4)
    assert float(np.min(np.sum(fast * slow, axis=1))) > 0.97
    # Order within a call does not change a text's vector (batches are sorted by length).
    again = real_embedder.embed(TEXTS[::-1])[::-1]
    assert np.allclose(again, fast, atol=1e-5)


def test_a_texts_vector_does_not_depend_on_what_it_is_embedded_with() -> None:
    """The indexer embeds whatever notes a pass holds: the same chunk must get the same
    vector in a pass of one note and in a fresh build of the vault (delete the index and
    rebuild gives the same answers). With 8 texts a run, dynamic int8 quantisation scaled each
    run's activations together: cosine ~0.993 against the text embedded alone."""
    from kbtui.config import Settings

    embedder = FastEmbedder(batch_size=Settings.for_vault(Path(".")).embed_batch_size)
    alone = embedder.embed(TEXTS[:1])
    mates = [TEXTS[0], "Ein sehr langer Satz " * 30, "short", TEXTS[1], TEXTS[2]]
    together = embedder.embed(mates)
    assert np.array_equal(alone[0], together[0])


def test_an_altered_build_is_detected(tmp_path: Path, real_embedder: FastEmbedder) -> None:
    folder, _ = prepare_model_dir(optimise=True)
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    tokenizer = copy / "tokenizer.json"
    assert _optimised_ok(copy, tokenizer)
    for name in ("model.onnx", DATA_FILE):
        part = tmp_path / name / folder.name
        shutil.copytree(folder, part)
        with (part / name).open("r+b") as model:
            model.seek(1000)
            model.write(b"\0\0\0\0")
        assert not _optimised_ok(part, tokenizer), name


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="Linux's /proc")
def test_the_word_embeddings_are_mapped_not_copied(real_embedder: FastEmbedder) -> None:
    """The build keeps the 45 MB fp32 word-embedding table beside the graph, and onnxruntime
    maps that file: a query touches a few of its rows, not all 45 MB of a heap copy."""
    folder, _ = prepare_model_dir(optimise=True)
    assert (folder / "model.onnx").stat().st_size < 16 * 2**20  # 55 MB with the table inside
    assert (folder / DATA_FILE).stat().st_size > 40 * 2**20
    real_embedder.embed(TEXTS[:1])
    assert str(folder / DATA_FILE) in Path("/proc/self/maps").read_text()


def test_an_altered_build_is_detected_after_a_trusted_start(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    """The second check trusts the stamp the first one wrote; a write still changes it."""
    folder, _ = prepare_model_dir(optimise=True)
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    tokenizer = copy / "tokenizer.json"
    assert _optimised_ok(copy, tokenizer)  # hashed, stamp recorded
    assert "stamp" in json.loads((copy / "kbtui_model.json").read_text())
    assert _optimised_ok(copy, tokenizer)  # trusted by its stamp
    for name in ("model.onnx", DATA_FILE):
        part = tmp_path / f"{name}-trusted" / folder.name
        shutil.copytree(copy, part)  # mtimes kept: the stamp still holds
        assert _optimised_ok(part, part / "tokenizer.json")
        with (part / name).open("r+b") as model:
            model.seek(2000)
            model.write(b"\1\1\1\1")
        assert not _optimised_ok(part, part / "tokenizer.json"), name
    with (copy / DATA_FILE).open("r+b") as data:
        data.truncate(1000)
    assert not _optimised_ok(copy, tokenizer)


def test_the_session_sleeps_and_keeps_no_arena(real_embedder: FastEmbedder) -> None:
    """One session, made by kbtui: idle threads that spin stole both cores from the vector
    search (8 -> 29 ms) and the arena kept ~240 MB after indexing."""
    real_embedder.load()
    session = real_embedder._model.model.model
    options = session.get_session_options()
    assert options.enable_cpu_mem_arena is False
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"


def _waiting_on(lock: Path) -> bool:
    """Some process waits for `lock` (a blocked request shows as `->` in /proc/locks)."""
    inode = str(lock.stat().st_ino)
    return any(
        "->" in line and line.split()[-3].endswith(f":{inode}")
        for line in Path("/proc/locks").read_text().splitlines()
    )


def test_a_second_process_waits_for_the_first_build(tmp_path: Path) -> None:
    """Two kbtui processes starting on an empty cache (a TUI and an MCP server): the second
    waits for the first one's build and then uses it, instead of removing it as it is read."""
    import subprocess
    import sys

    from kbtui.model_files import build_lock

    script = (
        "import sys; from pathlib import Path; from kbtui.embed import prepare_model_dir; "
        "folder, _ = prepare_model_dir(Path(sys.argv[1]), optimise=False); print(folder)"
    )
    with build_lock(tmp_path / "models"):
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        lock = tmp_path / "models" / ".build.lock"
        deadline = time.monotonic() + 120
        while not _waiting_on(lock):
            assert proc.poll() is None, "the second process did not wait for the lock"
            assert time.monotonic() < deadline, "the second process never asked for the lock"
            time.sleep(0.01)
        assert not list((tmp_path / "models").glob("all-MiniLM*")), "built beside the first"
    out, _ = proc.communicate(timeout=120)
    folder = Path(out.strip())
    assert proc.returncode == 0
    assert (folder / "model.onnx").is_file() and (folder / "tokenizer_config.json").is_file()
