"""Issue 28 item 14: the embed bar beside a first pass shows the whole pass's count from its
first report (estimated from the chunks per byte of the notes written so far), so its time
left is real instead of a bar that is always full at 0:00:00."""

from __future__ import annotations

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store


def test_embed_total_is_the_whole_pass_from_the_start(settings: Settings, store: Store) -> None:
    marks: list[tuple[str, int, int]] = []
    indexer = Indexer(
        settings,
        store,
        HashEmbedder(),
        progress=lambda phase, done, total: marks.append((phase, done, total)),
        write_batch=4,
    )
    report = indexer.run()
    embeds = [(done, total) for phase, done, total in marks if phase == "embed"]
    writes = [total for phase, _, total in marks if phase == "write"]
    assert writes and writes[0] > 4 * 5  # many groups: the embedding ran beside the text pass
    final = report.chunks_embedded
    assert final > 50 and embeds[-1] == (final, final)
    first_total = embeds[0][1]
    # before: the first total was the first group's chunks (4 notes of many), the bar full
    assert 0.6 * final <= first_total <= 1.6 * final, (first_total, final)
    assert all(done <= total for done, total in embeds)
    assert sum(1 for done, total in embeds if done == total) <= 2  # not full all along
