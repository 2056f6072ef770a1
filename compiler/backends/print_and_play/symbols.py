"""Unit-type symbols and rank stars: where they go on a counter and how they are drawn.

The series marks troop types on its counters (2.2, 3.2). Print-and-play
draws them as the frames wargamers know: infantry a box with an X, cavalry a
box with one diagonal, artillery a box with a gun's dot (two for heavy
artillery, a dot under an arc for a howitzer); light infantry adds "LT" (as
the rulebook says), militia "M", irregulars (war bands) "IRR". Rifle units
carry their "R" badge in the slot beside the symbol (see `counter_face`).
"""

from __future__ import annotations

import math

from PIL import ImageDraw

from compiler.backends.fonts import fit, text_box
from compiler.backends.print_and_play.face import Box, Shape, Text
from compiler.backends.print_and_play.geometry import MIN_TEXT_PX

TAGS = {"light_infantry": "LT", "militia": "M", "irregular": "IRR"}
LINE = 3  # stroke width in pixels (1/4 pt)


def symbol_items(symbol: str, cell: Box, ink: str, body: str) -> list[Text | Shape]:
    """The frame of a unit-type symbol centred in `cell`, with its tag text if it has one."""
    cx, cy = (cell[0] + cell[2]) // 2, (cell[1] + cell[3]) // 2
    tag = TAGS.get(symbol, "")
    if not tag:
        w, h = 62, 40
        return [
            Shape("symbol", (cx - w // 2, cy - h // 2, cx + w // 2, cy + h // 2), body, ink, symbol)
        ]
    w, h = 48, 34
    size = fit(tag, cell[2] - cell[0] - w - 6, cell[3] - cell[1], 30, MIN_TEXT_PX)
    tag_w = text_box(tag, size, (0, 0))[2] - text_box(tag, size, (0, 0))[0] if size else 0
    left = cx - (w + 5 + tag_w) // 2
    frame = (left, cy - h // 2, left + w, cy + h // 2)
    at = (left + w + 5, cy)
    return [
        Shape("symbol", frame, body, ink, symbol),
        Text(tag, size or MIN_TEXT_PX, at, "lm", text_box(tag, size or MIN_TEXT_PX, at, "lm"), ink),
    ]


def draw_symbol(draw: ImageDraw.ImageDraw, shape: Shape) -> None:
    x0, y0, x1, y1 = shape.box
    draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=shape.fill, outline=shape.ink, width=LINE)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = (y1 - y0) / 6
    kind = shape.name
    if kind in ("infantry", "light_infantry", "militia", "rifle", "irregular"):
        draw.line((x0, y0, x1 - 1, y1 - 1), fill=shape.ink, width=LINE)
        draw.line((x0, y1 - 1, x1 - 1, y0), fill=shape.ink, width=LINE)
    elif kind == "cavalry":
        draw.line((x0, y1 - 1, x1 - 1, y0), fill=shape.ink, width=LINE)
    elif kind == "artillery":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=shape.ink)
    elif kind == "heavy_artillery":
        for dx in (-1.6 * r, 1.6 * r):
            draw.ellipse((cx + dx - r, cy - r, cx + dx + r, cy + r), fill=shape.ink)
    elif kind == "howitzer":
        draw.ellipse((cx - r, cy + r * 0.6 - r, cx + r, cy + r * 0.6 + r), fill=shape.ink)
        arc = (cx - 2.6 * r, cy - 2.0 * r, cx + 2.6 * r, cy + 2.4 * r)
        draw.arc(arc, 200, 340, fill=shape.ink, width=LINE)


def draw_stars(draw: ImageDraw.ImageDraw, shape: Shape) -> None:
    """`shape.name` five-pointed stars side by side, as large as the box allows."""
    n = int(shape.name)
    x0, y0, x1, y1 = shape.box
    size = min(y1 - y0, (x1 - x0) / n, 40)
    left = (x0 + x1) / 2 - size * n / 2
    for i in range(n):
        cx, cy = left + size * (i + 0.5), (y0 + y1) / 2
        draw.polygon(_star(cx, cy, size * 0.48), fill=shape.fill)


def _star(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    points = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.4
        angle = math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    return points
