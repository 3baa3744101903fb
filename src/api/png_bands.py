"""A PNG decoded a band of rows at a time, so that its full-size pixels never exist at once:
its chunks are read here from the file, a piece at a time, each checked against its CRC;
its image data is inflated no more than a band ahead (a zlib bomb never inflates further);
and each band is decoded by Pillow from a small PNG of its own, whose first row is the
previous band's last, already decoded, so that the band's rows unfilter against the rows
they were filtered against. For the common kind of PNG only: not interlaced, 8 bits a
sample, not animated, a row narrower than a band; Pillow decodes the others whole."""

import struct
import zlib
from collections.abc import Iterator
from io import BytesIO
from typing import Any, BinaryIO

from PIL import Image, ImagePalette

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Samples a pixel, by colour type (grey, RGB, palette, grey and alpha, RGBA).
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# About the bytes of filtered rows decoded at a time: bands of 1 MB took no less time, and
# held 0.05 to 0.18 times a PNG of noise's size more at the peak. An image whose row alone
# is larger is decoded whole (a band's PNG holds its rows several times over).
BAND_BYTES = 256 * 1024
# The most of a chunk read at once.
PIECE_BYTES = 256 * 1024
# What a band's PNG takes of the file's chunks before the image data: what its pixels need.
BEFORE = (b"PLTE", b"tRNS")
# And after it: the chunks Pillow reads into an image's info there (its text, EXIF, colour),
# so that the last band's info has what the whole image's would have had.
AFTER = frozenset(
    (b"iCCP", b"gAMA", b"cHRM", b"sRGB", b"pHYs", b"tRNS", b"tEXt", b"zTXt", b"iTXt", b"eXIf")
)


class DamagedPng(ValueError):
    """The file's chunks or its image data are not whole."""


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(body, zlib.crc32(kind))
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


class PngBands:
    """The rows of a PNG, decoded as they are asked for, top to bottom: what
    proof_files._reduced reads from, as it reads a decoded image. Its palette is the decoded
    bands' and its info the whole file's (the chunks after the image data included) once
    the last row has been asked for."""

    def __init__(
        self,
        file: BinaryIO,
        image: Image.Image,
        color_type: int,
        before: list[tuple[bytes, bytes]],
        image_data: int,
    ) -> None:
        self.mode = image.mode
        self.size = image.size
        self.palette: ImagePalette.ImagePalette | None = None
        self.info: dict[str | tuple[int, int], Any] = dict(image.info)
        self._file = file
        self._color_type = color_type
        self._before = b"".join(_chunk(kind, body) for kind, body in before)
        self._row_bytes = 1 + image.width * CHANNELS[color_type]
        self._band_rows = BAND_BYTES // self._row_bytes
        self._compressed = self._image_data(image_data)
        self._inflater = zlib.decompressobj()
        self._after: tuple[bytes, int] = (b"", 0)
        # The last row decoded, as the next band's first (zeros, as PNG reads above the top).
        self._prior = bytes(self._row_bytes - 1)
        self._decoded = 0
        self._bands: list[tuple[int, Image.Image]] = []

    @property
    def width(self) -> int:
        return self.size[0]

    @property
    def height(self) -> int:
        return self.size[1]

    def crop(self, box: tuple[int, int, int, int]) -> Image.Image:
        """Rows box[1] to box[3], of the full width; the rows above box[1] are let go."""
        _, top, _, bottom = box
        while self._decoded < bottom:
            self._bands.append((self._decoded, self._next_band()))
        self._bands = [(start, band) for start, band in self._bands if start + band.height > top]
        rows = Image.new(self.mode, (self.width, bottom - top))
        for start, band in self._bands:
            rows.paste(band, (0, start - top))  # clipped to `rows`
        return rows

    def _next_band(self) -> Image.Image:
        count = min(self._band_rows, self.height - self._decoded)
        filtered = self._inflate(count * self._row_bytes)
        self._decoded += count
        last = self._decoded == self.height
        after = self._end() if last else b""
        header = struct.pack(">IIBBBBB", self.width, count + 1, 8, self._color_type, 0, 0, 0)
        data = zlib.compress(b"\x00" + self._prior + filtered, 0)
        mini = (
            SIGNATURE
            + _chunk(b"IHDR", header)
            + self._before
            + _chunk(b"IDAT", data)
            + after
            + _chunk(b"IEND", b"")
        )
        with Image.open(BytesIO(mini), formats=["PNG"]) as decoded:
            decoded.load()
            band = decoded.crop((0, 1, self.width, count + 1))
            self._prior = decoded.crop((0, count, self.width, count + 1)).tobytes()
            if self.palette is None:
                self.palette = decoded.palette
            if last:
                self.info.update(decoded.info)
        return band

    def _image_data(self, length: int) -> Iterator[bytes]:
        """The image data, a piece at a time, from the first IDAT's body on; once it has all
        been read, `_after` is the header of the chunk after the last IDAT."""
        kind = b"IDAT"
        while kind == b"IDAT":
            yield from _pieces(self._file, kind, length)
            kind, length = _header(self._file)
        self._after = (kind, length)

    def _inflate(self, size: int) -> bytes:
        """The next `size` bytes of filtered rows, inflated no further."""
        out = bytearray()
        while len(out) < size:
            piece = self._inflater.unconsumed_tail or next(self._compressed, b"")
            if self._inflater.eof or not piece:
                raise DamagedPng("The image data ends before the image's last row.")
            out += self._decompress(piece, size - len(out))
        return bytes(out)

    def _end(self) -> bytes:
        """Checks that the image data ends with the last row (its zlib stream closed, so
        its checksum checked) and that the file ends with IEND; the chunks after the image
        data that a band's PNG takes."""
        while not self._inflater.eof:
            piece = self._inflater.unconsumed_tail or next(self._compressed, b"")
            if not piece:
                raise DamagedPng("The image data's zlib stream does not end.")
            if self._decompress(piece, 1):
                raise DamagedPng("The image data holds more than the image's rows.")
        if self._inflater.unused_data or next(self._compressed, b""):
            raise DamagedPng("The image data goes on after its zlib stream ends.")
        kept = []
        kind, length = self._after
        while kind != b"IEND":
            body = _body(self._file, kind, length, keep=kind in AFTER)
            if kind in AFTER:
                kept.append(_chunk(kind, body))
            kind, length = _header(self._file)
        _body(self._file, kind, length, keep=False)
        return b"".join(kept)

    def _decompress(self, piece: bytes, most: int) -> bytes:
        try:
            return self._inflater.decompress(piece, most)
        except zlib.error as error:
            raise DamagedPng(f"The image data cannot be inflated: {error}") from None


