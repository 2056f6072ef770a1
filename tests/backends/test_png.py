"""The build's own PNG writer (compiler/backends/png.py): whatever the image, Pillow
reads back the same pixels, mode and resolution; a PDF page's stream inflates to the
rows behind their filter byte."""

from __future__ import annotations

import io
import random
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from compiler.backends import png
from compiler.backends.png import BAND, flate_rows, png_bytes


def an_image(mode: str, w: int, h: int, seed: int) -> Image.Image:
    bands = len(Image.new(mode, (1, 1)).getbands())
    data = random.Random(seed).randbytes(w * h * bands)
    return Image.frombytes(mode, (w, h), data)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["L", "RGB", "RGBA", "LA", "P"]),
    st.integers(1, 90),
    st.integers(1, 2 * BAND + 3),
    st.integers(0, 2**32),
    st.sampled_from([None, 72, 300]),
)
def test_pillow_reads_back_every_pixel(mode, w, h, seed, dpi):
    """Pillow reads back the pixels and the resolution; a mode PNG's colour types
    do not name directly is written as RGB or RGBA."""
    img = an_image(mode, w, h, seed)
    back = Image.open(io.BytesIO(png_bytes(img, dpi)))
    back.load()
    assert back.mode == {"LA": "RGBA", "P": "RGB"}.get(mode, mode)
    assert back.size == img.size
    assert back.convert("RGBA").tobytes() == img.convert("RGBA").tobytes()
    assert (round(back.info["dpi"][0]) if dpi else None) == dpi


def test_a_pdf_stream_inflates_to_unfiltered_rows():
    img = an_image("RGB", 5, BAND + 2, 1)
    rows = zlib.decompress(flate_rows(img))
    stride = 1 + 3 * 5
    assert len(rows) == stride * (BAND + 2)
    assert all(rows[i] == 0 for i in range(0, len(rows), stride))
    assert b"".join(rows[i + 1 : i + stride] for i in range(0, len(rows), stride)) == img.tobytes()


def _unfiltered(rows: bytes, w: int, h: int) -> bytes:
    """The pixels of a PNG's inflated rows of 8-bit RGB, their filters undone (PNG 9.2)."""
    stride, out, prior = 3 * w, bytearray(), bytearray(3 * w)
    for y in range(h):
        kind, line = (
            rows[y * (stride + 1)],
            bytearray(rows[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prior[i], prior[i - 3] if i >= 3 else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            paeth = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth)[kind]) & 0xFF
        out += line
        prior = line
    return bytes(out)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32))
def test_rgb_data_is_the_pngs_rows_as_a_pdf_takes_them(w, h, seed):
    """`rgb_data` gives an RGB PNG's size and its image data, which inflates to its rows,
    each behind a filter byte (`/Predictor 15`)."""
    img = an_image("RGB", w, h, seed)
    found = png.rgb_data(png_bytes(img, 300))
    assert found is not None and found[:2] == (w, h)
    assert _unfiltered(zlib.decompress(found[2]), w, h) == img.tobytes()


def test_rgb_data_reads_a_png_pillow_wrote():
    """A PNG made elsewhere (Pillow filters its rows) inflates to rows a PDF's
    `/Predictor 15` undoes."""
    img = an_image("RGB", 7, 9, 2)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    found = png.rgb_data(buf.getvalue())
    assert found is not None and found[:2] == (7, 9)
    assert _unfiltered(zlib.decompress(found[2]), 7, 9) == img.tobytes()


def test_rgb_data_refuses_what_a_pdf_could_not_take_as_it_is():
    assert png.rgb_data(png_bytes(an_image("RGBA", 5, 5, 1))) is None
    assert png.rgb_data(png_bytes(an_image("L", 5, 5, 1))) is None
    assert png.rgb_data(b"not a png") is None
