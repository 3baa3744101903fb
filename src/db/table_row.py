"""The base of every row type in db/rows.py: a row made alike whichever way it was read (a
SQLAlchemy statement, asyncpg itself, or a JSON object PostgreSQL built for a page's
read-ahead). Only JSON's values need converting (its timestamps are text, its whole
doubles integers); a column that JSON would give back changed is refused."""

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

import sqlalchemy as sa
from sqlalchemy import Row

from db.tables.columns import TEXTS_ONLY

R = TypeVar("R", bound="TableRow")


class TableRow:
    __slots__ = ()
    table: ClassVar[sa.Table]
    extra: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def of(cls: type[R], found: Row[Any] | Mapping[str, Any]) -> R:
        """From a SQLAlchemy row, or a mapping of column names (an asyncpg record too)."""
        values = found._mapping if isinstance(found, Row) else found
        return cls(**values)

    @classmethod
    def maybe(cls: type[R], found: Row[Any] | Mapping[str, Any] | None) -> R | None:
        return None if found is None else cls.of(found)

    @classmethod
    def all(cls: type[R], found: Iterable[Row[Any] | Mapping[str, Any]]) -> list[R]:
        return [cls.of(row) for row in found]

    @classmethod
    def pick(cls: type[R], found: Row[Any] | Mapping[str, Any]) -> R:
        """From a row that has more than this type's fields (a write's RETURNING with
        its event payload): only those (an `extra` it lacks keeps its default)."""
        values = found._mapping if isinstance(found, Row) else found
        return cls(**{name: values[name] for name in _names(cls) if name in values})

    @classmethod
    def from_json(cls: type[R], objects: list[dict[str, Any]] | None) -> list[R]:
        """From the JSON objects PostgreSQL made of the rows (`to_jsonb`). Only timestamps
        differ from what asyncpg reads: JSON has them as text, in the session's time zone."""
        stamps = _timestamps(cls.table)
        doubles = [c.name for c in cls.table.columns if isinstance(c.type, sa.Float)]
        rows = []
        for values in objects or ():
            for name in stamps:
                text = values[name]
                if text is not None:
                    moment = datetime.fromisoformat(text)
                    values[name] = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
            for name in doubles:
                if values[name] is not None:
                    values[name] = float(values[name])
            rows.append(cls(**values))
        return rows


_NAMES: dict[type[TableRow], tuple[str, ...]] = {}


def _names(kind: type[TableRow]) -> tuple[str, ...]:
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))  # type: ignore[arg-type]
    return names


# Column types that come out of JSON as asyncpg reads them (numbers here are 64-bit;
# a double is written as the shortest text that reads back exactly, whole ones without a
# point, so from_json makes them floats), alone or in arrays; and JSON columns marked
# TEXTS_ONLY (no number in them to come back changed).
_AS_IN_JSON = (sa.Integer, sa.Text, sa.Boolean, sa.Float)


def _timestamps(table: sa.Table) -> tuple[str, ...]:
    """The table's timestamp columns. Any other kind of column than these (a numeric,
    bytes, JSON) would come back from JSON changed, and is refused rather than read wrong."""
    for column in table.columns:
        kind = column.type.item_type if isinstance(column.type, sa.ARRAY) else column.type
        if column.info.get(TEXTS_ONLY):
            continue
        if not isinstance(kind, (*_AS_IN_JSON, sa.DateTime)) or (
            kind is not column.type and isinstance(kind, sa.DateTime)
        ):
            raise TypeError(f"{table.name}.{column.name} cannot be read back from JSON as is")
    return tuple(c.name for c in table.columns if isinstance(c.type, sa.DateTime))
