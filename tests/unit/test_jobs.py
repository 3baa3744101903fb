"""The job line a queue and a wall display show for a work order, and the job's fields as
an order's details hold them: read whatever they hold, written only by their rules."""

from typing import Any

import pytest

from domain import validation
from domain.errors import DomainError, each
from domain.jobs import MAX_JOB_LINE, job_line, read_job


@pytest.mark.parametrize(
    ("details", "line"),
    [
        ({"title": " Shop sign ", "product": "Banner"}, "Shop sign"),
        ({"product": "Flyers A5", "quantity": 500}, "500 x Flyers A5"),
        ({"product": "Flyers A5", "quantity": "many"}, "Flyers A5"),
        ({"product": "Flyers A5", "quantity": True}, "Flyers A5"),
        ({"items": [{"description": "Menus", "quantity": 40}, {"description": "x"}]}, "40 x Menus"),
        ({"items": ["not an object"], "notes": "Rush job\nsecond line"}, "Rush job"),
        ({"notes": "  "}, None),
        ({}, None),
        ({"title": 42}, None),
    ],
)
def test_job_line(details: dict[str, Any], line: str | None) -> None:
    assert job_line(details) == line


def test_a_long_line_is_cut_with_an_ellipsis() -> None:
    line = job_line({"title": "x" * 200})
    assert line is not None and len(line) == MAX_JOB_LINE and line.endswith("…")


def test_the_job_reads_what_is_of_its_kind_and_null_for_the_rest() -> None:
    job = read_job({"product": " Flyers ", "quantity": "abc", "size": 5, "notes": "x" * 5000})
    assert job == {
        "product": "Flyers",
        "quantity": None,
        "size": None,
        "stock": None,
        "colours": None,
        "finishing": None,
        # Longer than a new one may be: still read, the screens wrap it.
        "notes": "x" * 5000,
    }


@pytest.mark.parametrize(
    ("given", "kept"),
    [(7, 7), ("7", 7), (" 12 ", 12), (3.0, 3), ("", None), (10_000_000, 10_000_000)],
)
def test_a_quantity_is_a_whole_number_from_one(given: Any, kept: int | None) -> None:
    assert validation.quantity(given, "job.quantity") == kept


@pytest.mark.parametrize("given", [0, -3, 1.5, "1.5", "abc", "²", True, 10_000_001, [5], {"n": 5}])
def test_anything_else_is_refused_at_its_field(given: Any) -> None:
    with pytest.raises(DomainError) as refused:
        validation.quantity(given, "job.quantity")
    assert refused.value.field == "job.quantity"


def test_details_keep_their_order_and_their_own_keys_and_name_every_bad_job_key() -> None:
    given = {"paper": "silk", "product": " Menus ", "notes": "  ", "quantity": "40"}
    assert validation.details(given) == {"paper": "silk", "product": "Menus", "quantity": 40}
    with pytest.raises(DomainError) as refused:
        validation.details({"product": "P" * 201, "quantity": 0, "colours": ["cmyk"]})
    assert [e.field for e in each(refused.value)] == [
        "details.product",
        "details.quantity",
        "details.colours",
    ]


def test_the_job_wins_and_a_field_it_holds_as_none_is_removed() -> None:
    details = {"product": "Flyers", "quantity": 500, "paper": "silk"}
    job = dict.fromkeys(validation.JOB_FIELDS) | {"product": "Posters"}
    assert validation.with_job(details, job) == {"product": "Posters", "paper": "silk"}
