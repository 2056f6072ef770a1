"""The map for printing: any map image tiled onto Letter or A4 pages.

Neighbouring tiles share `OVERLAP_PX` of the map. Crosshairs drawn in the
middle of each shared strip fall on the same spot of the map on both tiles:
trim one tile through its crosshairs, lay it over the other, and match them.
Each tile is labelled with its row letter and column number (A1 top left)
and names its neighbours.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

from PIL import Image, ImageDraw

from compiler.backends.print_and_play.geometry import Paper
from compiler.backends.print_and_play.pages import HEADER_PX, head

OVERLAP_PX = 150  # 1/2 inch of map on both of two neighbouring tiles
MARK = "#d0006f"
ARM = 45  # half the length of a crosshair's arms (0.15 in)


def tile_grid(size: tuple[int, int], paper: Paper) -> tuple[list[int], list[int], int, int]:
    """Left edges and top edges (in map pixels) of the tiles, and each tile's width and height."""
    w = paper.width - 2 * paper.margin
    h = paper.height - 2 * paper.margin - HEADER_PX
    return _starts(size[0], w), _starts(size[1], h), w, h


def _starts(length: int, window: int) -> list[int]:
    if length <= window:
        return [0]
    n = math.ceil((length - OVERLAP_PX) / (window - OVERLAP_PX))
    step = window - OVERLAP_PX
    return [min(i * step, length - window) for i in range(n)]


def tile_pages(img: Image.Image, paper: Paper, title: str) -> Iterator[Image.Image]:
    """One page per tile, row by row, with crosshairs in every shared strip.
    Each page is made as it is asked for: at 300 dpi a page is some 30 MiB,
    and a map's pages all at once were most of a build's memory."""
    xs, ys, w, h = tile_grid(img.size, paper)
    marks = [(x, y) for x in _seams(xs, w, img.width) for y in _along(ys, h, img.height)]
    marks += [(x, y) for y in _seams(ys, h, img.height) for x in _along(xs, w, img.width)]
    for r, top in enumerate(ys):
        for c, left in enumerate(xs):
            page = _tile(img, paper, (left, top, left + w, top + h), marks)
            head(page, paper, _tile_label(title, r, c, len(ys), len(xs)))
            yield page


def _tile(
    img: Image.Image, paper: Paper, window: tuple[int, int, int, int], marks: list[tuple[int, int]]
) -> Image.Image:
    """A page with the map's `window` on it and the crosshairs that fall inside it.
    The whole map is pasted at an offset (Pillow clips it to the page) and the
    margins whited again: a cropped copy would be another 30 MiB a page."""
    left, top, right, bottom = window
    page = Image.new("RGB", (paper.width, paper.height), "white")
    ox, oy = paper.margin, paper.margin + HEADER_PX
    page.paste(img, (ox - left, oy - top))
    draw = ImageDraw.Draw(page)
    end_x = ox + min(right, img.width) - left - 1  # the window's last column and row
    end_y = oy + min(bottom, img.height) - top - 1
    for box in (
        (0, 0, paper.width - 1, oy - 1),
        (0, end_y + 1, paper.width - 1, paper.height - 1),
        (0, oy, ox - 1, end_y),
        (end_x + 1, oy, paper.width - 1, end_y),
    ):
        if box[0] <= box[2] and box[1] <= box[3]:
            draw.rectangle(box, fill="white")
    for mx, my in marks:
        if left <= mx < right and top <= my < bottom:
            _crosshair(draw, ox + mx - left, oy + my - top)
    return page


def _tile_label(title: str, r: int, c: int, rows: int, cols: int) -> str:
    """`<title> — map tile B2 (of 2 rows × 3 columns); overlaps A2, B1, B3`."""
    label = f"{title} — map tile {_name(r, c)} (of {rows} rows × {cols} columns)"
    near = [
        _name(r + dr, c + dc)
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
        if 0 <= r + dr < rows and 0 <= c + dc < cols
    ]
    return label + ("; overlaps " + ", ".join(near) if near else "")


def _name(row: int, col: int) -> str:
    return f"{chr(ord('A') + row)}{col + 1}"


def _seams(starts: list[int], window: int, length: int) -> list[int]:
    """The middle of each strip shared by two neighbouring tiles."""
    return [(b + min(a + window, length)) // 2 for a, b in itertools.pairwise(starts)]


def _along(starts: list[int], window: int, length: int) -> list[int]:
    """Where along a seam to put crosshairs: near both ends of every tile."""
    out = set()
    for s in starts:
        out.add(s + min(window, length) // 6)
        out.add(s + min(window, length) * 5 // 6)
    return sorted(out)


def _crosshair(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.ellipse((x - ARM // 2, y - ARM // 2, x + ARM // 2, y + ARM // 2), outline=MARK, width=3)
    draw.line((x - ARM, y, x + ARM, y), fill=MARK, width=3)
    draw.line((x, y - ARM, x, y + ARM), fill=MARK, width=3)
