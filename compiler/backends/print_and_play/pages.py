"""Laying images on printed pages: charts side by side in rows, scaled down only if too big."""

from __future__ import annotations

from PIL import Image, ImageDraw

from compiler.backends.fonts import font
from compiler.backends.print_and_play.geometry import Paper
from compiler.backends.print_and_play.pdf import Composed, Placed

GAP = 60
HEADER_PX = 70


def stack_on_pages(
    images: list[tuple[Image.Image, bytes | None]], paper: Paper, title: str
) -> list[Composed]:
    """Pages of `paper` holding `images` in rows (left to right, then down), headed with
    `title`: composed pages, each image placed with its PNG (if made: the PDF takes its
    data as it is, `pdf.Composed`), the heading a strip of its own."""
    layout = _layout(images, paper)
    pages = []
    for n, placed in enumerate(layout, start=1):
        strip = Image.new("RGB", (paper.width, HEADER_PX), "white")
        _heading(strip, paper.width // 2, HEADER_PX // 2, f"{title} — page {n} of {len(layout)}")
        heading = Placed(strip, (0, paper.margin))
        pages.append(Composed((paper.width, paper.height), (heading, *placed)))
    return pages


def _layout(images: list[tuple[Image.Image, bytes | None]], paper: Paper) -> list[list[Placed]]:
    """Each page's images (scaled down to fit if too big: then without their PNG) and
    where they go on it."""
    width = paper.width - 2 * paper.margin
    top = paper.margin + HEADER_PX
    height = paper.height - paper.margin - top
    pages: list[list[Placed]] = []
    x, y, shelf = 0, top + height, 0  # no page yet
    for img, made in images:
        scale = min(1.0, width / img.width, height / img.height)
        if scale < 1:
            size = (round(img.width * scale), round(img.height * scale))
            img, made = img.resize(size, Image.Resampling.LANCZOS), None
        if x and x + img.width > width:  # the shelf is full: start the next below it
            x, y, shelf = 0, y + shelf + GAP, 0
        if y + img.height > top + height:
            pages.append([])
            x, y, shelf = 0, top, 0
        pages[-1].append(Placed(img, (paper.margin + x, y), made))
        x += img.width + GAP
        shelf = max(shelf, img.height)
    return pages


def head(page: Image.Image, paper: Paper, text: str) -> None:
    """The page's title, centred in the strip above its content."""
    _heading(page, paper.width // 2, paper.margin + HEADER_PX // 2, text)


def _heading(img: Image.Image, x: int, y: int, text: str) -> None:
    ImageDraw.Draw(img).text((x, y), text, fill="#000000", font=font(32), anchor="mm")
