"""One Settings object, built once at each entry point and passed down."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INDEX_DIRNAME = ".kbtui"
DB_FILENAME = "index.duckdb"


@dataclass(frozen=True)
class Settings:
    vault: Path
    index_dir: Path
    chunk_size: int = 500
    chunk_overlap: int = 50
    # one text a run: least CPU per chunk with the int8 build (9.5 ms vs 14.1 at 8, no padding;
    # bench/embed_speed.py), and a text's vector does not depend on its batch-mates (dynamic
    # quantisation scales activations per run)
    embed_batch_size: int = 1
    embed_threads: int | None = None  # None: all cores
    imports_folder: str = "imports"  # where knowledge_import writes notes
    hnsw_min_chunks: int = 150_000  # below this, exact vector search is fast enough
    max_pdf_mb: int = 100  # a larger PDF is not read, only found by name ($KBTUI_MAX_PDF_MB)
    history_days: int = 7  # how long old versions of notes are kept ($KBTUI_HISTORY_DAYS)
    # Which embedding model: "auto" (decided from the vault's text at its first index, kept in
    # the index), "minilm" or "e5" (multilingual-e5-small) ($KBTUI_MODEL, `--model`);
    # kbtui.indexing.model_choice. `model_set_by` names where a forced model came from.
    model: str = "auto"
    model_set_by: str = ""
    choose_model_again: bool = False  # auto: decide again from the text now (`--choose-model`)

    @property
    def db_path(self) -> Path:
        return self.index_dir / DB_FILENAME

    @classmethod
    def for_vault(
        cls,
        vault: str | Path | None = None,
        index_dir: str | Path | None = None,
        **kwargs: int | str | None,
    ) -> Settings:
        """Resolve the vault: explicit path, else $KBTUI_VAULT, else the current folder."""
        chosen = vault if vault is not None else os.environ.get("KBTUI_VAULT") or os.getcwd()
        root = Path(chosen).expanduser().resolve()
        idx = Path(index_dir).expanduser().resolve() if index_dir else root / INDEX_DIRNAME
        if "max_pdf_mb" not in kwargs and os.environ.get("KBTUI_MAX_PDF_MB", "").isdigit():
            kwargs["max_pdf_mb"] = int(os.environ["KBTUI_MAX_PDF_MB"])
        if "history_days" not in kwargs and os.environ.get("KBTUI_HISTORY_DAYS", "").isdigit():
            kwargs["history_days"] = int(os.environ["KBTUI_HISTORY_DAYS"])
        if kwargs.get("model") is not None:
            kwargs["model"] = model_name(str(kwargs["model"]), "--model")
            kwargs.setdefault("model_set_by", "--model")
        elif os.environ.get("KBTUI_MODEL", "").strip():
            kwargs["model"] = model_name(os.environ["KBTUI_MODEL"], "KBTUI_MODEL")
            kwargs.setdefault("model_set_by", "KBTUI_MODEL")
        else:
            kwargs.pop("model", None)
        return cls(vault=root, index_dir=idx, **kwargs)  # type: ignore[arg-type]


MODEL_NAMES = {"auto": "auto", "minilm": "minilm", "e5": "e5", "multilingual": "e5"}


def model_name(value: str, where: str) -> str:
    """The model setting's canonical name; a ValueError saying what is accepted."""
    name = MODEL_NAMES.get(value.strip().lower())
    if name is None:
        raise ValueError(f"{where} is {value!r}: use auto, minilm or e5 (multilingual)")
    return name
