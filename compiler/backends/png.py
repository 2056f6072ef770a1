"""PNG files and Flate image streams as the build writes them: deterministic (no time
stamp) and fast. Every image's rows are stored unfiltered (PNG filter 0) and deflated
by zlib-ng, not the standard library's zlib: at the same level it compresses the
300 dpi map some 2.7 times as fast, into a stream about 15 % larger (any zlib decoder
reads it), and compressing was the largest cost of a whole build
(benchmarks/bench_build.py). Pillow's encoder tries a filter row by row, which saves
about 4 % of a map page's bytes for about twice the time; on the counters, charts and
module pieces it gave files 14 % larger than these, in twice the time."""

from __future__ import annotations

import struct
import zlib

from PIL import Image
from zlib_ng import zlib_ng

# The PNG colour type and bytes a pixel of each image mode the build writes.
MODES = {"L": (0, 1), "RGB": (2, 3), "RGBA": (6, 4)}
BAND = 64  # rows read from the image at a time: a band, not a second copy of the image
METRES_PER_INCH = 0.0254


def flate_rows(img: Image.Image, level: int = 6) -> bytes:
    """The zlib stream of `img`'s rows, each behind filter byte 0: a PNG's image data, and
    a PDF image's /FlateDecode stream with /Predictor 15. `img` is L, RGB or RGBA."""
    w, h = img.size
    stride = MODES[img.mode][1] * w
    deflate = zlib_ng.compressobj(level)
    out = []
    for top in range(0, h, BAND):
        band = img.crop((0, top, w, min(h, top + BAND))).tobytes()
        for row in range(0, len(band), stride):
            out.append(deflate.compress(b"\0" + band[row : row + stride]))
    out.append(deflate.flush())
    return b"".join(out)


def png_bytes(img: Image.Image, dpi: int | None = None, level: int = 6) -> bytes:
    """A PNG file of `img` (converted to RGBA or RGB if it is in another mode), with its
    resolution when `dpi` is given."""
    if img.mode not in MODES:
        img = img.convert("RGBA" if "A" in img.getbands() or "transparency" in img.info else "RGB")
    color, _ = MODES[img.mode]
    chunks = [_chunk(b"IHDR", struct.pack(">IIBBBBB", *img.size, 8, color, 0, 0, 0))]
    if dpi:
        per_metre = round(dpi / METRES_PER_INCH)
        chunks.append(_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
    chunks += [_chunk(b"IDAT", flate_rows(img, level)), _chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def rgb_data(png: bytes) -> tuple[int, int, bytes] | None:
    """The width, height and image data (the IDAT chunks joined: a zlib stream of rows,
    each behind its filter byte) of an 8-bit RGB PNG that is not interlaced; None for
    any other kind. A PDF takes that data as it is (/FlateDecode, /Predictor 15), so
    that an image already written as a PNG is not compressed again."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    at, size, data = 8, None, []
    while at + 8 <= len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, color, interlace) != (8, 2, 0):
                return None
            size = (width, height)
        elif kind == b"IDAT":
            data.append(body)
        at += 12 + length
    return None if size is None or not data else (*size, b"".join(data))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
