"""Laying images on printed pages: charts side by side in rows, scaled down only if too big."""

from __future__ import annotations

from collections.abc import Iterator

from PIL import Image, ImageDraw

from compiler.backends.fonts import font
from compiler.backends.print_and_play.geometry import Paper

GAP = 60
HEADER_PX = 70


def stack_on_pages(images: list[Image.Image], paper: Paper, title: str) -> Iterator[Image.Image]:
    """Pages of `paper` holding `images` in rows (left to right, then down), headed with `title`.
    The layout is worked out first (a page's heading counts the pages), then each
    page is made as it is asked for: at 300 dpi a page is some 30 MiB."""
    layout = _layout(images, paper)
    for n, placed in enumerate(layout, start=1):
        page = Image.new("RGB", (paper.width, paper.height), "white")
        for img, at in placed:
            page.paste(img, at)
        head(page, paper, f"{title} — page {n} of {len(layout)}")
        yield page


def _layout(
    images: list[Image.Image], paper: Paper
) -> list[list[tuple[Image.Image, tuple[int, int]]]]:
    """Each page's images (scaled down to fit if too big) and where they go on it."""
    width = paper.width - 2 * paper.margin
    top = paper.margin + HEADER_PX
    height = paper.height - paper.margin - top
    pages: list[list[tuple[Image.Image, tuple[int, int]]]] = []
    x, y, shelf = 0, top + height, 0  # no page yet
    for img in images:
        scale = min(1.0, width / img.width, height / img.height)
        if scale < 1:
            size = (round(img.width * scale), round(img.height * scale))
            img = img.resize(size, Image.Resampling.LANCZOS)
        if x and x + img.width > width:  # the shelf is full: start the next below it
            x, y, shelf = 0, y + shelf + GAP, 0
        if y + img.height > top + height:
            pages.append([])
            x, y, shelf = 0, top, 0
        pages[-1].append((img, (paper.margin + x, y)))
        x += img.width + GAP
        shelf = max(shelf, img.height)
    return pages


def head(page: Image.Image, paper: Paper, text: str) -> None:
    """The page's title, centred in the strip above its content."""
    ImageDraw.Draw(page).text(
        (paper.width // 2, paper.margin + HEADER_PX // 2),
        text,
        fill="#000000",
        font=font(32),
        anchor="mm",
    )
