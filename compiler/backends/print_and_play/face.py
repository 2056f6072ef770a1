"""A laid-out counter side: text boxes and shapes in place; colours and signs as printed."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageColor

Box = tuple[int, int, int, int]  # left, top, right, bottom (right and bottom exclusive)


@dataclass(frozen=True, slots=True)
class Text:
    """A line of text drawn at `at` with a Pillow anchor; `box` is where its ink falls."""

    text: str
    size: int
    at: tuple[int, int]
    anchor: str
    box: Box
    color: str


@dataclass(frozen=True, slots=True)
class Shape:
    """A drawn shape: a unit-type symbol, rank stars, a badge circle, a value's white box."""

    kind: str  # "symbol", "stars", "badge", "box"
    box: Box
    fill: str
    ink: str
    name: str = ""  # the symbol, or the number of stars


@dataclass(frozen=True, slots=True)
class Face:
    """One side of a counter, ready to paint."""

    body: str
    band: str  # "" for no band
    stripe: str
    items: tuple[Text | Shape, ...]

    @property
    def texts(self) -> tuple[Text, ...]:
        return tuple(i for i in self.items if isinstance(i, Text))


def rgb(color: str) -> tuple[int, int, int]:
    r, g, b = ImageColor.getrgb(color)[:3]
    return r, g, b


def tint(color: str, amount: float) -> str:
    """`color` mixed with white (amount 1 is white)."""
    r, g, b = rgb(color)
    return "#{:02x}{:02x}{:02x}".format(*(round(c + (255 - c) * amount) for c in (r, g, b)))


def ink_on(color: str) -> str:
    """Black or white, whichever reads better on `color`."""
    r, g, b = rgb(color)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def signed(n: object) -> str:
    """A modifier as printed: +1, 0, −1 (with a true minus sign)."""
    if not isinstance(n, int) or isinstance(n, bool):
        return str(n)
    return f"+{n}" if n > 0 else ("0" if n == 0 else f"−{-n}")
