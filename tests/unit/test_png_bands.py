"""A PNG of the common kind decoded a band of rows at a time: its preview is the preview of
the image decoded whole, byte for byte, and a file that is not whole is refused as it
would be, or where Pillow let it through (a missing IEND, rows missing, a zlib stream that
does not end), refused all the same."""

import io
import os
import struct
import zlib
from collections.abc import Callable

import pytest
from PIL import Image, ImageCms

from api import png_bands
from api.proof_files import PREVIEW_EDGE, examine
from domain.errors import DomainError

LIMIT = 25 * 1024 * 1024
# Bands of a few kB of rows: images a few dozen pixels wide then make many bands.
SMALL_BAND = 4096
CHANNELS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "P": 1}
COLOR_TYPES = {"L": 0, "LA": 4, "RGB": 2, "RGBA": 6, "P": 3}
DAMAGED = (
    "The file starts as a PNG image but cannot be decoded: it is damaged or was cut short. "
    "Upload it again."
)


@pytest.fixture
def small_bands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(png_bands, "BAND_BYTES", SMALL_BAND)


def band_rows(mode: str, width: int) -> int:
    return SMALL_BAND // (1 + width * CHANNELS[mode])


def picture(mode: str, size: tuple[int, int]) -> Image.Image:
    """Ramps across and down with noise: every filter finds something to do."""
    ramp = Image.linear_gradient("L").resize(size)
    across = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90).resize(size)
    noise = Image.frombytes("L", size, os.urandom(size[0] * size[1]))
    colour = Image.merge("RGB", (ramp, across, Image.blend(ramp, noise, 0.3)))
    if mode == "P":
        return colour.quantize(200)
    image = colour.convert(mode)
    if "A" in mode:
        image.putalpha(Image.blend(across, noise, 0.5))
    return image


def chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body)
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    found, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        found.append((png[at + 4 : at + 8], png[at + 8 : at + 8 + length]))
        at += 12 + length
    return found


