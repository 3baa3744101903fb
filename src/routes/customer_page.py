"""The customer's page, `/c/{secret}`: one work order as its customer sees it, served as
HTML by the server itself (it works without JavaScript; the page's one script,
src/routes/static/customer/customer.js, formats times in the shop's locale and refreshes).

What a link reaches is its order's page, its state (`/c/{secret}/state`, polled at most
once a minute) and its proof versions' files and previews
(`/c/{secret}/proofs/{version}/file|preview`, under routes/proofs.py's sandboxing policy),
nothing else: no ids in any address, no names of the shop's people.
A secret no link has is a 404 counted against the address (routes/customer_policy.py);
a revoked or expired link's page says so, and how to reach the shop (410). Every answer
is `Cache-Control: no-store`, `Referrer-Policy: no-referrer` (the secret is in the
address), `X-Content-Type-Options: nosniff`, and carries a CSP that allows this host's
script and style only.
"""

import hashlib
import html
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import parse_qs
from zoneinfo import ZoneInfo

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from api.services import Services
from api.throttle import Refusal
from db import customer_links, proofs, reads
from db.customer_links import Opened
from db.engine import reading, unavailable, unit_of_work
from db.proof_decisions import decide
from db.proofs import Part
from db.rows import CustomerLinkRow, ProofRow
from domain.customer_view import JobFacts, JobTask, stage
from domain.enums import DepartmentKind, ProofStatus, TaskStatus, WorkOrderStatus
from domain.errors import DomainError, ErrorCode
from domain.jobs import job_line
from domain.validation import MAX_NAME, MAX_REASON
from domain.words import CUSTOMER_PROOF, CUSTOMER_STAGE
from routes.customer_policy import CustomerPagePolicy
from routes.proofs import proof_response

# What customer_links.new_secret makes: anything else names no link, unread.
SECRET = re.compile(r"[A-Za-z0-9_-]{43}")
PAGE_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
STATIC = "/static/customer"
UNAVAILABLE_RETRY_SECONDS = 30


def harden(response: Response) -> Response:
    """The headers of every answer; a proof's file keeps its own sandboxing policy."""
    response.headers["cache-control"] = "no-store"
    response.headers["referrer-policy"] = "no-referrer"
    response.headers["x-content-type-options"] = "nosniff"
    response.headers["x-robots-tag"] = "noindex"
    response.headers.setdefault("content-security-policy", PAGE_POLICY)
    return response


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


@dataclass(frozen=True)
class Shop:
    name: str
    contact: str | None
    locale: str
    zone: ZoneInfo

    def reach(self) -> str:
        return self.contact or f"Please contact {self.name}."


def _time(moment: datetime, shop: Shop, style: str) -> str:
    """A moment in the shop's zone; the page's script rewrites it in the shop's locale (in
    whose language it is then read out)."""
    local = moment.astimezone(shop.zone)
    return (
        f'<time datetime="{_e(local.isoformat())}" data-style="{style}" '
        f'lang="{_e(shop.locale)}">'
        f"{local:%Y-%m-%d %H:%M}</time>"
    )


def _document(shop: Shop, title: str, body: str, *, footer: bool = True) -> str:
    foot = f"<footer><p>Questions? {_e(shop.reach())}</p></footer>\n" if footer else ""
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="robots" content="noindex">\n'
        f"<title>{_e(title)}</title>\n"
        f'<link rel="stylesheet" href="{STATIC}/customer.css">\n'
        f'<script type="module" src="{STATIC}/customer.js"></script>\n'
        "</head>\n"
        f'<body data-locale="{_e(shop.locale)}" data-zone="{_e(shop.zone.key)}">\n'
        f'<header class="shop"><p>{_e(shop.name)}</p></header>\n'
        f"{body}\n{foot}"
        "</body>\n</html>\n"
    )


def notice_page(shop: Shop, title: str, message: str) -> str:
    """A page that says why there is nothing to show (a link that no longer works)."""
    body = (
        f'<main id="main"><h1>{_e(title)}</h1><p>{_e(message)}</p>'
        f'<p class="reach">{_e(shop.reach())}</p></main>'
    )
    return _document(shop, f"{title} · {shop.name}", body, footer=False)


