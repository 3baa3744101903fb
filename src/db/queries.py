"""Loads the named statements of queries.sql as SQLAlchemy `text()` constructs.

Keeping every statement in one file makes the SQL reviewable as SQL: a claim is
one guarded statement you can read top to bottom.
"""

import re
from pathlib import Path

import sqlalchemy as sa

_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


def _load(path: Path) -> dict[str, sa.TextClause]:
    source = path.read_text()
    parts = _NAME.split(source)
    statements: dict[str, sa.TextClause] = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        if name in statements:
            raise ValueError(f"statement {name!r} is defined twice in {path.name}")
        statements[name] = sa.text(body.strip())
    return statements


Q = _load(Path(__file__).with_name("queries.sql"))