def assemble(parts: list[tuple[bytes, bytes]]) -> bytes:
    return png_bands.SIGNATURE + b"".join(chunk(kind, body) for kind, body in parts)


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filtered(rows: list[bytes], step: int, kind_of_row: Callable[[int], int]) -> bytes:
    """The rows as a PNG encoder writes them, each with the filter `kind_of_row` names."""
    out = bytearray()
    prior = bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = kind_of_row(y)
        out.append(kind)
        for i, x in enumerate(row):
            a = row[i - step] if i >= step else 0
            c = prior[i - step] if i >= step else 0
            guess = (0, a, prior[i], (a + prior[i]) // 2, paeth(a, prior[i], c))[kind]
            out.append((x - guess) % 256)
        prior = row
    return bytes(out)


def image_chunks(
    image: Image.Image, kind_of_row: Callable[[int], int], **extra: bytes
) -> list[tuple[bytes, bytes]]:
    """The chunks of `image` as a PNG, its rows filtered as `kind_of_row` says, its image
    data in IDATs of 1,000 bytes (and its palette, and the `extra` chunks, before them)."""
    width, height = image.size
    stride = width * CHANNELS[image.mode]
    raw = image.tobytes()
    rows = [raw[y * stride : (y + 1) * stride] for y in range(height)]
    data = zlib.compress(filtered(rows, CHANNELS[image.mode], kind_of_row))
    header = struct.pack(">IIBBBBB", width, height, 8, COLOR_TYPES[image.mode], 0, 0, 0)
    found = [(b"IHDR", header)]
    if image.mode == "P":
        found.append((b"PLTE", bytes(image.getpalette() or [])))
    found += [(kind.encode(), body) for kind, body in extra.items()]
    found += [(b"IDAT", data[at : at + 1000]) for at in range(0, len(data), 1000)]
    return [*found, (b"IEND", b"")]


def previews(png: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """Its preview decoded a band at a time, and decoded whole."""
    with Image.open(io.BytesIO(png)) as opened:
        assert png_bands.banded(io.BytesIO(png), opened) is not None
    banded = examine(io.BytesIO(png), "a.png", LIMIT).preview
    with monkeypatch.context() as whole:
        whole.setattr(png_bands, "banded", lambda file, image: None)
        return banded, examine(io.BytesIO(png), "a.png", LIMIT).preview


# Widths of a few dozen pixels and heights past the preview's edge: reduced, from many
# bands; each band's rows filtered as one kind, so that a band's first row unfilters
# against the band before's last row with every kind of filter in turn.
@pytest.mark.parametrize("mode", list(CHANNELS))
@pytest.mark.parametrize("height", ["a multiple of the band", "not a multiple of the band"])
def test_a_png_decoded_a_band_at_a_time_previews_as_decoded_whole(
    mode: str, height: str, small_bands: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    width = 24
    rows = band_rows(mode, width)
    bands = -(-(PREVIEW_EDGE + 1) // rows)
    size = (width, bands * rows + (0 if height == "a multiple of the band" else rows // 3))
    png = assemble(image_chunks(picture(mode, size), lambda y: y // rows % 5))
    banded, whole = previews(png, monkeypatch)
    assert banded == whole
    assert Image.open(io.BytesIO(banded)).height == PREVIEW_EDGE


@pytest.mark.parametrize(
    ("mode", "see_through"),
    [("P", b"\x00\x80" + b"\xff" * 10), ("P", b"\xff" * 5 + b"\x00"), ("L", b"\x00\x07")],
    ids=["palette entries of every alpha", "one clear palette entry", "one clear grey"],
)
def test_what_shows_through_is_kept_band_by_band(
    mode: str, see_through: bytes, small_bands: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    png = assemble(image_chunks(picture(mode, (30, 700)), lambda y: y % 5, tRNS=see_through))
    banded, whole = previews(png, monkeypatch)
    assert banded == whole
    assert Image.open(io.BytesIO(banded)).mode == ("RGBA" if mode == "P" else "L")


@pytest.mark.parametrize("mode", list(CHANNELS))
def test_an_image_within_the_preview_is_kept_as_it_is_band_by_band(
    mode: str, small_bands: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = picture(mode, (40, 333))
    banded, whole = previews(assemble(image_chunks(image, lambda y: y % 5)), monkeypatch)
    assert banded == whole
    shown = Image.open(io.BytesIO(banded))
    assert shown.tobytes() == image.convert(shown.mode).tobytes()


def test_pillows_own_png_decoded_in_bands_of_the_size_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = io.BytesIO()
    picture("RGB", (1900, 700)).save(out, format="PNG")
    assert out.getvalue().count(b"IDAT") > 1
    banded, whole = previews(out.getvalue(), monkeypatch)
    assert banded == whole


def test_what_follows_the_image_data_is_read_as_pillow_reads_it(
    small_bands: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EXIF after the image data (a phone's orientation: turned a quarter), and text; an
    ICC profile before it, kept in the preview."""
    exif = Image.Exif()
    exif[0x0112] = 6
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    parts = image_chunks(
        picture("RGB", (40, 1700)), lambda y: y % 5, iCCP=b"sRGB\x00\x00" + zlib.compress(profile)
    )
    after = [(b"eXIf", exif.tobytes()[6:]), (b"tEXt", b"Comment\x00hello")]
    banded, whole = previews(assemble(parts[:-1] + after + parts[-1:]), monkeypatch)
    assert banded == whole
    shown = Image.open(io.BytesIO(banded))
    assert shown.size == (PREVIEW_EDGE, round(40 * PREVIEW_EDGE / 1700))
    assert shown.info["icc_profile"] == profile


def test_other_pngs_are_decoded_whole(small_bands: None) -> None:
    """16 bits a sample, 1 bit a pixel, an animation, a row wider than a band."""
    grey = picture("L", (30, 20))
    made: list[bytes] = []
    for image, options in [
        (grey.convert("I;16"), {}),
        (grey.convert("1"), {}),
        (grey, {"save_all": True, "append_images": [grey.rotate(180)]}),
        (picture("L", (SMALL_BAND, 20)), {}),
    ]:
        out = io.BytesIO()
        image.save(out, format="PNG", **options)
        made.append(out.getvalue())
    for png in made:
        with Image.open(io.BytesIO(png)) as opened:
            assert png_bands.banded(io.BytesIO(png), opened) is None
        assert examine(io.BytesIO(png), "a.png", LIMIT).height == 20


def damaged_variants() -> dict[str, Callable[[list[tuple[bytes, bytes]]], bytes]]:
    """Ways a PNG's chunks are not whole; the rows' data inflates to 24 x 700 RGB."""

    def rows_inflated(parts: list[tuple[bytes, bytes]]) -> bytes:
        return zlib.decompress(b"".join(body for kind, body in parts if kind == b"IDAT"))

    def with_image_data(parts: list[tuple[bytes, bytes]], data: bytes) -> bytes:
        head = [part for part in parts if part[0] not in (b"IDAT", b"IEND")]
        return assemble([*head, (b"IDAT", data), (b"IEND", b"")])

    def cut(parts: list[tuple[bytes, bytes]]) -> bytes:
        png = assemble(parts)
        return png[: png.index(b"IDAT", len(png) // 2) + 500]

    def flipped(parts: list[tuple[bytes, bytes]]) -> bytes:
        png = bytearray(assemble(parts))
        png[png.index(b"IDAT", len(png) // 2) + 10] ^= 0x10
        return bytes(png)

    def unended(parts: list[tuple[bytes, bytes]]) -> bytes:
        packer = zlib.compressobj()
        return with_image_data(
            parts, packer.compress(rows_inflated(parts)) + packer.flush(zlib.Z_SYNC_FLUSH)
        )

    def bad_crc_after(parts: list[tuple[bytes, bytes]]) -> bytes:
        png = assemble([*parts[:-1], (b"tEXt", b"Comment\x00hi"), *parts[-1:]])
        at = png.index(b"tEXt") + 4 + len(b"Comment\x00hi")
        return png[:at] + b"\x00\x00\x00\x00" + png[at + 4 :]

    return {
        "cut in the middle of the image data": cut,
        "a byte flipped in an IDAT": flipped,
        "no IEND": lambda parts: assemble(parts[:-1]),
        "rows missing": lambda parts: with_image_data(
            parts, zlib.compress(rows_inflated(parts)[: 600 * (1 + 24 * 3)])
        ),
        "rows more than its height": lambda parts: with_image_data(
            parts, zlib.compress(rows_inflated(parts) * 2)
        ),
        "a zlib stream that does not end": unended,
        "a bad CRC after the image data": bad_crc_after,
    }


@pytest.mark.parametrize("damage", list(damaged_variants()))
def test_a_png_not_whole_is_refused_as_damaged(damage: str, small_bands: None) -> None:
    parts = image_chunks(picture("RGB", (24, 700)), lambda y: y % 5)
    assert examine(io.BytesIO(assemble(parts)), "a.png", LIMIT).height == 700
    with pytest.raises(DomainError) as refused:
        examine(io.BytesIO(damaged_variants()[damage](parts)), "a.png", LIMIT)
    assert (refused.value.code, refused.value.message) == ("DAMAGED_FILE", DAMAGED)


def test_a_bomb_of_eight_bit_rows_is_refused_before_it_is_decoded() -> None:
    """7,000 x 6,000 grey zeros: 42 MB of rows in a file of 42 kB."""
    row = bytes(1 + 7000)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(6000)) + packer.flush()
    png = assemble(
        [
            (b"IHDR", struct.pack(">IIBBBBB", 7000, 6000, 8, 0, 0, 0, 0)),
            (b"IDAT", data),
            (b"IEND", b""),
        ]
    )
    with pytest.raises(DomainError) as refused:
        examine(io.BytesIO(png), "bomb.png", LIMIT)
    assert refused.value.code == "FILE_TOO_LARGE"
