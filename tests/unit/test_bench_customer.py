"""bench.customer's cheap parts, no server: its files pass the server's checks at the
size asked, and the pages' polls are read as its table says."""

import io
from typing import Any

import pytest
from rich.console import Console

from api.proof_files import examine
from bench.customer import parse_args
from bench.customer_pages import Change, PageLog, Poll, answer_times, seen_figures
from bench.customer_tables import report
from bench.proof_files import KINDS

SIZE = 2 * 2**20
MEDIA_TYPES = {
    "pdf-attached": "application/pdf",
    "pdf-photo": "application/pdf",
    "png": "image/png",
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_file_is_a_proof_the_server_takes_just_under_the_size(kind: str) -> None:
    made = KINDS[kind].make(SIZE)
    assert SIZE * 0.995 <= len(made) <= SIZE
    examined = examine(io.BytesIO(made), KINDS[kind].file_name, SIZE)
    assert examined.media_type == MEDIA_TYPES[kind]
    assert examined.size_bytes == len(made)
    assert examined.file_name == KINDS[kind].file_name


def test_the_attached_pdf_is_exactly_the_size() -> None:
    for size in (SIZE, 999_999, 10**7):
        assert len(KINDS["pdf-attached"].make(size)) == size


def page(task_id: int, fingerprint: str, *polls: tuple[float, float, int, str]) -> PageLog:
    log = PageLog(task_id)
    log.loads.append((0.0, 0.1, fingerprint))
    log.polls.extend(Poll(*p) for p in polls)
    return log


def test_a_change_is_seen_at_the_first_poll_that_shows_it() -> None:
    changes = {1: Change(10.0, 10.5), 2: Change(10.0, 10.5), 3: Change(10.0, 10.5)}
    pages = [
        # Polls before the change, then one after that shows it.
        page(1, "a", (5.0, 5.1, 200, "a"), (30.0, 30.2, 200, "b")),
        # Sent while the change was being committed: old, and not stale; then a poll
        # after the commit that still shows the old state (stale), then the new one.
        page(2, "a", (10.2, 10.3, 200, "a"), (11.0, 11.1, 200, "a"), (20.0, 20.1, 200, "b")),
        # A refused poll, then nothing new.
        page(3, "a", (12.0, 12.1, 429, ""), (13.0, 13.1, 200, "a")),
        # Its order did not change.
        page(4, "a", (12.0, 12.1, 200, "a")),
    ]
    seen = seen_figures(pages, changes)
    assert (seen["pages"], seen["seen"], seen["unseen"], seen["stale_polls"]) == (3, 2, 1, 2)
    assert seen["to_see"]["max_ms"] == pytest.approx(20_200)
    assert seen["to_see"]["count"] == 2
    assert seen["to_poll"]["max_ms"] == pytest.approx(19_500)


def test_answer_times_count_the_polls_sent_in_the_window() -> None:
    pages = [
        page(1, "a", (1.0, 1.5, 200, "a"), (2.0, 2.25, 200, "a"), (9.0, 9.1, 200, "a")),
        page(2, "a", (2.5, 2.6, 429, "")),
    ]
    figures = answer_times(pages, 1.0, 5.0)
    assert figures["count"] == 2
    assert figures["max_ms"] == pytest.approx(500)
    assert figures["statuses"] == {"200": 2, "429": 1}


def test_quick_is_short_and_unknown_kinds_are_refused() -> None:
    quick = parse_args(["--quick"])
    assert (quick.phase_seconds, quick.pages, quick.poll_seconds) == (15, 200, 15)
    assert parse_args([]).kinds == tuple(KINDS)
    with pytest.raises(SystemExit):
        parse_args(["--kinds", "gif"])


@pytest.mark.parametrize("results", [{}, {"uploads": {}, "pages": {}}])
def test_the_report_prints_whatever_was_measured(results: dict[str, Any]) -> None:
    out = io.StringIO()
    Console(file=out, width=200).print(report(results, parse_args([])))
    assert "CPU used during each phase" in out.getvalue()
