"""The customer's page, `/c/{secret}`: one work order as its customer sees it, served as
HTML by the server itself (routes/customer_render.py writes it, in the shop's language; it
works without JavaScript; the page's one script, src/routes/static/customer/customer.js,
formats times in the shop's locale and refreshes).

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

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from urllib.parse import parse_qs

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
from db.rows import CustomerLinkRow
from domain.customer_view import JobFacts, JobTask, stage
from domain.enums import DepartmentKind, ProofStatus, TaskStatus, WorkOrderStatus
from domain.errors import DomainError
from domain.jobs import job_line
from routes.customer_policy import CustomerPagePolicy
from routes.customer_render import (
    DONE,
    Given,
    Note,
    OrderView,
    Shop,
    fingerprint,
    notice_page,
    order_main,
    order_page,
    refusal,
    stage_words,
)
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
UNAVAILABLE_RETRY_SECONDS = 30


def harden(response: Response) -> Response:
    """The headers of every answer; a proof's file keeps its own sandboxing policy."""
    response.headers["cache-control"] = "no-store"
    response.headers["referrer-policy"] = "no-referrer"
    response.headers["x-content-type-options"] = "nosniff"
    response.headers["x-robots-tag"] = "noindex"
    response.headers.setdefault("content-security-policy", PAGE_POLICY)
    return response


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
        stage=stage(job),
        proofs=versions,
    )


Endpoint = Callable[[Request], Awaitable[Response]]
Through = Callable[[Request, CustomerLinkRow], Awaitable[Response]]


def routes(services: Services, policy: CustomerPagePolicy, locale: str) -> list[Route]:
    shop = Shop(policy.shop_name, policy.shop_contact, locale, services.time_zone)
    words = shop.words

    def notice(
        title: str, message: str, status: int, headers: dict[str, str] | None = None
    ) -> Response:
        page = notice_page(shop, title, message)
        return harden(HTMLResponse(page, status_code=status, headers=headers))

    def too_many(refused: Refusal) -> Response:
        return notice(
            words("notice.too_many_title"),
            words("notice.too_many", seconds=refused.retry_after),
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
                words("notice.broken_title"),
                words("notice.broken"),
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
                    return notice(words("notice.withdrawn_title"), words("notice.no_longer"), 410)
                if not found.works:
                    return notice(words("notice.expired_title"), words("notice.no_longer"), 410)
                return harden(await endpoint(request, found.link))
            except Exception as error:
                if not unavailable(error):
                    raise
                return notice(
                    words("notice.unavailable_title"),
                    words("notice.unavailable"),
                    503,
                    {"retry-after": str(UNAVAILABLE_RETRY_SECONDS)},
                )

        return answer

    async def page(request: Request, link: CustomerLinkRow) -> Response:
        view = await load_view(services, link)
        secret = request.path_params["secret"]
        done = DONE.get(request.query_params.get("done", ""))
        note = Note(words(done)) if done else None
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
                message, status = refusal(error, words)
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
                "stage": stage_words(view, shop),
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
            return notice(words("notice.no_version_title"), words("notice.no_version"), 404)

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