@dataclass(frozen=True)
class OrderView:
    """What the page shows of one order."""

    number: str
    job_line: str | None
    due_at: datetime | None
    stage: str
    proofs: list[ProofRow]  # newest first


async def load_view(services: Services, link: CustomerLinkRow) -> OrderView:
    async with reading(services.engine) as conn:
        [order] = await reads.work_orders(conn, [link.work_order_id])
        tasks = await reads.tasks_of_work_orders(conn, [order.id])
        departments = {d.id: d for d in await reads.all_departments(conn)}
        versions = await proofs.proofs_of_work_orders(conn, [order.id])
    makers = reads.proof_makers_of(departments.values())
    job = JobFacts(
        status=WorkOrderStatus(order.status),
        held=order.held_at is not None,
        needs_transport=order.needs_transport,
        tasks=[
            JobTask(
                DepartmentKind(departments[t.department_id].kind),
                TaskStatus(t.status),
                designs=t.department_id in makers,
            )
            for t in tasks
        ],
        latest_proof=ProofStatus(versions[0].status) if versions else None,
    )
    return OrderView(
        number=order.order_number,
        job_line=job_line(order.details),
        due_at=order.due_at,
        stage=CUSTOMER_STAGE[stage(job)],
        proofs=versions,
    )


KINDS = {"application/pdf": "PDF", "image/png": "PNG", "image/jpeg": "JPEG"}


def _size(size_bytes: int) -> str:
    if size_bytes < 1_000_000:
        return f"{max(1, round(size_bytes / 1000))} kB"
    return f"{size_bytes / 1_000_000:.1f} MB"


@dataclass(frozen=True)
class Given:
    """What the customer sent with a decision that was refused: written back into the form."""

    approve: bool
    name: str
    comment: str


def decision_forms(version: int, secret: str, given: Given | None) -> str:
    """Approve (asking the approver's name) or request changes (asking what, and the
    name): plain forms, which work without the page's script."""
    at = f"/c/{_e(secret)}/proofs/{version}"
    name = _e(given.name) if given else ""
    comment = _e(given.comment) if given else ""
    approving = " open" if given and given.approve else ""
    changing = " open" if given and not given.approve else ""
    return (
        '<div class="decide">'
        '<p class="hint">Please check this version: approve it, or tell us what should '
        "change.</p>"
        f"<details{approving}><summary>Approve Version {version}</summary>"
        f'<form method="post" action="{at}/approve">'
        '<label for="approve-name">Your name</label>'
        '<input id="approve-name" name="name" autocomplete="name" required '
        f'maxlength="{MAX_NAME}" value="{name}">'
        f'<button class="primary" type="submit">Approve Version {version}</button>'
        "</form></details>"
        f"<details{changing}><summary>Request changes</summary>"
        f'<form method="post" action="{at}/changes">'
        '<label for="changes-comment">What should change?</label>'
        f'<textarea id="changes-comment" name="comment" required maxlength="{MAX_REASON}">'
        f"{comment}</textarea>"
        '<label for="changes-name">Your name</label>'
        '<input id="changes-name" name="name" autocomplete="name" required '
        f'maxlength="{MAX_NAME}" value="{name}">'
        '<button type="submit">Send the changes</button>'
        "</form></details></div>"
    )


def proof_article(
    proof: ProofRow, shop: Shop, secret: str, latest: bool, given: Given | None
) -> str:
    """One version: its state (when it was decided, and the changes asked for), its
    preview, its file to download, and for the latest one waiting, the decision."""
    status = ProofStatus(proof.status)
    state = CUSTOMER_PROOF[status]
    if proof.decided_at is not None:
        state += f" on {_time(proof.decided_at, shop, 'moment')}"
    comment = (
        f'<p class="comment">Your comments: {_e(proof.comment)}</p>'
        if status is ProofStatus.CHANGES_REQUESTED and proof.comment
        else ""
    )
    at = f"/c/{_e(secret)}/proofs/{proof.version}"
    title = f"Version {proof.version}"
    decide = (
        decision_forms(proof.version, secret, given)
        if latest and status is ProofStatus.PENDING
        else ""
    )
    kind = KINDS.get(proof.media_type, "file")
    return (
        f'<article aria-labelledby="version-{proof.version}">'
        f'<h3 id="version-{proof.version}">{title}</h3>'
        f'<p class="decision {status.lower()}">{state}</p>{comment}'
        f'<img class="preview" src="{at}/preview" alt="Preview of {title}">'
        f'<a class="button" href="{at}/file" download>'
        f"Download {title} ({kind}, {_size(proof.size_bytes)})</a>"
        f"{decide}</article>"
    )


