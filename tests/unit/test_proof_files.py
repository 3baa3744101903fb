"""The proof file checks without a server: what a name becomes, what PDFs are refused, and
that files are examined on the examiner's own thread, a bounded number at a time."""

import asyncio
import hashlib
import io
import threading

import pytest
from fpdf import FPDF
from PIL import Image

from api.proof_files import (
    EXAMINERS,
    PREVIEW_EDGE,
    WAITING,
    Examiner,
    ExaminersBusy,
    _reduced,
    clean_name,
    examine,
)
from domain.errors import DomainError

LIMIT = 25 * 1024 * 1024


def pdf(**encryption: str) -> bytes:
    doc = FPDF()
    doc.add_page()
    doc.set_font("helvetica", size=20)
    doc.cell(40, 10, "Proof")
    if encryption:
        doc.set_encryption(**encryption)
    return bytes(doc.output())


def png(size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, "navy").save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("C:\\Users\\zoe\\Proof v2.pdf", "Proof v2.pdf"),
        ("../../etc/passwd.pdf", "passwd.pdf"),
        ("name\x00with\r\ncontrols\u202e.pdf", "namewithcontrols.pdf"),
        ("  spaced.pdf  ", "spaced.pdf"),
        ("x" * 300 + ".pdf", "x" * 196 + ".pdf"),
        (None, ""),
    ],
)
def test_a_name_is_its_last_part_without_controls(given: str | None, kept: str) -> None:
    assert clean_name(given) == kept


def test_a_name_without_an_extension_gets_the_contents() -> None:
    assert examine(io.BytesIO(png()), "artwork", LIMIT).file_name == "artwork.png"
    assert examine(io.BytesIO(png()), None, LIMIT).file_name == "proof.png"
    assert examine(io.BytesIO(pdf()), "Proof.PDF", LIMIT).file_name == "Proof.PDF"


def test_a_pdf_with_a_password_is_refused_in_words() -> None:
    with pytest.raises(DomainError) as refused:
        examine(io.BytesIO(pdf(owner_password="o", user_password="secret")), "p.pdf", LIMIT)
    assert refused.value.code == "DAMAGED_FILE"
    assert "damaged or has a password" in refused.value.message


def test_an_image_is_measured_and_hashed() -> None:
    data = png((40, 30))
    found = examine(io.BytesIO(data), "a.png", LIMIT)
    assert (found.width, found.height, found.size_bytes) == (40, 30, len(data))
    assert found.sha256 == hashlib.sha256(data).digest()
    with pytest.raises(DomainError) as refused:
        examine(io.BytesIO(data), "a.png", len(data) - 1)
    assert refused.value.code == "FILE_TOO_LARGE"


@pytest.mark.parametrize(
    ("mode", "kind", "shown"),
    [("P", "PNG", "RGBA"), ("1", "PNG", "RGB"), ("LA", "PNG", "LA"), ("CMYK", "JPEG", "RGB")],
)
def test_a_preview_is_a_png_that_keeps_what_shows_through(mode: str, kind: str, shown: str) -> None:
    made = Image.new(mode, (50, 40))
    if mode == "P":
        made.info["transparency"] = 0
    out = io.BytesIO()
    made.save(out, format=kind)
    found = examine(io.BytesIO(out.getvalue()), f"a.{kind.lower()}", LIMIT)
    preview = Image.open(io.BytesIO(found.preview))
    assert (preview.format, preview.mode, preview.size) == ("PNG", shown, (50, 40))


class HeldFile(io.BytesIO):
    """A good file whose first read waits until the test lets it go, noting the thread."""

    def __init__(
        self, data: bytes, started: threading.Event, release: threading.Event, seen: list[str]
    ) -> None:
        super().__init__(data)
        self.started = started
        self.release = release
        self.seen = seen

    def read(self, size: int | None = -1) -> bytes:
        if not self.release.is_set():
            self.seen.append(threading.current_thread().name)
            self.started.set()
            self.release.wait(30)
        return super().read(size)


async def test_files_are_examined_on_the_examiners_thread_a_bounded_number_at_once() -> None:
    examiner = Examiner()
    started, release = threading.Event(), threading.Event()
    seen: list[str] = []
    data = png()
    held = [
        asyncio.ensure_future(
            examiner.examine(HeldFile(data, started, release, seen), "a.png", LIMIT)
        )
        for _ in range(EXAMINERS + WAITING)
    ]
    # Once the first is being examined, every one of them has taken its place.
    assert await asyncio.to_thread(started.wait, 30)
    # The line is full: the next is refused at once, without waiting for a place.
    with pytest.raises(ExaminersBusy):
        await examiner.examine(io.BytesIO(data), "b.png", LIMIT)
    release.set()
    done = await asyncio.gather(*held)
    assert [d.media_type for d in done] == ["image/png"] * len(held)
    assert seen and all(name.startswith("proof") for name in seen)
    assert threading.current_thread().name not in seen
    # Every place came back: the next file is examined.
    assert (await examiner.examine(io.BytesIO(data), "c.png", LIMIT)).file_name == "c.png"


@pytest.mark.parametrize(
    ("mode", "size"), [("RGB", (2953, 2953)), ("RGBA", (4000, 3000)), ("L", (1700, 5000))]
)
def test_an_image_reduced_a_band_at_a_time_is_the_image_reduced_at_once(
    mode: str, size: tuple[int, int]
) -> None:
    """The bands join without a seam: each is cut with the rows its filter reads."""
    ramp = Image.linear_gradient("L").resize(size)
    across = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90).resize(size)
    image = Image.merge("RGB", (ramp, across, ramp)).convert(mode)
    banded = _reduced(image, PREVIEW_EDGE)
    whole = image.resize(banded.size, Image.Resampling.BICUBIC)
    assert max(banded.size) == PREVIEW_EDGE
    assert (banded.mode, banded.tobytes()) == (whole.mode, whole.tobytes())


def test_an_image_within_the_preview_is_copied_as_it_is() -> None:
    image = Image.linear_gradient("L")
    reduced = _reduced(image, PREVIEW_EDGE)
    assert reduced is not image
    assert reduced.tobytes() == image.tobytes()
