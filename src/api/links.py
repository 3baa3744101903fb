"""The app's absolute links and their QR codes: the same on the schema's job ticket and on
the printed one (routes/tickets.py)."""

import io

import segno

from api.ids import encode_id


def order_url(base: str, work_order_id: int) -> str:
    """The order's page in the app, absolute: what a phone opens from the QR code."""
    return f"{base.rstrip('/')}/orders/{encode_id('WorkOrder', work_order_id)}"


def customer_url(base: str, secret: str) -> str:
    """A customer link's page, absolute: what the customer is sent."""
    return f"{base.rstrip('/')}/c/{secret}"


def qr_svg(url: str) -> str:
    """The QR code of `url` as an SVG document, with its namespace so it also stands alone
    as an image (error correction M: a creased ticket still reads)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False, title=url)
    return out.getvalue().decode()


def proof_url(base: str, proof_id: int, part: str) -> str:
    """A proof version's file (`part` "file") or its preview ("preview"), absolute."""
    return f"{base.rstrip('/')}/proofs/{encode_id('Proof', proof_id)}/{part}"
