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
    ncols = len(chart.header)
    widths = [MIN_COLUMN_PX] * ncols
    for row in (chart.header, *chart.rows):
        for i, cell in enumerate(row):
            extra = _width(" " + mark[cell.provisional], NOTE_PX) if cell.provisional else 0
            longest = max(_width(line, CELL_PX) for line in cell.text.split("\n"))
            widths[i] = max(widths[i], longest + extra + 2 * PAD)
    heights = [
        max(cell.text.count("\n") for cell in row) * LINE_PX + CELL_PX + 2 * PAD
        for row in (chart.header, *chart.rows)
    ]
    tag = _width(PROVISIONAL_TAG, NOTE_PX) + 3 * PAD if why else 0
    width = max(sum(widths), _width(chart.title, TITLE_PX) + 2 * PAD + tag)
    daggers = [f"†{i} provisional, not a printed value: {r}" for i, r in enumerate(why, 1)]
    wrap_at = min(max_width, max(width, 1400)) - 2 * PAD
    note_lines = [line for n in (*chart.notes, *daggers) for line in _wrap(n, NOTE_PX, wrap_at)]
    width = max([width, *(_width(n, NOTE_PX, False) + 2 * PAD for n in note_lines)])
    # The citation line wraps to the grid's width rather than running off the chart.
    subtitle = _wrap(chart.subtitle, NOTE_PX, max(sum(widths), 600) - 2 * PAD)
    title_h = TITLE_PX + 2 * PAD + (NOTE_PX + 8) * len(subtitle) + (PAD if subtitle else 0)
    height = title_h + sum(heights) + (NOTE_PX + 8) * len(note_lines) + 2 * PAD
    img = Image.new("RGB", (width + 4, height), "white")
    draw = ImageDraw.Draw(img)
    draw.text((PAD, PAD), chart.title, fill="#000000", font=font(TITLE_PX), anchor="lt")
    if why:
        draw.text(
            (width - PAD, PAD + TITLE_PX // 2),
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
    y = title_h
    for r, row in enumerate((chart.header, *chart.rows)):
        x = 0
        for i, cell in enumerate(row):
            box = (x, y, x + widths[i], y + heights[r])
            _cell(img, cell, box, r == 0, mark)
            x += widths[i]
        y += heights[r]
    draw.rectangle((0, title_h, sum(widths), y), outline="#000000", width=3)
    for line in note_lines:
        draw.text((PAD, y + 8), line, fill="#000000", font=font(NOTE_PX, bold=False), anchor="lt")
        y += NOTE_PX + 8
    return img


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
