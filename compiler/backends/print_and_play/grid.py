"""Charts as grids of text cells, drawn with their provisional values marked.

A provisional value (one the rulebooks do not give) is drawn on a hatched
yellow ground with a numbered dagger (†1), and the chart's foot says what
each dagger means, so nobody mistakes it for a printed value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from compiler.backends.fonts import font, text_box

CELL_PX = 34  # 8 pt
LINE_PX = 40  # line spacing inside a cell
HEAD_PX = 34
TITLE_PX = 50  # 12 pt
NOTE_PX = 29  # 7 pt
PAD = 12
MIN_COLUMN_PX = 90  # 0.3 in: room to write a marker's number in
MARK = "#c0392b"
HATCH = "#fbe7a1"
HATCH_LINE = "#f2cf6b"
HEAD_FILL = "#d9d4c7"
PROVISIONAL_TAG = "PROVISIONAL VALUES †"


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    provisional: str | None = None  # why the value is provisional
    fill: str = ""


@dataclass(frozen=True, slots=True)
class Chart:
    """A titled grid: header cells, body rows, and notes printed under it."""

    title: str
    header: tuple[Cell, ...]
    rows: tuple[tuple[Cell, ...], ...]
    subtitle: str = ""
    notes: tuple[str, ...] = field(default=())


def reasons(chart: Chart) -> list[str]:
    """The distinct provisional reasons in reading order: dagger n is reasons[n-1]."""
    out: list[str] = []
    for row in (chart.header, *chart.rows):
        for cell in row:
            if cell.provisional is not None and cell.provisional not in out:
                out.append(cell.provisional)
    return out


def _width(text: str, size: int, bold: bool = True) -> int:
    box = text_box(text, size, (0, 0), "lm", bold)
    return box[2] - box[0]


def render_chart(chart: Chart, max_width: int) -> Image.Image:
    """The chart as an image no wider than `max_width` (notes wrap to fit)."""
    why = reasons(chart)
    mark = {r: f"†{i}" for i, r in enumerate(why, start=1)}
    grid = (chart.header, *chart.rows)
    widths = _column_widths(grid, mark)
    heights = [_row_height(row) for row in grid]
    tag = _width(PROVISIONAL_TAG, NOTE_PX) + 3 * PAD if why else 0
    width = max(sum(widths), _width(chart.title, TITLE_PX) + 2 * PAD + tag)
    note_lines = _note_lines(chart.notes, why, min(max_width, max(width, 1400)) - 2 * PAD)
    width = max([width, *(_width(n, NOTE_PX, False) + 2 * PAD for n in note_lines)])
    # The citation line wraps to the grid's width rather than running off the chart.
    subtitle = _wrap(chart.subtitle, NOTE_PX, max(sum(widths), 600) - 2 * PAD)
    title_h = TITLE_PX + 2 * PAD + (NOTE_PX + 8) * len(subtitle) + (PAD if subtitle else 0)
    height = title_h + sum(heights) + (NOTE_PX + 8) * len(note_lines) + 2 * PAD
    img = Image.new("RGB", (width + 4, height), "white")
    _draw_title(img, chart.title, subtitle, width if why else None)
    y = _draw_cells(img, grid, widths, heights, title_h, mark)
    _draw_notes(img, note_lines, y)
    return img


def _note_lines(notes: tuple[str, ...], why: list[str], width: int) -> list[str]:
    """The chart's notes, then what each dagger means, wrapped to `width`."""
    daggers = [f"†{i} provisional, not a printed value: {r}" for i, r in enumerate(why, 1)]
    return [line for n in (*notes, *daggers) for line in _wrap(n, NOTE_PX, width)]


def _column_widths(grid: tuple[tuple[Cell, ...], ...], mark: dict[str, str]) -> list[int]:
    """Each column as wide as its widest cell (a dagger included), at least `MIN_COLUMN_PX`."""
    widths = [MIN_COLUMN_PX] * len(grid[0])
    for row in grid:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _cell_width(cell, mark) + 2 * PAD)
    return widths


def _cell_width(cell: Cell, mark: dict[str, str]) -> int:
    """The width of a cell's longest line, and of its dagger if it has one."""
    extra = _width(" " + mark[cell.provisional], NOTE_PX) if cell.provisional else 0
    return max(_width(line, CELL_PX) for line in cell.text.split("\n")) + extra


