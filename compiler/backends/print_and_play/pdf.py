"""A small PDF writer: one full-page image per page, lossless, byte-identical on rebuild.

Pillow's own PDF writer stores RGB as JPEG (blurring cut lines) and stamps
the time of writing; this one stores each page as a Flate-compressed image
with PNG row predictors (each row unfiltered: compiler/backends/png.py), and writes no
date or ID.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from PIL import Image

from compiler.backends.png import flate_rows
from compiler.backends.print_and_play.geometry import DPI


def pdf_of_pages(pages: Iterable[Image.Image], title: str) -> bytes:
    """A PDF with one page per image, each page the image's size at 300 dpi
    (the pages are compressed one by one, as they come)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the page tree exists
    tree = add(b"")
    kids = []
    for img in pages:
        w, h = img.size
        pw, ph = _num(w * 72 / DPI), _num(h * 72 / DPI)
        data = flate_rows(img if img.mode == "RGB" else img.convert("RGB"))
        image = add(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
            b"/BitsPerComponent 8 /Filter /FlateDecode "
            b"/DecodeParms << /Predictor 15 /Colors 3 /BitsPerComponent 8 /Columns %d >> "
            b"/Length %d >>\nstream\n" % (w, h, w, len(data)) + data + b"\nendstream"
        )
        content = b"q %s 0 0 %s 0 0 cm /Im0 Do Q" % (pw, ph)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %s %s] "
                b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                % (tree, pw, ph, image, stream)
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


def _num(x: float) -> bytes:
    """A PDF number: at most four decimals, no trailing zeros."""
    return (b"%.4f" % x).rstrip(b"0").rstrip(b".")


def _text(s: str) -> bytes:
    """A PDF text string in UTF-16 with a byte-order mark, so any title is safe."""
    return b"<feff" + s.encode("utf-16-be").hex().encode() + b">"
