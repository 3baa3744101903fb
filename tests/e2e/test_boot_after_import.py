"""Booting never demotes an admin nor promotes a worker (a bug that really happened in a
system like this: a boot-time migration read the legacy roles to decide whom to demote,
admins had a legacy `manager` role, and every boot demoted every admin).

The legacy import runs over a database that already has people; then `pressroom serve`
boots three times on it. Users and memberships must be exactly what the import left,
boot after boot.
"""

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text

from db import migrate, people, reads
from db.engine import create_engine, unit_of_work
from domain.enums import DepartmentKind
from pressroom.legacy_import import import_legacy
from samples.legacy_data import build_legacy
from tests.support.database import scratch_database
from tests.support.servers import serving
from tests.support.shop import DEPARTMENTS

pytestmark = pytest.mark.e2e

PEOPLE = """
SELECT u.email, u.is_admin, u.is_active, coalesce(u.password_hash, ''),
       coalesce(string_agg(d.code, ',' ORDER BY d.code), '')
FROM users u
LEFT JOIN user_departments ud ON ud.user_id = u.id
LEFT JOIN departments d ON d.id = ud.department_id
GROUP BY u.id ORDER BY u.id
"""


@pytest.fixture
async def databases(server_url: str) -> AsyncIterator[tuple[str, str]]:
    async with (
        scratch_database(server_url, "pressroom_boot_legacy") as legacy,
        scratch_database(server_url, "pressroom_boot") as target,
    ):
        yield legacy, target


async def people_digest(url: str) -> list[tuple[str, bool, bool, str, str]]:
    engine = create_engine(url, pool_size=1, max_overflow=0)
    try:
        async with engine.connect() as conn:
            return [tuple(r) for r in await conn.execute(text(PEOPLE))]  # type: ignore[misc]
    finally:
        await engine.dispose()


async def test_three_boots_after_the_import_change_no_one(databases: tuple[str, str]) -> None:
    legacy, target = databases
    await migrate.upgrade(target)
    engine = create_engine(target, pool_size=1, max_overflow=0)
    try:
        async with unit_of_work(engine) as conn:
            for code, kind, gates in DEPARTMENTS:
                await people.create_department(conn, code, code.title(), kind, gates)
            # People who were here before the import: an admin and a worker.
            await people.create_user(
                conn, email="boss@shop.test", name="Boss", password="long-password",
                is_admin=True, department_ids=[],
            )  # fmt: skip
            print_dept = next(d for d in await reads.all_departments(conn) if d.code == "print")
            assert print_dept.kind == DepartmentKind.PRODUCTION
            await people.create_user(
                conn, email="pat@shop.test", name="Pat", password="long-password",
                is_admin=False, department_ids=[print_dept.id],
            )  # fmt: skip
    finally:
        await engine.dispose()
    expected = await build_legacy(legacy, orders=60)
    await import_legacy(legacy, target)
    after_import = await people_digest(target)
    admins = {email.lower() for email, is_admin, *_ in after_import if is_admin}
    workers = {email.lower() for email, is_admin, *_ in after_import if not is_admin}
    assert expected.admins <= admins
    assert expected.workers <= workers
    assert "boss@shop.test" in admins
    # Every legacy role is represented, so a migration reading them would have had its chance.
    assert len(expected.admins) >= 2 and len(expected.workers) >= 2

    for boot in range(3):
        with serving(None, database_url=target) as (_, lines):
            assert any("Application startup complete" in line for line in lines)
        assert await people_digest(target) == after_import, f"boot {boot + 1} changed people"
