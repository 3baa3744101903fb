"""The customer's page as HTML (routes/customer_page.py serves it): one order as its
customer sees it, and the pages that say why there is nothing to show. Every word comes
from the shop's language's catalogue (domain/customer_words.py); times are written in the
shop's zone, and the page's script rewrites them in the shop's locale."""

import hashlib
import html
import json
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from zoneinfo import ZoneInfo

from babel.numbers import format_decimal

from db.rows import ProofRow
from domain.customer_view import Stage
from domain.customer_words import Words, proof_key, stage_key
from domain.enums import ProofStatus
from domain.errors import DomainError, ErrorCode, each
from domain.validation import MAX_NAME, MAX_REASON

STATIC = "/static/customer"
# The words the page's script writes itself (customer.js reads them from the body): its
# name for each, and the catalogue's.
SCRIPT_WORDS = {
    "changed": "script.changed",
    "show_changes": "script.show_changes",
    "unreachable": "script.unreachable",
    "not_updated": "script.not_updated",
    "updated": "page.updated",
}


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


@dataclass(frozen=True)
class Shop:
    name: str
    contact: str | None
    locale: str
    zone: ZoneInfo

    @cached_property
    def words(self) -> Words:
        return Words(self.locale)

    def reach(self) -> str:
        return self.contact or self.words("page.contact", shop=self.name)


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
    words = shop.words
    foot = (
        f"<footer><p>{_e(words('page.questions', reach=shop.reach()))}</p></footer>\n"
        if footer
        else ""
    )
    script = json.dumps(
        {name: words(key) for name, key in SCRIPT_WORDS.items()}, ensure_ascii=False
    )
    return (
        "<!doctype html>\n"
        f'<html lang="{words.language}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="robots" content="noindex">\n'
        f"<title>{_e(title)}</title>\n"
        f'<link rel="stylesheet" href="{STATIC}/customer.css">\n'
        f'<script type="module" src="{STATIC}/customer.js"></script>\n'
        "</head>\n"
        f'<body data-locale="{_e(shop.locale)}" data-zone="{_e(shop.zone.key)}" '
        f'data-words="{_e(script)}">\n'
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
    stage: Stage
    proofs: list[ProofRow]  # newest first


KINDS = {"application/pdf": "PDF", "image/png": "PNG", "image/jpeg": "JPEG"}


def _size(size_bytes: int, locale: str) -> str:
    if size_bytes < 1_000_000:
        return f"{max(1, round(size_bytes / 1000))} kB"
    number = format_decimal(size_bytes / 1_000_000, format="0.0", locale=locale.replace("-", "_"))
    return f"{number} MB"


@dataclass(frozen=True)
class Given:
    """What the customer sent with a decision that was refused: written back into the form."""

    approve: bool
    name: str
    comment: str


def decision_forms(version: int, secret: str, given: Given | None, words: Words) -> str:
    """Approve (asking the approver's name) or request changes (asking what, and the
    name): plain forms, which work without the page's script."""
    at = f"/c/{_e(secret)}/proofs/{version}"
    name = _e(given.name) if given else ""
    comment = _e(given.comment) if given else ""
    approving = " open" if given and given.approve else ""
    changing = " open" if given and not given.approve else ""
    approve = _e(words("page.approve", version=version))
    your_name = _e(words("page.your_name"))
    return (
        '<div class="decide">'
        f'<p class="hint">{_e(words("page.check"))}</p>'
        f"<details{approving}><summary>{approve}</summary>"
        f'<form method="post" action="{at}/approve">'
        f'<label for="approve-name">{your_name}</label>'
        '<input id="approve-name" name="name" autocomplete="name" required '
        f'maxlength="{MAX_NAME}" value="{name}">'
        f'<button class="primary" type="submit">{approve}</button>'
        f"</form></details>"
        f"<details{changing}><summary>{_e(words('page.request_changes'))}</summary>"
        f'<form method="post" action="{at}/changes">'
        f'<label for="changes-comment">{_e(words("page.what_should_change"))}</label>'
        f'<textarea id="changes-comment" name="comment" required maxlength="{MAX_REASON}">'
        f"{comment}</textarea>"
        f'<label for="changes-name">{your_name}</label>'
        '<input id="changes-name" name="name" autocomplete="name" required '
        f'maxlength="{MAX_NAME}" value="{name}">'
        f'<button type="submit">{_e(words("page.send_changes"))}</button>'
        "</form></details></div>"
    )


def proof_article(
    proof: ProofRow, shop: Shop, secret: str, latest: bool, given: Given | None
) -> str:
    """One version: its state (when it was decided, and the changes asked for), its
    preview, its file to download, and for the latest one waiting, the decision."""
    words = shop.words
    status = ProofStatus(proof.status)
    state = _e(words(proof_key(status)))
    if proof.decided_at is not None:
        # The catalogue's own text needs no escaping; what fills it is escaped already.
        when = _time(proof.decided_at, shop, "moment")
        state = words("page.decided", state=state, when=when)
    comment = (
        f'<p class="comment">{_e(words("page.your_comments", comment=proof.comment))}</p>'
        if status is ProofStatus.CHANGES_REQUESTED and proof.comment
        else ""
    )
    at = f"/c/{_e(secret)}/proofs/{proof.version}"
    decide = (
        decision_forms(proof.version, secret, given, words)
        if latest and status is ProofStatus.PENDING
        else ""
    )
    kind = KINDS.get(proof.media_type) or words("page.file")
    download = words(
        "page.download",
        version=proof.version,
        kind=kind,
        size=_size(proof.size_bytes, shop.locale),
    )
    return (
        f'<article aria-labelledby="version-{proof.version}">'
        f'<h3 id="version-{proof.version}">{_e(words("page.version", version=proof.version))}'
        f'</h3><p class="decision {status.lower()}">{state}</p>{comment}'
        f'<img class="preview" src="{at}/preview" '
        f'alt="{_e(words("page.preview", version=proof.version))}">'
        f'<a class="button" href="{at}/file" download>{_e(download)}</a>'
        f"{decide}</article>"
    )


def stage_words(view: OrderView, shop: Shop) -> str:
    return shop.words(stage_key(view.stage))


def order_main(view: OrderView, shop: Shop, secret: str, given: Given | None = None) -> str:
    """The page's content: what changes when the order does (its fingerprint, without
    `given`, is the state's, which the page's script compares)."""
    words = shop.words
    job = f'<p class="job">{_e(view.job_line)}</p>' if view.job_line else ""
    listed = (
        '<section aria-labelledby="proofs-title" class="proofs">'
        f'<h2 id="proofs-title">{_e(words("page.proofs"))}</h2>'
        + "".join(proof_article(p, shop, secret, i == 0, given) for i, p in enumerate(view.proofs))
        + "</section>"
        if view.proofs
        else ""
    )
    due = (
        f"<dt>{_e(words('page.due'))}</dt><dd>{_time(view.due_at, shop, 'date')}</dd>"
        if view.due_at is not None
        else ""
    )
    return (
        f"<h1>{_e(words('page.order', number=view.number))}</h1>{job}"
        '<section aria-labelledby="where-title" class="where">'
        f'<h2 id="where-title">{_e(words("page.where"))}</h2>'
        f'<p class="stage" id="stage">{_e(stage_words(view, shop))}</p>'
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
        f'<p class="updated" id="updated">{_e(shop.words("page.updated"))} '
        f"{_time(now, shop, 'time')}</p></main>"
    )
    title = shop.words("page.order", number=view.number)
    return _document(shop, f"{title} · {shop.name}", body)


# What the page says once a decision is recorded (`?done=`: only these, nothing echoed).
DONE = {"approved": "page.done_approved", "changes": "page.done_changes"}


def refusal(error: DomainError, words: Words) -> tuple[str, int]:
    """Why a decision was not recorded, in the customer's words, and its HTTP status."""
    if error.code is ErrorCode.INVALID_INPUT:
        # Every problem at once: no comment and no name are two sentences.
        said = [
            words("refused.comment", max=MAX_REASON)
            if one.field == "comment"
            else words("refused.name", max=MAX_NAME)
            for one in each(error)
        ]
        return " ".join(said), 422
    if error.code is ErrorCode.PROOF_SUPERSEDED:
        return words("refused.superseded"), 409
    if error.code is ErrorCode.ALREADY_DECIDED:
        return words("refused.decided"), 409
    if error.code is ErrorCode.NOT_FOUND:
        return words("notice.no_version"), 404
    if error.code is ErrorCode.WORK_ORDER_CLOSED:
        return words("refused.closed"), 409
    return words("refused.other"), 409
