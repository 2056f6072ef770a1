"""A small PDF writer: images on pages, lossless, byte-identical on rebuild.

Pillow's own PDF writer stores RGB as JPEG (blurring cut lines) and stamps
the time of writing; this one stores each image Flate-compressed with PNG
row predictors (each row unfiltered: compiler/backends/png.py), and writes no
date or ID. A page is one full-page image, or a `Composed` page of images
placed on white (the charts on their pages), each of which may bring the PNG
already written of it, whose data the PDF takes as it is rather than
compressing the image again.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

from PIL import Image

from compiler.backends.png import flate_rows, rgb_data
from compiler.backends.print_and_play.geometry import DPI


@dataclass(frozen=True, slots=True)
class Placed:
    """An image on a page, its top left corner `at` in pixels from the page's."""

    image: Image.Image
    at: tuple[int, int]
    png: bytes | None = None  # the image as a PNG already made, if it was


@dataclass(frozen=True, slots=True)
class Composed:
    """A page of `size` pixels, white but for the images placed on it (none overlap)."""

    size: tuple[int, int]
    placed: tuple[Placed, ...]


def pdf_of_pages(pages: Iterable[Image.Image | Composed], title: str) -> bytes:
    """A PDF with one page per image or composed page, each its size at 300 dpi
    (the pages are compressed one by one, as they come)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the page tree exists
    tree = add(b"")
    kids = []
    for page in pages:
        w, h = page.size
        pw, ph = _num(w * 72 / DPI), _num(h * 72 / DPI)
        placed = page.placed if isinstance(page, Composed) else (Placed(page, (0, 0)),)
        names, draws = [], []
        for n, item in enumerate(placed):
            iw, ih = item.image.size
            names.append(b"/Im%d %d 0 R" % (n, add(_image(item))))
            x, y = item.at
            draws.append(
                b"q %s 0 0 %s %s %s cm /Im%d Do Q"
                % (
                    _num(iw * 72 / DPI),
                    _num(ih * 72 / DPI),
                    _num(x * 72 / DPI),
                    _num((h - y - ih) * 72 / DPI),
                    n,
                )
            )
        content = b"\n".join(draws)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %s %s] "
                b"/Resources << /XObject << %s >> >> /Contents %d 0 R >>"
                % (tree, pw, ph, b" ".join(names), stream)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    info = add(b"<< /Title %s /Producer (Muster) >>" % _text(title))

    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(
        b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, catalog, info, xref)
    )
    return out.getvalue()


def _image(item: Placed) -> bytes:
    """The image XObject of a placed image: its PNG's data when it brings an RGB one,
    else its rows compressed now."""
    found = rgb_data(item.png) if item.png is not None else None
    if found is not None and found[:2] == item.image.size:
        w, h, data = found
    else:
        img = item.image
        w, h = img.size
        data = flate_rows(img if img.mode == "RGB" else img.convert("RGB"))
    return (
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
        b"/BitsPerComponent 8 /Filter /FlateDecode "
        b"/DecodeParms << /Predictor 15 /Colors 3 /BitsPerComponent 8 /Columns %d >> "
        b"/Length %d >>\nstream\n" % (w, h, w, len(data)) + data + b"\nendstream"
    )


def _num(x: float) -> bytes:
    """A PDF number: at most four decimals, no trailing zeros."""
    return (b"%.4f" % x).rstrip(b"0").rstrip(b".") or b"0"


def _text(s: str) -> bytes:
    """A PDF text string in UTF-16 with a byte-order mark, so any title is safe."""
    return b"<feff" + s.encode("utf-16-be").hex().encode() + b">"
