"""Issue 41's goal for Tasks queries: filters (status, dates with relative forms, has/no date,
happens, priority, path/tag/description/heading, regex, recurrence, status.type, boolean
AND/OR/NOT), sort, group, limit, limit groups and hide/show give the tasks an independent
reading of the Tasks plugin's docs gives, over a vault of our own, today fixed
(tests/conformance_kit.py says how the sets were made). The held-out half's known failures are
xfail (strict): bugs for a later session, left unfixed so the held-out figure stays honest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conformance_kit import Case, Vaults, mismatch, params, run_tasks

# held-out queries kbtui answers differently (found by the one held-out run, 34/34): none
KNOWN_HELDOUT: dict[str, str] = {}


@pytest.fixture(scope="module")
def vaults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vaults]:
    opened = Vaults(tmp_path_factory.mktemp("conformance"))
    try:
        yield opened
    finally:
        opened.close()


@pytest.mark.parametrize("case", params("tasks", KNOWN_HELDOUT))
def test_tasks_query_gives_the_documented_tasks(vaults: Vaults, case: Case) -> None:
    got = run_tasks(vaults, case)
    assert mismatch(case, got) is None, f"{case.query}\n{mismatch(case, got)}"