def _row_height(row: tuple[Cell, ...]) -> int:
    """A row as tall as its cell of the most lines."""
    return max(cell.text.count("\n") for cell in row) * LINE_PX + CELL_PX + 2 * PAD


def _draw_title(img: Image.Image, title: str, subtitle: list[str], tag_at: int | None) -> None:
    """The title, the provisional tag at its right (at `tag_at`, when any value
    is provisional) and the citation lines under it."""
    draw = ImageDraw.Draw(img)
    draw.text((PAD, PAD), title, fill="#000000", font=font(TITLE_PX), anchor="lt")
    if tag_at is not None:
        draw.text(
            (tag_at - PAD, PAD + TITLE_PX // 2),
            PROVISIONAL_TAG,
            fill=MARK,
            font=font(NOTE_PX),
            anchor="rm",
        )
    for n, line in enumerate(subtitle):
        draw.text(
            (PAD, PAD + TITLE_PX + PAD + n * (NOTE_PX + 8)),
            line,
            fill="#333333",
            font=font(NOTE_PX, bold=False),
            anchor="lt",
        )


def _draw_cells(
    img: Image.Image,
    grid: tuple[tuple[Cell, ...], ...],
    widths: list[int],
    heights: list[int],
    top: int,
    mark: dict[str, str],
) -> int:
    """The header and body cells from `top` down, framed; returns the grid's foot."""
    y = top
    for r, row in enumerate(grid):
        x = 0
        for i, cell in enumerate(row):
            _cell(img, cell, (x, y, x + widths[i], y + heights[r]), r == 0, mark)
            x += widths[i]
        y += heights[r]
    ImageDraw.Draw(img).rectangle((0, top, sum(widths), y), outline="#000000", width=3)
    return y


def _draw_notes(img: Image.Image, lines: list[str], y: int) -> None:
    """The chart's notes and what its daggers mean, under the grid."""
    draw = ImageDraw.Draw(img)
    for line in lines:
        draw.text((PAD, y + 8), line, fill="#000000", font=font(NOTE_PX, bold=False), anchor="lt")
        y += NOTE_PX + 8


def _cell(
    img: Image.Image, cell: Cell, box: tuple[int, int, int, int], head: bool, mark: dict[str, str]
) -> None:
    draw = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    fill = cell.fill or (HEAD_FILL if head else "white")
    draw.rectangle((x0, y0, x1, y1), fill=fill, outline="#000000", width=1)
    cy = (y0 + y1) // 2
    if cell.provisional is None:
        draw.multiline_text(
            ((x0 + x1) // 2, cy),
            cell.text,
            fill="#000000",
            font=font(CELL_PX),
            anchor="mm",
            align="center",
            spacing=LINE_PX - CELL_PX,
        )
        return
    img.paste(_hatch(x1 - x0 - 1, y1 - y0 - 1), (x0 + 1, y0 + 1))
    tag = mark[cell.provisional]
    w = max(_width(line, CELL_PX) for line in cell.text.split("\n")) + _width(" " + tag, NOTE_PX)
    left = (x0 + x1 - w) // 2
    draw.multiline_text(
        (left, cy),
        cell.text,
        fill="#000000",
        font=font(CELL_PX),
        anchor="lm",
        spacing=LINE_PX - CELL_PX,
    )
    draw.text((left + w, y0 + PAD // 2), tag, fill=MARK, font=font(NOTE_PX), anchor="rt")


def _hatch(w: int, h: int) -> Image.Image:
    """The ground of a provisional cell: pale yellow with diagonal lines."""
    tile = Image.new("RGB", (w, h), HATCH)
    draw = ImageDraw.Draw(tile)
    for k in range(-h, w, 14):
        draw.line((k, h, k + h, 0), fill=HATCH_LINE, width=2)
    return tile


def _wrap(text: str, size: int, width: int) -> list[str]:
    """`text` broken at spaces into lines no wider than `width`."""
    lines: list[str] = []
    for word in text.split():
        if lines and _width(f"{lines[-1]} {word}", size, False) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines
