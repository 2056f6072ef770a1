"""The module's images at screen resolution, drawn by the print-and-play renderers.

VASSAL shows images pixel for pixel at zoom 1, so the board is the map
renderer's drawing at 200 dpi (120 px across a hex, flat side to flat side)
instead of the 300 dpi print, and counters are the print-and-play faces
scaled to 96 px (0.8 of a hex). Charts are the print-and-play charts at two
thirds of their print size. Order-state tags are drawn and placed by `tags.py`.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from compiler import ir
from compiler.backends.fonts import fit, font
from compiler.backends.map_render import MapRenderer
from compiler.backends.png import png_bytes
from compiler.backends.print_and_play.face import ink_on
from compiler.backends.print_and_play.mix import Counter
from compiler.backends.print_and_play.paint import paint
from compiler.backends.print_and_play.steps import chart_images
from compiler.map.model import MapModel

SCREEN_DPI = 200
COUNTER = 96
MOVED_ICON = "moved.png"


def png(img: Image.Image) -> bytes:
    """PNG bytes with no time stamp; light compression, as the module holds some 250 images."""
    return png_bytes(img, level=3)


def board(rules: ir.Ruleset) -> tuple[MapRenderer, bytes, Image.Image]:
    """The map renderer at screen resolution, the board PNG it drew, and the image."""
    renderer = MapRenderer(MapModel(rules), SCREEN_DPI)
    img = renderer.render()
    return renderer, png(img), img


def counter_image(face_img: Image.Image) -> bytes:
    return png(face_img.resize((COUNTER, COUNTER), Image.Resampling.LANCZOS))


def counter_images(mix: list[Counter]) -> dict[str, bytes]:
    """`<name>-front.png` and `<name>-back.png` for every counter of the mix."""
    files = {}
    for c in mix:
        files[f"{c.name}-front.png"] = counter_image(paint(c.front))
        files[f"{c.name}-back.png"] = counter_image(paint(c.back))
    return files


def label_counter(text: str, fill: str) -> bytes:
    """A counter of the module's own (a track marker): its words on a plain colour."""
    img = Image.new("RGB", (COUNTER, COUNTER), fill)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, COUNTER - 1, COUNTER - 1), outline="#000000", width=2)
    ink = ink_on(fill)
    lines = text.split("\n")
    size = max(
        6, min(fit(line, COUNTER - 10, COUNTER // (len(lines) + 1), 18, 6) for line in lines)
    )
    d.multiline_text(
        (COUNTER // 2, COUNTER // 2), text, font=font(size), fill=ink, anchor="mm", align="center"
    )
    return png(img)


def moved_icon() -> bytes:
    """The small flag VASSAL draws on a counter that moved this turn."""
    img = Image.new("RGBA", (16, 16), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.polygon(((2, 1), (15, 5), (2, 9)), fill="#d01c1c", outline="#000000")
    d.line((2, 1, 2, 15), fill="#000000", width=2)
    return png(img)


def charts(rules: ir.Ruleset) -> dict[str, bytes]:
    """The print-and-play charts (provisional values marked as on paper), at screen size."""
    return screen_charts(chart_images(rules))


def screen_charts(drawn: dict[str, Image.Image]) -> dict[str, bytes]:
    """The module's charts from the print-and-play ones at 300 dpi (`chart_images`)."""
    out = {}
    for name, img in drawn.items():
        w, h = img.size
        small = img.resize((w * 2 // 3, h * 2 // 3), Image.Resampling.LANCZOS)
        out[f"{name}.png"] = png(small.convert("RGB"))
    return out
