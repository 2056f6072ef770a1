"""The fonts every print-and-play image is drawn with, shipped with Muster.

DejaVu Sans Condensed (bold and regular, Bitstream Vera licence, see
LICENSE) lives in this package, so output is the same on every
machine: no system font is ever looked up.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import ImageFont

FONTS = Path(__file__).parent
BOLD = "DejaVuSansCondensed-Bold.ttf"
REGULAR = "DejaVuSansCondensed.ttf"


@cache
def font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    """The shipped font at `size` pixels to the em."""
    return ImageFont.truetype(str(FONTS / (BOLD if bold else REGULAR)), size)


def text_box(
    text: str, size: int, at: tuple[float, float], anchor: str = "mm", bold: bool = True
) -> tuple[int, int, int, int]:
    """The ink box of `text` drawn at `at` with a Pillow anchor ("mm": centred)."""
    left, top, right, bottom = font(size, bold).getbbox(text, anchor=anchor)
    x, y = round(at[0]), round(at[1])
    return x + left, y + top, x + right, y + bottom


def fit(text: str, width: int, height: int, largest: int, smallest: int, bold: bool = True) -> int:
    """The largest size from `largest` down to `smallest` at which `text` fits; 0 if none."""
    for size in range(largest, smallest - 1, -1):
        left, top, right, bottom = font(size, bold).getbbox(text, anchor="mm")
        if right - left <= width and bottom - top <= height:
            return size
    return 0
