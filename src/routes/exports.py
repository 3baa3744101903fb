"""CSV exports beside GraphQL: `/export/work-orders.csv`, `/export/transitions.csv` and
`/export/ledger.csv`, for Accounts and admins, with the same bearer token. Streamed: rows
are written as the database cursor hands them over."""

import csv
import io
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from api.ids import decode_text
from api.rules import READS_LEDGER
from api.services import Services
from db import exports as db_exports
from db import reads
from db.engine import reading
from domain import exports, flow
from domain.validation import invalid, label
from routes.endpoints import guarded

Row = Callable[[Any], list[str]]


def _csv(
    header: list[str], batches: AsyncIterator[Sequence[Any]], row: Row
) -> AsyncIterator[bytes]:
    async def lines() -> AsyncIterator[bytes]:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(header)
        async for batch in batches:
            writer.writerows(row(r) for r in batch)
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue().encode()

    return lines()


def _moment(request: Request, name: str) -> datetime:
    given = request.query_params.get(name)
    if not given:
        raise invalid(
            f"Give the {label(name)} of the window, e.g. {name}=2026-11-01T00:00:00Z.", name
        )
    try:
        return datetime.fromisoformat(given)
    except ValueError:
        raise invalid(
            f"The {label(name)} of the window is not a date and time: '{given}'.", name
        ) from None


def routes(services: Services) -> list[Route]:
    zone = services.time_zone

    def download(
        name: str, header: list[str], statement: str, params: dict[str, Any], row: Row
    ) -> Response:
        body = _csv(header, db_exports.stream(services.engine, statement, params), row)
        return StreamingResponse(
            body,
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    async def work_orders(request: Request) -> Response:
        window = flow.window(_moment(request, "from"), _moment(request, "to"))
        now = datetime.now(UTC)
        return download(
            f"work-orders-{window.start.date()}-{window.end.date()}.csv",
            exports.WORK_ORDERS,
            "export_work_orders",
            {"from": window.start, "to": window.end},
            lambda r: exports.work_order(r, zone, now, services.currency),
        )

    async def transitions(request: Request) -> Response:
        window = flow.window(_moment(request, "from"), _moment(request, "to"))
        return download(
            f"transitions-{window.start.date()}-{window.end.date()}.csv",
            exports.TRANSITIONS,
            "export_task_transitions",
            {"from": window.start, "to": window.end},
            lambda r: exports.transition(r, zone),
        )

    async def ledger(request: Request) -> Response:
        given = request.query_params.get("customerId") or ""
        pk = decode_text(given, "Customer")
        async with reading(services.engine) as conn:
            found = await reads.customers(conn, [pk]) if pk is not None else []
        if not found:
            raise invalid(f"No customer has the id '{given}'.", "customerId")
        return download(
            f"ledger-{found[0].id}.csv",
            exports.LEDGER,
            "export_ledger",
            {"customer_id": found[0].id},
            lambda r: exports.ledger_entry(r, zone),
        )

    return [
        Route("/export/work-orders.csv", guarded(services, READS_LEDGER, work_orders)),
        Route("/export/transitions.csv", guarded(services, READS_LEDGER, transitions)),
        Route("/export/ledger.csv", guarded(services, READS_LEDGER, ledger)),
    ]
