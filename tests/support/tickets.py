"""Job tickets as the tests fetch and read them: an order's PDF over HTTP, and its page's
text, QR code and size."""

import io

import httpx
import pypdf
import zxingcpp
from PIL import Image


async def ticket_pdf(
    http: httpx.AsyncClient, base: str, order: str, token: str | None, **params: str
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return await http.get(f"{base}/orders/{order}/ticket.pdf", params=params, headers=headers)


def read(pdf: bytes) -> tuple[str, list[str], tuple[float, float]]:
    """The page's text, what its QR code decodes to, and its size in points."""
    page = pypdf.PdfReader(io.BytesIO(pdf)).pages[0]
    image = Image.open(io.BytesIO(page.images[0].data))
    codes = [found.text for found in zxingcpp.read_barcodes(image)]
    return page.extract_text(), codes, (float(page.mediabox.width), float(page.mediabox.height))
