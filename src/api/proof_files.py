"""What a proof file is, judged by its bytes alone (never its name or the type it was sent
as): a PDF, a PNG or a JPEG, whole, of at most PRESSROOM_PROOF_MAX_MB and, for an image,
of at most MAX_PIXELS; and its preview, a PNG of a PDF's first page (pypdfium2) or of the
image re-encoded (Pillow). Examining decodes the file, so it runs off the event loop on
one thread of its own (PDFium may not be used from two threads at once; an image at the
pixel limit takes about 160 MB to decode whole), with a short line waiting for it."""

import asyncio
import hashlib
import io
import math
import threading
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, BinaryIO, Protocol

import pypdfium2
from PIL import Image, ImageOps, ImagePalette

from api import png_bands, rules
from api.viewer import Viewer
from db.background import defer_to_the_floor, give_back_memory
from db.proofs import NewProof
from domain.errors import DomainError, ErrorCode

PDF = "application/pdf"
PNG = "image/png"
JPEG = "image/jpeg"
# The first bytes of each kind accepted. A PDF must start with its header (the standard
# lets readers look further in; a proof made by any tool of today starts with it).
MAGIC = {b"%PDF-": PDF, b"\x89PNG\r\n\x1a\n": PNG, b"\xff\xd8\xff": JPEG}
NAMES = {PDF: "a PDF", PNG: "a PNG image", JPEG: "a JPEG image"}
EXTENSIONS = {PDF: (".pdf",), PNG: (".png",), JPEG: (".jpg", ".jpeg")}
PILLOW_FORMATS = {PNG: "PNG", JPEG: "JPEG"}
# 40 megapixels: an A2 poster at 300 dpi (35 MP) fits; a decompression bomb (a small file
# that claims billions of pixels) is refused from its header, before anything is decoded.
MAX_PIXELS = 40_000_000
# The preview's longer edge, in pixels: sharp on a phone, small enough to send at once.
PREVIEW_EDGE = 1600
# A PDF ends with %%EOF (and perhaps a line end or some padding): one that does not was
# cut short, and PDFium would quietly show what it could of it.
PDF_TAIL = 1024
NAME_LENGTH = 200
READ_BYTES = 1024 * 1024
EXAMINERS = 1
WAITING = 4
RETRY_AFTER_SECONDS = 2


@dataclass(frozen=True)
class Examined:
    """A file found good: what its row records, and its preview (a PNG, in memory: at most
    a few MB at PREVIEW_EDGE)."""

    file_name: str
    media_type: str
    size_bytes: int
    sha256: bytes
    width: int | None  # an image's pixels; None for a PDF
    height: int | None
    preview: bytes


class ExaminersBusy(Exception):
    """Every examiner is busy and the line is full: try again in a moment."""

    retry_after = RETRY_AFTER_SECONDS


def _refuse(code: ErrorCode, message: str) -> DomainError:
    return DomainError(code, message, "file")


