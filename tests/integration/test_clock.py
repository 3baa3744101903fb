"""The shop's clock (pressroom_now()): a transaction may stamp what it writes at a moment
already past, never one to come, and the setting ends with the transaction."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from db import clock, people
from domain.enums import DepartmentKind


async def _department(engine: AsyncEngine, code: str, at: datetime | None) -> datetime:
    """Creates a department (stamped `at` when given) and returns its created_at, on one
    connection so the next transaction reuses it."""
    async with engine.connect() as conn:
        async with conn.begin():
            if at is not None:
                await clock.stamp_as_of(conn, at)
            await people.create_department(
                conn, code, code.title(), DepartmentKind.PRODUCTION, False
            )
        async with conn.begin():
            stamped = await conn.scalar(
                text("SELECT created_at FROM departments WHERE code = :code"), {"code": code}
            )
            unset = await conn.scalar(text("SELECT current_setting('pressroom.as_of', true)"))
    assert unset in (None, "")
    return stamped


async def test_a_transaction_stamps_its_writes_at_a_moment_past(clean_db: AsyncEngine) -> None:
    past = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    assert await _department(clean_db, "print", past) == past


async def test_without_it_the_transaction_stamps_its_own_time(clean_db: AsyncEngine) -> None:
    before = datetime.now(UTC)
    stamped = await _department(clean_db, "print", None)
    assert before - timedelta(seconds=1) <= stamped <= datetime.now(UTC)


async def test_a_moment_to_come_is_refused_and_nothing_is_written(clean_db: AsyncEngine) -> None:
    with pytest.raises(DBAPIError, match="is in the future"):
        await _department(clean_db, "print", datetime.now(UTC) + timedelta(hours=1))
    async with clean_db.connect() as conn:
        assert await conn.scalar(text("SELECT count(*) FROM departments")) == 0