def _read(file: BinaryIO, size: int) -> bytes:
    data = file.read(size)
    if len(data) != size:
        raise DamagedPng("The file ends in the middle of a chunk.")
    return data


def _header(file: BinaryIO) -> tuple[bytes, int]:
    """The next chunk's type and length."""
    length, kind = struct.unpack(">I4s", _read(file, 8))
    return kind, length


def _pieces(file: BinaryIO, kind: bytes, length: int) -> Iterator[bytes]:
    """A chunk's body a piece at a time, checked against its CRC once all read."""
    crc = zlib.crc32(kind)
    while length:
        piece = _read(file, min(length, PIECE_BYTES))
        crc = zlib.crc32(piece, crc)
        length -= len(piece)
        yield piece
    if struct.unpack(">I", _read(file, 4))[0] != crc:
        raise DamagedPng(f"The file's {kind!r} chunk does not match its CRC.")


def _body(file: BinaryIO, kind: bytes, length: int, keep: bool) -> bytes:
    """A chunk's body, checked; only kept if asked (a chunk skipped may be large)."""
    return b"".join(piece for piece in _pieces(file, kind, length) if keep)


def banded(file: BinaryIO, image: Image.Image) -> PngBands | None:
    """The PNG `image`, opened from `file` and not loaded, to decode a band at a time; None
    when it is not of the kind decoded so, or its rows are wider than a band."""
    file.seek(len(SIGNATURE))
    kind, length = _header(file)
    if (kind, length) != (b"IHDR", 13):
        return None
    header = _body(file, kind, length, keep=True)
    depth, color_type, compression, filtering, interlace = header[8:]
    if (depth, compression, filtering, interlace) != (8, 0, 0, 0) or color_type not in CHANNELS:
        return None
    if 1 + image.width * CHANNELS[color_type] > BAND_BYTES:
        return None
    before: list[tuple[bytes, bytes]] = []
    while True:
        kind, length = _header(file)
        if kind == b"IDAT":
            return PngBands(file, image, color_type, before, length)
        if kind == b"acTL":
            return None
        body = _body(file, kind, length, keep=kind in BEFORE)
        if kind in BEFORE:
            before.append((kind, body))