def order_main(view: OrderView, shop: Shop, secret: str, given: Given | None = None) -> str:
    """The page's content: what changes when the order does (its fingerprint, without
    `given`, is the state's, which the page's script compares)."""
    job = f'<p class="job">{_e(view.job_line)}</p>' if view.job_line else ""
    listed = (
        '<section aria-labelledby="proofs-title" class="proofs">'
        '<h2 id="proofs-title">Proofs</h2>'
        + "".join(proof_article(p, shop, secret, i == 0, given) for i, p in enumerate(view.proofs))
        + "</section>"
        if view.proofs
        else ""
    )
    due = (
        f"<dt>Due</dt><dd>{_time(view.due_at, shop, 'date')}</dd>"
        if view.due_at is not None
        else ""
    )
    return (
        f"<h1>Order {_e(view.number)}</h1>{job}"
        '<section aria-labelledby="where-title" class="where">'
        '<h2 id="where-title">Where your job is</h2>'
        f'<p class="stage" id="stage">{_e(view.stage)}</p>'
        f"<dl>{due}</dl></section>{listed}"
    )


def fingerprint(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Note:
    """A line above the order: a decision recorded, or why it was not."""

    text: str
    refused: bool = False

    def html(self) -> str:
        if self.refused:
            return f'<p class="error" role="alert">{_e(self.text)}</p>'
        return f'<p class="done" role="status">{_e(self.text)}</p>'


def order_page(
    view: OrderView,
    shop: Shop,
    secret: str,
    now: datetime,
    note: Note | None = None,
    given: Given | None = None,
) -> str:
    content = order_main(view, shop, secret)
    shown = content if given is None else order_main(view, shop, secret, given)
    body = (
        f'<main id="main" data-state="/c/{_e(secret)}/state" '
        f'data-fingerprint="{fingerprint(content)}">{note.html() if note else ""}{shown}'
        f'<p class="updated" id="updated">Last updated '
        f"{_time(now, shop, 'time')}</p></main>"
    )
    return _document(shop, f"Order {view.number} · {shop.name}", body)


NO_LONGER = "This link to your order no longer works. If you still need it, ask us for a new one."
# What the page says once a decision is recorded (`?done=`: only these, nothing echoed).
DONE = {
    "approved": "Thank you: your approval is recorded.",
    "changes": "Thank you: we have your comments and will send you a new version.",
}


def refusal(error: DomainError) -> tuple[str, int]:
    """Why a decision was not recorded, in the customer's words, and its HTTP status."""
    if error.code is ErrorCode.INVALID_INPUT:
        if error.field == "comment":
            return f"Please say what should change, in at most {MAX_REASON} characters.", 422
        return f"Please give your name, in at most {MAX_NAME} characters.", 422
    if error.code is ErrorCode.PROOF_SUPERSEDED:
        return "A newer version has arrived since: please look at it below.", 409
    if error.code is ErrorCode.ALREADY_DECIDED:
        return "This version was already decided.", 409
    if error.code is ErrorCode.NOT_FOUND:
        return "This order has no proof of that version.", 404
    if error.code is ErrorCode.WORK_ORDER_CLOSED:
        return "This order is closed: your decision could not be recorded.", 409
    return "Your decision could not be recorded just now: please try again.", 409


Endpoint = Callable[[Request], Awaitable[Response]]
Through = Callable[[Request, CustomerLinkRow], Awaitable[Response]]


def routes(services: Services, policy: CustomerPagePolicy, locale: str) -> list[Route]:
    shop = Shop(policy.shop_name, policy.shop_contact, locale, services.time_zone)

    def notice(
        title: str, message: str, status: int, headers: dict[str, str] | None = None
    ) -> Response:
        page = notice_page(shop, title, message)
        return harden(HTMLResponse(page, status_code=status, headers=headers))

    def too_many(refused: Refusal) -> Response:
        return notice(
            "Too many requests",
            f"Please try again in {refused.retry_after} seconds.",
            429,
            {"retry-after": str(refused.retry_after)},
        )

    async def opened(request: Request) -> Opened | Response:
        """The link the request's secret names, if the limits let the request through."""
        address = request.client.host if request.client else ""
        refused = await policy.addresses.admit(address)
        if refused is not None:
            return too_many(refused)
        secret = request.path_params["secret"]
        found = None
        if SECRET.fullmatch(secret):
            async with unit_of_work(services.engine, transaction=False) as conn:
                found = await customer_links.open_link(conn, secret, services.customer_link_days)
        if found is None:
            await policy.addresses.failed(address)
            return notice(
                "This link does not work",
                "Please check that the whole address was copied.",
                404,
            )
        refused = await policy.admit_link(found.link.id)
        if refused is not None:
            return too_many(refused)
        return found

    def through(endpoint: Through) -> Endpoint:
        """`endpoint` for a request whose link works; a page saying why not otherwise."""

        async def answer(request: Request) -> Response:
            try:
                found = await opened(request)
                if isinstance(found, Response):
                    return found
                if found.link.revoked_at is not None:
                    return notice("This link was withdrawn", NO_LONGER, 410)
                if not found.works:
                    return notice("This link has expired", NO_LONGER, 410)
                return harden(await endpoint(request, found.link))
            except Exception as error:
                if not unavailable(error):
                    raise
                return notice(
                    "Your order cannot be shown right now",
                    "Please try again in a minute.",
                    503,
                    {"retry-after": str(UNAVAILABLE_RETRY_SECONDS)},
                )

        return answer

    async def page(request: Request, link: CustomerLinkRow) -> Response:
        view = await load_view(services, link)
        secret = request.path_params["secret"]
        done = DONE.get(request.query_params.get("done", ""))
        note = Note(done) if done else None
        return HTMLResponse(order_page(view, shop, secret, datetime.now(UTC), note))

    def deciding(approve: bool) -> Through:
        async def decide_version(request: Request, link: CustomerLinkRow) -> Response:
            form = parse_qs((await request.body()).decode("utf-8", "replace"))
            given = Given(
                approve,
                form.get("name", [""])[0],
                "" if approve else form.get("comment", [""])[0],
            )
            secret = request.path_params["secret"]
            try:
                async with unit_of_work(services.engine) as conn:
                    await decide(
                        conn,
                        work_order_id=link.work_order_id,
                        version=request.path_params["version"],
                        approve=approve,
                        comment=given.comment or None,
                        decided_by_name=given.name,
                        sales_user_id=None,
                        customer_link_id=link.id,
                    )
            except DomainError as error:
                message, status = refusal(error)
                view = await load_view(services, link)
                page = order_page(view, shop, secret, datetime.now(UTC), Note(message, True), given)
                return HTMLResponse(page, status_code=status)
            if services.feed is not None:
                services.feed.poke()
            done = "approved" if approve else "changes"
            # After a POST, a GET: reloading the page never sends the decision again.
            return RedirectResponse(f"/c/{secret}?done={done}", status_code=303)

        return decide_version

    async def state(request: Request, link: CustomerLinkRow) -> Response:
        view = await load_view(services, link)
        return JSONResponse(
            {
                "stage": view.stage,
                "fingerprint": fingerprint(order_main(view, shop, request.path_params["secret"])),
                "checkedAt": datetime.now(UTC).isoformat(),
            }
        )

    def version_part(part: Part) -> Through:
        async def send(request: Request, link: CustomerLinkRow) -> Response:
            version = request.path_params["version"]
            async with reading(services.engine) as conn:
                versions = await proofs.proofs_of_work_orders(conn, [link.work_order_id])
            for proof in versions:
                if proof.version == version:
                    return proof_response(services.engine, proof, part)
            return notice("No such version", "This order has no proof of that version.", 404)

        return send

    return [
        Route("/c/{secret}", through(page)),
        Route("/c/{secret}/state", through(state)),
        Route("/c/{secret}/proofs/{version:int}/file", through(version_part(Part.FILE))),
        Route("/c/{secret}/proofs/{version:int}/preview", through(version_part(Part.PREVIEW))),
        Route(
            "/c/{secret}/proofs/{version:int}/approve", through(deciding(True)), methods=["POST"]
        ),
        Route(
            "/c/{secret}/proofs/{version:int}/changes", through(deciding(False)), methods=["POST"]
        ),
    ]
