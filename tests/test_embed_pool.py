"""A first index embeds on a pool of one-thread sessions: same vectors bit for bit as one text
alone, and a Ctrl-C (or an error) leaves no thread inside the model (issue 18, point 5)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from kbtui.embed import FastEmbedder, _embed_on
from kbtui.models import EMBED_DIM

TEXTS = [
    f"Sentence {i} about pooling sessions of the model, {'words ' * (i % 7)}" for i in range(40)
]


class _Session:
    """Stands in for a fastembed model: one vector a text, some time each; `fail_at` raises
    there (a KeyboardInterrupt stands for Ctrl-C arriving on the calling thread)."""

    def __init__(self, fail_at: int | None = None, exc: BaseException | None = None) -> None:
        self.done = 0
        self.fail_at, self.exc = fail_at, exc

    def embed(self, texts: list[str], batch_size: int) -> Iterator[np.ndarray]:
        assert batch_size == 1
        for text in texts:
            if self.fail_at is not None and self.done == self.fail_at:
                assert self.exc is not None
                raise self.exc
            time.sleep(0.01)
            self.done += 1
            yield np.full(EMBED_DIM, len(text), dtype=np.float32)


def _helpers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("kbtui-embed-")]


def test_the_pool_gives_each_text_its_own_vector() -> None:
    pool = [_Session(), _Session(), _Session()]
    vectors = _embed_on(pool, TEXTS)
    assert [int(v[0]) for v in vectors] == [len(t) for t in TEXTS]
    assert all(s.done > 0 for s in pool) and sum(s.done for s in pool) == len(TEXTS)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), RuntimeError("model broke")])
def test_a_stop_on_any_thread_ends_and_joins_every_thread(exc: BaseException) -> None:
    caller, helper = _Session(fail_at=2, exc=exc), _Session()
    with pytest.raises(type(exc)):
        _embed_on([caller, helper], TEXTS)
    assert _helpers() == []  # joined before raising: none left inside the model
    assert helper.done < len(TEXTS) // 2  # stopped at its next text, not at its share's end


def test_real_pool_vectors_equal_one_text_alone(real_embedder: FastEmbedder) -> None:
    alone = np.stack([real_embedder.embed([t])[0] for t in TEXTS[:12]])
    real_embedder.open_pool()
    try:
        if len(real_embedder._pool) < 2:
            pytest.skip("one core: no pool")
        pooled = real_embedder.embed(TEXTS[:12])
    finally:
        real_embedder.release_pool()
    assert np.array_equal(pooled, alone)
    assert real_embedder._pool == []
