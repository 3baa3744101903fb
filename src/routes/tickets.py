"""Job tickets: the paper that travels with a job. Its QR code (segno) points at the order's
page; `GET /orders/{id}/ticket.pdf` makes the ticket as a PDF (fpdf2) for printing from
scripts, `GET /tickets.pdf?ids=...` a selection's tickets in one PDF (one a page), and the
app prints the same ticket from the browser (`WorkOrder.ticket`)."""

import asyncio
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import segno
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from api.errors import error_response, try_again
from api.ids import decode_text
from api.links import order_url
from api.rules import STAFF
from api.services import Services
from db import reads
from db.background import defer_to_the_floor
from db.engine import reading
from db.rows import WorkOrderRow
from domain.due import completed_at, paper_due
from domain.enums import TaskStatus, WorkOrderPriority, WorkOrderStatus
from domain.jobs import detail_lines, job_line
from domain.routing import on_order
from domain.validation import invalid
from routes.endpoints import guarded

if TYPE_CHECKING:
    from fpdf import FPDF

FONTS = Path(__file__).resolve().parent / "fonts"
PAPERS = {"a4": "A4", "letter": "Letter"}
MARGIN = 15.0
QR_SIZE = 45.0
DETAIL_LINE = 6.0
# A value longer than this is cut before it is measured: a page holds far less anyway.
MAX_VALUE_CHARS = 2000
CUT = "… the rest is on the order page (the address below)."
# Renders at once (fpdf2 is pure Python: more threads only share the GIL), and how many
# more may wait their turn; past that a ticket is refused at once with 503.
RENDERERS = 2
WAITING = 8
RETRY_AFTER_SECONDS = 2
# Tickets in one PDF: a day's selection from the work-order list, and no more, since one
# render holds a renderer for each page.
MAX_TICKETS = 50


@dataclass(frozen=True)
class Ticket:
    number: str
    customer: str
    job_line: str | None
    details: list[tuple[str, str]]
    due: str | None
    rush: bool
    departments: list[str]
    url: str


def title(tickets: list[Ticket]) -> str:
    """What the document is, as its title and (with .pdf) its file name say."""
    first = tickets[0].number
    if len(tickets) == 1:
        return f"Job ticket {first}"
    return f"Job tickets {first} and {len(tickets) - 1} more"


