"""Counter sheets: counters on Letter or A4 pages, fronts and mirrored backs.

Counters sit on a grid `PITCH_PX` apart, each with its bleed (the art runs
`BLEED_PX` past the cut) and a one-pixel cut line just outside its edge,
repeated as crop marks in the margins. The back page holds each counter's
back at the mirrored place (x' = width − x − size), so that printed duplex
and flipped on the long edge, every back falls behind its front. Each side
of the battle starts a new row, and so do the markers.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from compiler.backends.print_and_play.face import Face
from compiler.backends.print_and_play.geometry import BLEED_PX, COUNTER_PX, PITCH_PX, Paper
from compiler.backends.print_and_play.mix import Counter
from compiler.backends.print_and_play.pages import HEADER_PX, head
from compiler.backends.print_and_play.paint import paint

CUT = "#3c3c3c"
CROP_PX = 40  # how far crop marks reach into the margin


@dataclass(frozen=True, slots=True)
class Placed:
    """A counter on a sheet: the top-left corner of its front (the cut, not the bleed)."""

    counter: Counter
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Sheet:
    paper: Paper
    placed: tuple[Placed, ...]


def grid(paper: Paper) -> tuple[int, int, int, int]:
    """Columns, rows and the top-left corner of the grid (centred across the page)."""
    cols = (paper.width - 2 * paper.margin - 2 * CROP_PX) // PITCH_PX
    rows = (paper.height - 2 * paper.margin - 2 * CROP_PX - HEADER_PX) // PITCH_PX
    x0 = (paper.width - cols * PITCH_PX) // 2
    y0 = paper.margin + HEADER_PX + CROP_PX
    return cols, rows, x0, y0


def lay_sheets(mix: list[Counter], paper: Paper) -> list[Sheet]:
    """Place every copy of every counter; a new row for each side and for the markers."""
    cols, rows, x0, y0 = grid(paper)
    cells = _cells(mix, cols)
    per_page = cols * rows
    sheets = []
    for start in range(0, len(cells), per_page):
        page = cells[start : start + per_page]
        placed = tuple(
            Placed(
                c,
                x0 + (i % cols) * PITCH_PX + BLEED_PX,
                y0 + (i // cols) * PITCH_PX + BLEED_PX,
            )
            for i, c in enumerate(page)
            if c is not None
        )
        if placed:
            sheets.append(Sheet(paper, placed))
    return sheets


def _cells(mix: list[Counter], cols: int) -> list[Counter | None]:
    """Every copy of every counter in reading order, each side's units (and then
    the markers) starting a new row: None for an empty cell."""
    groups: dict[tuple[int, str], list[Counter]] = {}
    for c in mix:
        groups.setdefault((c.kind == "marker", c.side), []).extend([c] * c.copies)
    cells: list[Counter | None] = []
    for group in groups.values():
        cells += group + [None] * (-len(group) % cols)
    return cells


def render_sheet(sheet: Sheet, back: bool, title: str) -> Image.Image:
    """The front page of a sheet, or its back with every counter at the mirrored place."""
    paper = sheet.paper
    img = Image.new("RGB", (paper.width, paper.height), "white")
    draw = ImageDraw.Draw(img)
    cache: dict[int, Image.Image] = {}
    for p in sheet.placed:
        face: Face = p.counter.back if back else p.counter.front
        x = paper.width - p.x - COUNTER_PX if back else p.x
        if id(face) not in cache:
            cache[id(face)] = paint(face, BLEED_PX)
        img.paste(cache[id(face)], (x - BLEED_PX, p.y - BLEED_PX))
        _cut_lines(draw, x, p.y)
    _crop_marks(draw, sheet, back)
    head(img, paper, title)
    return img


def _cut_lines(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    """A one-pixel line just outside the counter's edge: cut along its inside."""
    draw.rectangle((x - 1, y - 1, x + COUNTER_PX, y + COUNTER_PX), outline=CUT, width=1)


def _crop_marks(draw: ImageDraw.ImageDraw, sheet: Sheet, back: bool) -> None:
    """Cut positions carried into the margins, so a guillotine can line up on them."""
    paper = sheet.paper
    xs = {paper.width - p.x - COUNTER_PX if back else p.x for p in sheet.placed}
    ys = {p.y for p in sheet.placed}
    left, right = min(xs) - BLEED_PX, max(xs) + COUNTER_PX + BLEED_PX
    top, bottom = min(ys) - BLEED_PX, max(ys) + COUNTER_PX + BLEED_PX
    for edge in _edges(xs):
        draw.line((edge, top - CROP_PX, edge, top - 4), fill=CUT)
        draw.line((edge, bottom + 4, edge, bottom + CROP_PX), fill=CUT)
    for edge in _edges(ys):
        draw.line((left - CROP_PX, edge, left - 4, edge), fill=CUT)
        draw.line((right + 4, edge, right + CROP_PX, edge), fill=CUT)


def _edges(starts: set[int]) -> list[int]:
    """The cut lines of counters starting at each of `starts`: both their edges."""
    return [edge for start in starts for edge in (start - 1, start + COUNTER_PX)]
