"""CSV exports beside GraphQL: `/export/work-orders.csv`, `/export/transitions.csv` and
`/export/ledger.csv`, for Accounts and admins, with the same bearer token. Streamed: rows
are written as the database cursor hands them over. For people by default: UTF-8 with a
byte order mark (Excel on Windows reads the file as UTF-8 only then), headers and statuses
in words; `?headers=keys` gives machines the column keys and the API's names, without the
mark, as the files always were."""

import csv
import io
import unicodedata
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

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


BOM = "\ufeff"
FORMS = {"words": False, "keys": True}


def _csv(
    header: list[str], batches: AsyncIterator[Sequence[Any]], row: Row, bom: bool
) -> AsyncIterator[bytes]:
    async def lines() -> AsyncIterator[bytes]:
        buffer = io.StringIO()
        if bom:
            buffer.write(BOM)
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


def _keys(request: Request) -> bool:
    """Whether the caller asked for the machines' form (`headers=keys`)."""
    given = request.query_params.get("headers", "words")
    if given not in FORMS:
        raise invalid(
            f"Ask for the file with headers in words (headers=words, for people) or as keys "
            f"(headers=keys, for scripts), not “{given}”.",
            "headers",
        )
    return FORMS[given]


def disposition(name: str) -> str:
    """An attachment named `name` (RFC 6266): `filename` in ASCII for clients that read
    only that (accents dropped, other letters as `_`), `filename*` the name itself
    (UTF-8, RFC 8187), which clients that know it prefer."""
    name = "".join("-" if c in '/\\"' or not c.isprintable() else c for c in name)
    plain = "".join(
        c if c.isascii() else "" if unicodedata.combining(c) else "_"
        for c in unicodedata.normalize("NFKD", name)
    )
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe='')}"


def routes(services: Services) -> list[Route]:
    zone = services.time_zone

    def download(
        request: Request,
        name: str,
        columns: exports.Columns,
        statement: str,
        params: dict[str, Any],
        row: Callable[[Any, bool], list[str]],
    ) -> Response:
        keys = _keys(request)
        rows = db_exports.stream(services.engine, statement, params)
        body = _csv(exports.header(columns, keys), rows, lambda r: row(r, keys), not keys)
        return StreamingResponse(
            body,
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": disposition(name)},
        )

    async def work_orders(request: Request) -> Response:
        window = flow.window(_moment(request, "from"), _moment(request, "to"))
        now = datetime.now(UTC)
        return download(
            request,
            f"work-orders-{window.start.date()}-{window.end.date()}.csv",
            exports.WORK_ORDERS,
            "export_work_orders",
            {"from": window.start, "to": window.end},
            lambda r, keys: exports.work_order(r, zone, now, services.currency, keys),
        )

    async def transitions(request: Request) -> Response:
        window = flow.window(_moment(request, "from"), _moment(request, "to"))
        return download(
            request,
            f"transitions-{window.start.date()}-{window.end.date()}.csv",
            exports.TRANSITIONS,
            "export_task_transitions",
            {"from": window.start, "to": window.end},
            lambda r, keys: exports.transition(r, zone, keys),
        )

    async def ledger(request: Request) -> Response:
        given = request.query_params.get("customerId") or ""
        pk = decode_text(given, "Customer")
        async with reading(services.engine) as conn:
            found = await reads.customers(conn, [pk]) if pk is not None else []
        if not found:
            raise invalid(f"No customer has the id '{given}'.", "customerId")
        return download(
            request,
            f"ledger-{found[0].name}.csv",
            exports.LEDGER,
            "export_ledger",
            {"customer_id": found[0].id},
            lambda r, keys: exports.ledger_entry(r, zone, keys),
        )

    return [
        Route("/export/work-orders.csv", guarded(services, READS_LEDGER, work_orders)),
        Route("/export/transitions.csv", guarded(services, READS_LEDGER, transitions)),
        Route("/export/ledger.csv", guarded(services, READS_LEDGER, ledger)),
    ]
