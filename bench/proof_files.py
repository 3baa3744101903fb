"""The files `python -m bench.customer` uploads as proofs: real ones that pass the server's
checks, each as large as asked, made of random bytes (nothing compresses): a PDF whose
bytes are an attached file its page never draws, a PDF whose one page is a photo, and a
PNG of noise."""

import io
import math
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image

# Just under PRESSROOM_PROOF_MAX_MB's default, 25 MiB.
FILE_BYTES = 25 * 2**20 - 16 * 2**10


def pdf(objects: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1, the first the catalog), with its cross
    reference table and trailer: what a reader needs to open it."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


PAGES_OBJECT = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
A4 = b"/MediaBox [0 0 595 842]"


def pdf_attached(size: int) -> bytes:
    """An A4 page with a coloured box, and a file attached to the document (random bytes)
    that fills it to `size`: the page is drawn without reading the attachment."""

    def made(padding: int) -> bytes:
        return pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R"
                b" /Names << /EmbeddedFiles << /Names [(artwork.bin) 6 0 R] >> >> >>",
                PAGES_OBJECT,
                b"<< /Type /Page /Parent 2 0 R " + A4 + b" /Contents 4 0 R >>",
                stream(b"", b"0.2 0.4 0.8 rg 50 50 495 742 re f"),
                stream(b"/Type /EmbeddedFile", os.urandom(padding)),
                b"<< /Type /Filespec /F (artwork.bin) /UF (artwork.bin) /EF << /F 5 0 R >> >>",
            ]
        )

    padded = made(size - len(made(0)))
    # The padding's length, written in the PDF, may take more digits than 0 did.
    return made(size - len(made(0)) - (len(padded) - size))


def pdf_photo(size: int) -> bytes:
    """An A4 page filled by one RGB image of random pixels, stored Flate-compressed (which
    random bytes do not shrink), as large as fits in `size`."""
    overhead = len(_photo_pdf(1, b"x"))
    side = math.isqrt((size - overhead) * 999 // 1000 // 3)
    data = zlib.compress(os.urandom(side * side * 3), 1)
    made = _photo_pdf(side, data)
    if len(made) > size:
        raise ValueError(f"the photo PDF came out at {len(made):,} bytes, over {size:,}")
    return made


def _photo_pdf(side: int, data: bytes) -> bytes:
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            PAGES_OBJECT,
            b"<< /Type /Page /Parent 2 0 R " + A4 + b" /Resources << /XObject << /Im1 5 0 R >>"
            b" >> /Contents 4 0 R >>",
            stream(b"", b"q 595 0 0 842 0 0 cm /Im1 Do Q"),
            stream(
                b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB"
                b" /BitsPerComponent 8 /Filter /FlateDecode" % (side, side),
                data,
            ),
        ]
    )


def png_noise(size: int) -> bytes:
    """A square PNG of random RGB pixels, stored uncompressed, as large as fits in `size`."""
    side = math.isqrt(size * 999 // 1000 // 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(
        out, format="PNG", compress_level=0
    )
    made = out.getvalue()
    if len(made) > size:
        raise ValueError(f"the PNG came out at {len(made):,} bytes, over {size:,}")
    return made


@dataclass(frozen=True)
class Kind:
    label: str
    file_name: str
    make: Callable[[int], bytes]


KINDS = {
    "pdf-attached": Kind("PDF, 25 MB attached", "attached.pdf", pdf_attached),
    "pdf-photo": Kind("PDF, a 25 MB photo", "photo.pdf", pdf_photo),
    "png": Kind("PNG, 25 MB of noise", "noise.png", png_noise),
}