def pdf(tickets: list[Ticket], paper: str) -> bytes:
    """One page a ticket, in the order given."""
    # Imported at the first ticket, not at start: fpdf2 and its font tools take a quarter
    # of a second of a core to import, in every server process, for a ticket now and then.
    from fpdf import FPDF

    doc = FPDF(format=paper, unit="mm")
    doc.set_title(title(tickets))
    doc.set_creator("Pressroom")
    doc.add_font("DejaVu", "", str(FONTS / "DejaVuSans.ttf"))
    doc.add_font("DejaVu", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
    doc.set_margins(MARGIN, MARGIN, MARGIN)
    doc.set_auto_page_break(False)
    for ticket in tickets:
        _page(doc, ticket)
    return bytes(doc.output())


def _page(doc: "FPDF", ticket: Ticket) -> None:
    """One page, whatever the order holds: the number large, the rush mark, the QR code,
    customer, job, due date, details, and a box to tick for each department. Details that
    do not fit are cut, with a line saying the rest is on the order page."""
    doc.add_page()
    text_width = doc.w - 2 * MARGIN - QR_SIZE - 5
    png = io.BytesIO()
    segno.make(ticket.url, error="m").save(png, kind="png", scale=10, border=2)
    png.seek(0)
    doc.image(png, x=doc.w - MARGIN - QR_SIZE, y=MARGIN, w=QR_SIZE, h=QR_SIZE)
    doc.set_font("DejaVu", "B", 34)
    doc.cell(text_width, 16, ticket.number, new_x="LMARGIN", new_y="NEXT")
    if ticket.rush:
        doc.set_fill_color(0, 0, 0)
        doc.set_text_color(255, 255, 255)
        doc.set_font("DejaVu", "B", 18)
        doc.cell(30, 10, "RUSH", align="C", fill=True, new_x="LMARGIN", new_y="NEXT")
        doc.set_text_color(0, 0, 0)
    doc.set_font("DejaVu", "B", 16)
    doc.multi_cell(text_width, 8, ticket.customer, new_x="LMARGIN", new_y="NEXT")
    doc.set_font("DejaVu", "", 14)
    if ticket.job_line:
        doc.multi_cell(text_width, 7, ticket.job_line, new_x="LMARGIN", new_y="NEXT")
    if ticket.due:
        doc.set_font("DejaVu", "B", 14)
        doc.multi_cell(text_width, 7, ticket.due, new_x="LMARGIN", new_y="NEXT")
    doc.set_y(max(doc.get_y(), MARGIN + QR_SIZE) + 6)
    width = doc.w - 2 * MARGIN
    doc.set_font("DejaVu", "", 8)
    url_lines = _lines(doc, width, ticket.url)
    # The departments and the address go below the details, so the details get what is left.
    bottom = doc.h - MARGIN - (8 + 9 * len(ticket.departments) + 4 + 4 * len(url_lines))
    if ticket.details:
        doc.set_font("DejaVu", "B", 13)
        doc.cell(width, 8, "Details", new_x="LMARGIN", new_y="NEXT")
        room = int((bottom - 4 - doc.get_y()) // DETAIL_LINE)
        rows = _detail_rows(doc, width - 50, ticket.details, room + 1)
        if len(rows) > room:
            rows = [*rows[: max(room - 1, 0)], ("", CUT)]
        for label, line in rows:
            doc.set_font("DejaVu", "B", 11)
            doc.cell(50, DETAIL_LINE, label)
            doc.set_font("DejaVu", "", 11)
            doc.cell(width - 50, DETAIL_LINE, line, new_x="LMARGIN", new_y="NEXT")
        doc.ln(4)
    doc.set_font("DejaVu", "B", 13)
    doc.cell(width, 8, "Departments", new_x="LMARGIN", new_y="NEXT")
    doc.set_font("DejaVu", "", 13)
    for name in ticket.departments:
        doc.rect(MARGIN, doc.get_y() + 1.5, 6, 6)
        doc.set_x(MARGIN + 9)
        doc.cell(width - 9, 9, name, new_x="LMARGIN", new_y="NEXT")
    doc.ln(4)
    doc.set_font("DejaVu", "", 8)
    for line in url_lines:
        doc.cell(width, 4, line, new_x="LMARGIN", new_y="NEXT")


def _lines(doc: "FPDF", width: float, text: str) -> list[str]:
    """`text` wrapped as it would print at `width` in the current font."""
    lines = doc.multi_cell(width, DETAIL_LINE, text, dry_run=True, output="LINES")
    assert isinstance(lines, list)
    return lines


def _detail_rows(
    doc: "FPDF", width: float, details: list[tuple[str, str]], enough: int
) -> list[tuple[str, str]]:
    """The details as printed lines (the label beside a value's first), measured only
    until there are `enough`."""
    rows: list[tuple[str, str]] = []
    for label, value in details:
        doc.set_font("DejaVu", "", 11)
        for i, line in enumerate(_lines(doc, width, value[:MAX_VALUE_CHARS])):
            rows.append((label if i == 0 else "", line))
        if len(rows) >= enough:
            break
    return rows


class Press:
    """Renders tickets off the event loop, on threads of its own: RENDERERS at once and
    WAITING more in line. Past that, `render` answers None at once (the caller answers 503
    with Retry-After) rather than keeping a longer line of requests waiting."""

    def __init__(self) -> None:
        self._threads = ThreadPoolExecutor(
            RENDERERS, thread_name_prefix="ticket", initializer=defer_to_the_floor
        )
        # Released when the render ends, in its thread, even if its request went away.
        self._places = threading.BoundedSemaphore(RENDERERS + WAITING)

    async def render(self, tickets: list[Ticket], paper: str) -> bytes | None:
        if not self._places.acquire(blocking=False):
            return None
        future = self._threads.submit(pdf, tickets, paper)
        future.add_done_callback(lambda _: self._places.release())
        return await asyncio.wrap_future(future)


async def load_tickets(services: Services, work_order_ids: list[int]) -> dict[int, Ticket]:
    """The tickets of the orders that exist among `work_order_ids`, by id: four reads
    however many."""
    async with reading(services.engine) as conn:
        orders = await reads.work_orders(conn, work_order_ids)
        customers = await reads.customers(conn, sorted({o.customer_id for o in orders}))
        tasks = await reads.tasks_of_work_orders(conn, [o.id for o in orders])
        names = {d.id: d.name for d in await reads.all_departments(conn)}
    customer_names = {c.id: c.name for c in customers}
    return {
        order.id: Ticket(
            number=order.order_number,
            customer=customer_names[order.customer_id],
            job_line=job_line(order.details),
            details=detail_lines(order.details),
            due=_due(order, services.time_zone),
            rush=WorkOrderPriority(order.priority) is WorkOrderPriority.RUSH,
            departments=[
                names[t.department_id]
                for t in tasks
                if t.work_order_id == order.id and on_order(TaskStatus(t.status))
            ],
            url=order_url(services.public_url, order.id),
        )
        for order in orders
    }


def _due(order: WorkOrderRow, zone: ZoneInfo) -> str | None:
    status = WorkOrderStatus(order.status)
    return paper_due(status, order.due_at, completed_at(status, order.last_completed_at), zone)


def busy() -> Response:
    return try_again(
        "Too many tickets are being printed; try again in a moment.", RETRY_AFTER_SECONDS
    )


def paper_of(request: Request) -> str:
    paper = PAPERS.get(request.query_params.get("paper", "a4").lower())
    if paper is None:
        raise invalid("Choose A4 or Letter paper.", "paper")
    return paper


def ids_of(request: Request) -> list[str]:
    """`?ids=a,b,c` (or `ids` given more than once): each id once, in the order given."""
    given = [i.strip() for value in request.query_params.getlist("ids") for i in value.split(",")]
    ids = list(dict.fromkeys(i for i in given if i))
    if not ids:
        raise invalid("Choose the work orders to print: ?ids= and their ids.", "ids")
    if len(ids) > MAX_TICKETS:
        raise invalid(
            f"Choose at most {MAX_TICKETS} work orders for one PDF ({len(ids)} were chosen).",
            "ids",
        )
    return ids


def unknown(ids: list[str]) -> Response:
    """404 naming every id given that names no work order."""
    quoted = ", ".join(repr(i) for i in ids)
    if len(ids) == 1:
        return error_response(f"No work order has the id {quoted}.", 404)
    return error_response(f"No work order has these ids: {quoted}.", 404)


def routes(services: Services) -> list[Route]:
    press = Press()

    async def answer(tickets: list[Ticket], paper: str) -> Response:
        rendered = await press.render(tickets, paper)
        if rendered is None:
            return busy()
        name = title(tickets).replace(" ", "-") + ".pdf"
        return Response(
            rendered,
            media_type="application/pdf",
            headers={"content-disposition": f'inline; filename="{name}"'},
        )

    async def ticket_pdf(request: Request) -> Response:
        paper = paper_of(request)
        given = request.path_params["id"]
        pk = decode_text(given, "WorkOrder")
        found = await load_tickets(services, [pk]) if pk is not None else {}
        if pk not in found:
            return unknown([given])
        return await answer([found[pk]], paper)

    async def tickets_pdf(request: Request) -> Response:
        paper = paper_of(request)
        ids = ids_of(request)
        pks = {given: decode_text(given, "WorkOrder") for given in ids}
        found = await load_tickets(services, [pk for pk in pks.values() if pk is not None])
        missing = [given for given, pk in pks.items() if pk not in found]
        if missing:
            return unknown(missing)
        return await answer([found[pk] for pk in pks.values() if pk is not None], paper)

    return [
        Route("/orders/{id}/ticket.pdf", guarded(services, STAFF, ticket_pdf)),
        Route("/tickets.pdf", guarded(services, STAFF, tickets_pdf)),
    ]
