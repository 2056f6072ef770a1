"""Painting a laid-out counter side with Pillow, with or without its bleed."""

from __future__ import annotations

from PIL import Image, ImageDraw

from compiler.backends.fonts import font
from compiler.backends.print_and_play.face import Face, Shape, Text
from compiler.backends.print_and_play.geometry import COUNTER_PX
from compiler.backends.print_and_play.layout import BAND_H, STRIPE_H
from compiler.backends.print_and_play.symbols import draw_stars, draw_symbol


def paint(face: Face, bleed: int = 0) -> Image.Image:
    """The side as an RGB image: the counter, plus `bleed` pixels of art around it."""
    size = COUNTER_PX + 2 * bleed
    img = Image.new("RGB", (size, size), face.body)
    draw = ImageDraw.Draw(img)
    if face.band:
        draw.rectangle((0, 0, size - 1, bleed + BAND_H - 1), fill=face.band)
        if face.stripe:
            top = bleed + BAND_H - STRIPE_H
            draw.rectangle((0, top, size - 1, bleed + BAND_H - 1), fill=face.stripe)
    for item in face.items:
        if isinstance(item, Text):
            at = (item.at[0] + bleed, item.at[1] + bleed)
            draw.text(at, item.text, fill=item.color, font=font(item.size), anchor=item.anchor)
        else:
            _shape(draw, _moved(item, bleed))
    return img


def _moved(shape: Shape, d: int) -> Shape:
    x0, y0, x1, y1 = shape.box
    return Shape(shape.kind, (x0 + d, y0 + d, x1 + d, y1 + d), shape.fill, shape.ink, shape.name)


def _shape(draw: ImageDraw.ImageDraw, shape: Shape) -> None:
    x0, y0, x1, y1 = shape.box
    if shape.kind == "symbol":
        draw_symbol(draw, shape)
    elif shape.kind == "stars":
        draw_stars(draw, shape)
    elif shape.kind == "badge":
        draw.ellipse((x0, y0, x1 - 1, y1 - 1), fill=shape.fill, outline=shape.ink, width=3)
    elif shape.kind == "box":
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=shape.fill, outline=shape.ink, width=2)