def clean_name(name: str | None) -> str:
    """The name a file is kept and offered under: its last path part, without control
    characters, at most NAME_LENGTH characters (its extension kept)."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(c for c in base if unicodedata.category(c)[0] != "C").strip()
    if len(base) > NAME_LENGTH:
        suffix = PurePosixPath(base).suffix[:10]
        base = base[: NAME_LENGTH - len(suffix)] + suffix
    return base


def _named(name: str, media_type: str) -> str:
    """`name` if its extension says what the bytes are (one is added when it has none);
    refused when it says something else: the file would open as what it is not."""
    suffix = PurePosixPath(name).suffix.lower()
    if not suffix:
        return f"{name or 'proof'}{EXTENSIONS[media_type][0]}"
    if suffix not in EXTENSIONS[media_type]:
        raise _refuse(
            ErrorCode.UNSUPPORTED_FILE,
            f"The file is named '{name}', but its content is {NAMES[media_type]}: give it "
            f"a name ending in {' or '.join(EXTENSIONS[media_type])}, or upload the file "
            "its name says.",
        )
    return name


def _kind(head: bytes) -> str:
    for magic, media_type in MAGIC.items():
        if head.startswith(magic):
            return media_type
    raise _refuse(
        ErrorCode.UNSUPPORTED_FILE,
        "The file is not a PDF, PNG or JPEG (judged by its content, not its name).",
    )


def _measure(file: BinaryIO, max_bytes: int) -> tuple[int, bytes]:
    size, digest = 0, hashlib.sha256()
    file.seek(0)
    while data := file.read(READ_BYTES):
        size += len(data)
        if size > max_bytes:
            raise _refuse(ErrorCode.FILE_TOO_LARGE, too_large(max_bytes))
        digest.update(data)
    return size, digest.digest()


def too_large(max_bytes: int) -> str:
    """What a file over the limit is told, whether its upload said so or its bytes did."""
    return f"The file is larger than {max_bytes // (1024 * 1024)} MB, the most a proof may be."


def _png(image: Image.Image) -> bytes:
    # zlib's fastest level: encoding a 1,600 px preview at the default level took most of
    # an upload's examining, and held the floor's startTask p99 at 9.5x its own beside
    # PNG uploads back to back (1.9x so; bench.customer). A preview is seen, not kept.
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _pdf_preview(file: BinaryIO, size: int) -> bytes:
    file.seek(max(0, size - PDF_TAIL))
    if b"%%EOF" not in file.read():
        raise _refuse(
            ErrorCode.DAMAGED_FILE,
            "The PDF is incomplete (it does not end with %%EOF): it was cut short, perhaps "
            "while it was being saved or sent. Upload it again.",
        )
    file.seek(0)
    try:
        document = pypdfium2.PdfDocument(file)
    except pypdfium2.PdfiumError:
        raise _refuse(
            ErrorCode.DAMAGED_FILE, "The PDF cannot be opened: it is damaged or has a password."
        ) from None
    try:
        if len(document) == 0:
            raise _refuse(ErrorCode.DAMAGED_FILE, "The PDF has no pages.")
        page = document[0]
        width, height = page.get_size()
        bitmap = page.render(scale=PREVIEW_EDGE / max(width, height, 1.0))
        return _png(bitmap.to_pil())
    except pypdfium2.PdfiumError:
        raise _refuse(
            ErrorCode.DAMAGED_FILE, "The PDF's first page cannot be drawn: it is damaged."
        ) from None
    finally:
        document.close()


def _image_preview(file: BinaryIO, media_type: str) -> tuple[int, int, bytes]:
    file.seek(0)
    damaged = _refuse(
        ErrorCode.DAMAGED_FILE,
        f"The file starts as {NAMES[media_type]} but cannot be decoded: it is damaged or was "
        "cut short. Upload it again.",
    )
    try:
        with Image.open(file, formats=[PILLOW_FORMATS[media_type]]) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise _too_many_pixels(f"{width:,} x {height:,} pixels")
            # Decoding it is what proves it whole (a cut file fails there).
            reduced = _reduced(_rows(file, image, media_type), PREVIEW_EDGE)
            # Its full-size pixels freed if it was decoded whole (leaving the block keeps
            # them; ImageFile.close would also close the caller's file): turned as its EXIF
            # says only now, the preview is what is turned, in place (a copy of it would be
            # 0.4 times a PNG of noise's file size more at the examination's peak).
            Image.Image.close(image)
        # And what decoding freed handed back before the preview is encoded beside it: the
        # allocator kept up to 0.14 times the file's size of a PNG's bands otherwise.
        give_back_memory()
        ImageOps.exif_transpose(reduced, in_place=True)
        if reduced.mode not in ("RGB", "RGBA", "L", "LA"):
            see_through = "A" in reduced.getbands() or "transparency" in reduced.info
            reduced = reduced.convert("RGBA" if see_through else "RGB")
        return width, height, _png(reduced)
    except DomainError:
        raise
    except Image.DecompressionBombError:
        # Pillow's own guard, far above ours, refuses the largest before we see their size.
        raise _too_many_pixels("billions of pixels") from None
    except (OSError, SyntaxError, ValueError, EOFError):
        raise damaged from None


class Rows(Protocol):
    """What an image is reduced from: its decoded pixels, or a PNG decoded a band of rows at
    a time (png_bands), whose rows are asked for top to bottom and whose palette and info
    are read once its last row has been."""

    @property
    def mode(self) -> str: ...

    @property
    def size(self) -> tuple[int, int]: ...

    @property
    def palette(self) -> ImagePalette.ImagePalette | None: ...

    @property
    def info(self) -> dict[str | tuple[int, int], Any]: ...

    def crop(self, box: tuple[int, int, int, int]) -> Image.Image: ...


def _rows(file: BinaryIO, image: Image.Image, media_type: str) -> Rows:
    """A PNG of the common kind decoded a band at a time: its full-size pixels (4 bytes a
    pixel, 1.33 times the file's size for a PNG of noise) never held at once. Any other
    image decoded whole; a JPEG at a fraction of its scale where that still leaves twice
    the preview's edge."""
    if media_type == PNG and (bands := png_bands.banded(file, image)) is not None:
        return bands
    image.draft(None, (2 * PREVIEW_EDGE, 2 * PREVIEW_EDGE))
    image.load()
    return image


# Output rows reduced at a time, and the source rows around each band that the filter
# reads (bicubic reads 2 on each side, at the source's scale).
BAND_ROWS = 32
FILTER_REACH = 2


def _reduced(rows: Rows, edge: int) -> Image.Image:
    """A copy of the image no larger than `edge` on its longer side, resampled a band of
    rows at a time: Pillow resamples across, then down, through a copy of the full height
    at the new width, 0.7 times a PNG of noise's file size held beside the decoded pixels.
    Each band is cut with the rows its filter reads beyond it, so the bands join as one
    resampling of the whole would."""
    width, height = rows.size
    scale = max(width, height) / edge
    if scale <= 1:
        reduced = rows.crop((0, 0, width, height))
    else:
        size = (max(1, round(width / scale)), max(1, round(height / scale)))
        step = height / size[1]
        reach = math.ceil(FILTER_REACH * max(step, 1.0)) + 1
        reduced = Image.new(rows.mode, size)
        for top in range(0, size[1], BAND_ROWS):
            bottom = min(top + BAND_ROWS, size[1])
            first, last = top * step, bottom * step
            cut_top = max(0, math.floor(first) - reach)
            cut_bottom = min(height, math.ceil(last) + reach)
            band = rows.crop((0, cut_top, width, cut_bottom))
            box = (0.0, first - cut_top, float(width), last - cut_top)
            reduced.paste(
                band.resize((size[0], bottom - top), Image.Resampling.BICUBIC, box), (0, top)
            )
    if rows.palette is not None:
        reduced.putpalette(rows.palette)
    reduced.info = dict(rows.info)
    return reduced


def _too_many_pixels(size: str) -> DomainError:
    return _refuse(
        ErrorCode.FILE_TOO_LARGE,
        f"The image is {size}; a proof may have at most {MAX_PIXELS:,} pixels "
        "(e.g. 8,000 x 5,000).",
    )


def examine(file: BinaryIO, name: str | None, max_bytes: int) -> Examined:
    """The file judged, or a DomainError saying what is wrong with it. Blocking: decodes."""
    file.seek(0)
    media_type = _kind(file.read(16))
    file_name = _named(clean_name(name), media_type)
    size, sha256 = _measure(file, max_bytes)
    if media_type == PDF:
        preview = _pdf_preview(file, size)
        width = height = None
    else:
        width, height, preview = _image_preview(file, media_type)
    return Examined(file_name, media_type, size, sha256, width, height, preview)


def _examine_and_give_back(file: BinaryIO, name: str | None, max_bytes: int) -> Examined:
    try:
        return examine(file, name, max_bytes)
    finally:
        give_back_memory()


class Examiner:
    """Examines files on a thread of its own, EXAMINERS at once and WAITING more in line;
    past that it refuses at once (ExaminersBusy) rather than keep a longer line waiting."""

    def __init__(self) -> None:
        self._threads = ThreadPoolExecutor(
            EXAMINERS, thread_name_prefix="proof", initializer=defer_to_the_floor
        )
        # Released when the examination ends, in its thread, even if its request went away.
        self._places = threading.BoundedSemaphore(EXAMINERS + WAITING)

    async def examine(self, file: BinaryIO, name: str | None, max_bytes: int) -> Examined:
        if not self._places.acquire(blocking=False):
            raise ExaminersBusy
        future = self._threads.submit(_examine_and_give_back, file, name, max_bytes)
        future.add_done_callback(lambda _: self._places.release())
        return await asyncio.wrap_future(future)


def new_proof(examined: Examined, work_order_id: int, viewer: Viewer) -> NewProof:
    """The row of a file found good, uploaded by `viewer`: Sales and admins may add it to any
    order, others to the orders whose proofs their department makes."""
    return NewProof(
        work_order_id=work_order_id,
        file_name=examined.file_name,
        media_type=examined.media_type,
        size_bytes=examined.size_bytes,
        sha256=examined.sha256,
        width=examined.width,
        height=examined.height,
        uploaded_by=viewer.user_id,
        any_order=rules.SALES.admits(viewer),
    )
