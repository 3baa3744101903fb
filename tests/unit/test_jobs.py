"""The job line a queue and a wall display show for a work order."""

from typing import Any

import pytest

from domain.jobs import MAX_JOB_LINE, job_line


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
