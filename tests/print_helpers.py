"""Helpers for the print-and-play tests: build once, render PDF pages, find counters on them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image

from tests.conftest import ROOT

PRINT_TEST = ROOT / "tests" / "data" / "print"
CUT_RGB = (60, 60, 60)  # the colour of cut lines (#3c3c3c)
SIZE = 188


def render_pdf(path: Path) -> list[Image.Image]:
    """Every page at 300 dpi, pixel for pixel.

    The scale is a hair under 300/72 so that pdfium, which rounds the bitmap
    size up, does not make it one pixel larger (it reads page sizes as 32-bit
    floats: 595.2 pt × 300/72 comes out above 2480) and stretch the page
    image to fill it.
    """
    pages = []
    pdf = pdfium.PdfDocument(str(path))
    for page in pdf:
        img = page.render(scale=300 / 72 * (1 - 1e-6), no_smoothimage=True).to_pil()
        pages.append(img.convert("RGB"))
    pdf.close()
    return pages


def outlines(img: Image.Image, tolerance: int = 6) -> list[tuple[int, int]]:
    """Top-left corners of the counters on a page, found from the pixels alone.

    A counter's outline is a one-pixel square of the cut colour just outside
    it: rows holding a run of SIZE + 2 cut pixels that another such run
    closes SIZE + 1 rows below, with cut-coloured columns joining their ends.
    `tolerance` allows for a renderer that smooths images (poppler does).
    """
    a = np.asarray(img, dtype=np.int16)
    mask = (np.abs(a - np.array(CUT_RGB)).max(axis=2) <= tolerance).astype(np.int8)
    runs: set[tuple[int, int]] = set()
    for y in range(mask.shape[0]):
        row = np.concatenate(([0], mask[y], [0]))
        edges = np.flatnonzero(np.diff(row))
        for start, end in zip(edges[::2], edges[1::2], strict=True):
            if end - start == SIZE + 2:
                runs.add((y, int(start)))
    found = []
    for y, x in sorted(runs):
        if (y + SIZE + 1, x) not in runs:
            continue
        left = mask[y : y + SIZE + 2, x].all()
        right = mask[y : y + SIZE + 2, x + SIZE + 1].all()
        if left and right:
            found.append((x + 1, y + 1))
    return found


def crop(img: Image.Image, corner: tuple[int, int]) -> Image.Image:
    return img.crop((corner[0], corner[1], corner[0] + SIZE, corner[1] + SIZE))


def difference(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel, 0 (same) to 255."""
    x = np.asarray(a.convert("RGB"), dtype=np.int16)
    y = np.asarray(b.convert("RGB"), dtype=np.int16)
    return float(np.abs(x - y).mean())
