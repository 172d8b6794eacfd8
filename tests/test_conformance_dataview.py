"""Issue 41's goal for DQL: queries a user writes (LIST/TABLE/TASK, FROM tags, folders, links and
negation, WHERE with dates and functions, SORT, GROUP BY, FLATTEN, LIMIT, WITHOUT ID, AS) give
the rows an independent reading of Dataview's docs gives, over a vault of our own
(tests/conformance_kit.py says how the sets were made). The held-out half's known failures are
xfail (strict): bugs for a later session, left unfixed so the held-out figure stays honest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conformance_kit import Case, Vaults, mismatch, params, run_dataview

# held-out queries kbtui answers differently (found by the one held-out run): not fixed here
KNOWN_HELDOUT: dict[str, str] = {
    "dv-h06": "the expected rows are wrong, not kbtui: written by hand, they missed the "
    "Expressions page's rule that null is below every value (`null <= date(today)` is true), "
    "so Draft Book, with no year, passes `year < 1950`; left as measured (39/40)",
}


@pytest.fixture(scope="module")
def vaults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vaults]:
    opened = Vaults(tmp_path_factory.mktemp("conformance"))
    try:
        yield opened
    finally:
        opened.close()


@pytest.mark.parametrize("case", params("dataview", KNOWN_HELDOUT))
def test_dataview_query_gives_the_documented_rows(vaults: Vaults, case: Case) -> None:
    got = run_dataview(vaults, case)
    assert mismatch(case, got) is None, f"{case.query}\n{mismatch(case, got)}"
