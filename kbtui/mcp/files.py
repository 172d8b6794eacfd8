"""What an HTTP server keeps in the index folder: its bearer tokens (read-write, and read-only),
and a record of who serves the vault over HTTP where.

The token is made under an exclusive lock (`flock` on a lock file beside it), so servers that
start together over a missing or empty token file all read the one token the first of them
wrote. The record lets a second `kbtui mcp --http` on the same vault say which process already
serves it, and at which address, instead of a bare "address in use".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kbtui.runtime.owner import read_json_object

TOKEN_FILE = "mcp-token"
READ_TOKEN_FILE = "mcp-token-read"  # a second token: its requests may only read
TOKEN_LOCK = ".mcp-token.lock"
RECORD_FILE = "mcp-http.json"
LOG_FILE = "mcp-http.log"


class TokenError(OSError):
    """The token file cannot be made or read; the message says where."""


def token_path(index_dir: Path, read_only: bool = False) -> Path:
    return index_dir / (READ_TOKEN_FILE if read_only else TOKEN_FILE)


@contextlib.contextmanager
def _locked(index_dir: Path) -> Iterator[None]:
    index_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(index_dir / TOKEN_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by close, also when the process dies
        yield
    finally:
        os.close(fd)


def load_token(index_dir: Path, read_only: bool = False) -> str:
    """The bearer token of this vault's HTTP server (`read_only`: the token whose requests
    may only read), created (0600) on first use. Made and read under the lock: the file
    appears whole (written aside, then renamed into place) and only the lock holder replaces
    a missing or empty one."""
    path = token_path(index_dir, read_only)
    with _locked(index_dir):
        try:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)  # someone loosened it: others must not read it
            token = path.read_text(encoding="ascii").strip()
            if token:
                return token
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            raise TokenError(f"cannot read the token file {path}: {exc}") from exc
        token = secrets.token_urlsafe(32)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=index_dir)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(token + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise TokenError(f"cannot create the token file {path}: {exc}") from exc
        return token


def record_path(index_dir: Path) -> Path:
    return index_dir / RECORD_FILE


def write_record(index_dir: Path, url: str) -> None:
    """Say that this process serves the vault over HTTP at `url` (replaced whole)."""
    path = record_path(index_dir)
    tmp = path.with_name(f".{RECORD_FILE}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"pid": os.getpid(), "url": url}, out)
    os.replace(tmp, path)


def drop_record(index_dir: Path) -> None:
    """Forget the record, if it is this process's."""
    if read_record(index_dir).get("pid") == os.getpid():
        with contextlib.suppress(OSError):
            record_path(index_dir).unlink()


def read_record(index_dir: Path) -> dict[str, Any]:
    return read_json_object(record_path(index_dir))


def live_record(index_dir: Path) -> dict[str, Any]:
    """The record when its process is alive (and not this one); {} otherwise."""
    record = read_record(index_dir)
    pid = record.get("pid")
    if not isinstance(pid, int) or pid == os.getpid():
        return {}
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return {}
    except PermissionError:
        pass  # alive, another user's
    return record
