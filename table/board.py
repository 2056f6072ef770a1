"""The board's pictures, drawn in memory by the print-and-play renderers.

The map is the printed map (compiler/backends/map_render.py) at screen
resolution, with the pixel centre of every hex so the page can place counters
and highlights over it; the counters are the printed faces
(compiler/backends/print_and_play). Nothing is read from disk: the server
serves these bytes and nothing else of the battle.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image

from compiler import ir
from compiler.backends.print_and_play.mix import counter_mix, face_names
from compiler.backends.print_and_play.paint import paint
from compiler.backends.print_and_play.steps import render_map  # map_render by way of its importer
from compiler.map.model import MapModel
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles

MAP_DPI = 110  # a hex about 38 px across: the page zooms from there
COUNTER_PX = 96  # counter images are scaled to this square


@dataclass(frozen=True, slots=True)
class Board:
    """What the page draws: the map image, where each hex is on it, and the counter faces."""

    map_png: bytes
    width: int
    height: int
    radius: float  # centre to corner of a hex, in map pixels
    centres: dict[str, tuple[float, float]]  # hex label -> pixel centre
    faces: dict[str, bytes]  # "NAME-front" / "NAME-back" -> PNG
    # Each unit's face for each step, full strength first: the page shows the one
    # for its steps lost (a replacement counter's past the second step).
    steps: dict[str, tuple[str, ...]]


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def draw_board(rules: ir.Ruleset, sources: SourceFiles) -> Board:
    """Draw the map and every counter face of a checked ruleset."""
    if rules.map is not None:
        image, layout = render_map(MapModel(rules), dpi=MAP_DPI)
        centres = {label: (round(x, 1), round(y, 1)) for label, (x, y) in layout.centres.items()}
        radius = layout.radius
    else:
        image, centres, radius = Image.new("RGB", (200, 100), "white"), {}, 20.0
    faces = {}
    # Markers stay off the board but those that show terrain changed in play and
    # those the rules place on hexes (the values of a `per hex` marker variable).
    shown = {change.marker for change in rules.terrain_changes}
    if any(v.scope == "hex" and v.type == "marker" for v in rules.variables):
        shown |= {m.name for m in rules.markers}
    for c in counter_mix(rules, Reporter(sources)):
        if c.kind == "marker" and c.name not in shown:
            continue
        for side, face in (("front", c.front), ("back", c.back)):
            img = paint(face).convert("RGB").resize((COUNTER_PX, COUNTER_PX), Image.LANCZOS)
            faces[f"{c.name}-{side}"] = _png(img)
    steps = {u.name: face_names(u) for u in rules.units}
    return Board(_png(image), image.width, image.height, radius, centres, faces, steps)
