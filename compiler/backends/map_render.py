"""The printed map: the map model drawn with Pillow at print resolution.

Every hex is filled with its terrain's colour and pattern; hexside features
are drawn in their declared style (streams, fords, bridges, slopes with the
solid line on the up-slope side, fieldworks with their teeth facing out,
roads, tracks and paths from centre to centre); then hex numbers, named
places (a star on victory hexes, each name placed clear of hex numbers and
roads), entry hexes, each scenario's set-up areas and a legend of what the
map uses. A line of sight can be laid over it, with what blocks it marked.

Drawing has no anti-aliasing except for text, so every terrain pixel carries
exactly its declared colour. Patterns are drawn at fixed places in each hex
(around its centre, toward its corners), away from the hex number at the
top, the roads toward the hexside midpoints and the features along the
hexsides; `Layout` records where text went, so a test can read the colours.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from PIL import Image, ImageColor, ImageDraw

from compiler import ir
from compiler.backends.fonts import fit, font
from compiler.map.hexmap import PIXEL_SCALE, Grid, Point
from compiler.map.model import MapModel
from engine.los import Blocker, Sight

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]
PxPoint = tuple[float, float]

DPI = 300
HEX_HEIGHT_INCHES = 0.6  # hexside to hexside across a hex
GRID_LINE = (120, 120, 120)
INK = (30, 30, 30)
PAPER = (255, 255, 255)
STAR = (200, 30, 30)
LOS_CLEAR = (40, 150, 60)
LOS_BLOCKED = (220, 20, 60)
LEGEND_TEXT = 10  # the widest legend line, in hex radii
# Where a place's name may go, as offsets from the hex centre in hex radii,
# in order of preference: below the centre, then above it, then to the sides.
SPOTS = (
    (0, 0.5),
    (0, 0.32),
    (0, 0.62),
    (0, -0.3),
    (0.45, 0.15),
    (-0.45, 0.15),
    (0.5, 0.4),
    (-0.5, 0.4),
)
CORNER_ANGLES = tuple(math.radians(a) for a in (0, 60, 120, 180, 240, 300))


def rgb(color: str) -> RGB:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def pattern_color(color: str) -> RGB:
    """A shade of the terrain colour that stands out on it: darker, or lighter on dark ground."""
    r, g, b = rgb(color)
    if 0.299 * r + 0.587 * g + 0.114 * b < 90:
        return tuple((c + 255) // 2 for c in (r, g, b))  # type: ignore[return-value]
    return tuple(c * 11 // 20 for c in (r, g, b))  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class LegendEntry:
    kind: str  # "terrain", "hexside", "place", "entry", "line", "victory", "setup"
    name: str
    title: str
    box: Box


@dataclass(frozen=True, slots=True)
class SetupArea:
    """Hexes a scenario lets a side choose among for its set-up, as the map shows them."""

    key: str  # scenario name and index, for the legend
    title: str
    hexes: tuple[str, ...]
    color: RGB


def setup_areas(rules: ir.Ruleset) -> list[SetupArea]:
    """The set-up areas of every scenario: entries that let the owner choose among
    several listed hexes (a single hex or a condition is no area to draw). An area
    with the same hexes as a map zone takes the zone's title."""
    sides = {s.name: s for s in rules.sides}
    side_of = {u.name: sides.get(u.side) for u in rules.units}
    zones = {frozenset(z.hexes): z.title for z in (rules.map.zones if rules.map else ())}
    areas: dict[tuple[str, frozenset[str]], SetupArea] = {}  # the first of each side's areas
    for scenario in rules.scenarios:
        for i, entry in enumerate(scenario.setup):
            side = _chooser(entry, side_of)
            if side is not None:
                where = zones.get(frozenset(entry.hexes))
                area = _setup_area(f"{scenario.name}.{i}", scenario, side, entry.hexes, where)
                areas.setdefault((side.name, frozenset(entry.hexes)), area)
    return list(areas.values())


def _setup_area(
    key: str, scenario: ir.Scenario, side: ir.Side, hexes: tuple[str, ...], zone: str | None
) -> SetupArea:
    """A side's area, titled after its scenario (and the map zone it covers, if it covers one)."""
    title = f"{scenario.title}: {side.title} set-up" + (f" ({zone})" if zone else "")
    return SetupArea(key, title, hexes, _ink(side.color))


def _chooser(entry: ir.SetupEntry, side_of: dict[str, ir.Side | None]) -> ir.Side | None:
    """The side that chooses among an entry's hexes; None for an entry with no area to draw."""
    if not entry.chosen or len(entry.hexes) < 2 or not entry.units:
        return None
    return side_of.get(entry.units[0].name)


def _ink(color: str) -> RGB:
    """A side's colour (any CSS colour) dark enough to read as a line on the map's ground."""
    r, g, b = ImageColor.getrgb(color)[:3]
    if 0.3 * r + 0.59 * g + 0.11 * b > 140:
        r, g, b = (c * 9 // 20 for c in (r, g, b))
    return r, g, b


@dataclass
class Layout:
    """Where the renderer put things, in pixels."""

    radius: float  # centre to corner of a hex
    centres: dict[str, PxPoint] = field(default_factory=dict)
    text: dict[str, list[Box]] = field(default_factory=dict)  # hex → boxes of marks and text
    legend: list[LegendEntry] = field(default_factory=list)
    places: dict[str, Box] = field(default_factory=dict)  # place name → its label's box


def _label_texts(title: str) -> list[str]:
    """A place's name on one line, and (if it has several words) on two."""
    words = title.split()
    if len(words) < 2:
        return [title]
    half = (len(words) + 1) // 2
    return [title, " ".join(words[:half]) + "\n" + " ".join(words[half:])]


def _overlapping(box: Box, boxes: list[Box]) -> int:
    """How many of `boxes` overlap `box`."""
    x0, y0, x1, y1 = box
    return sum(1 for b in boxes if min(x1, b[2]) > max(x0, b[0]) and min(y1, b[3]) > max(y0, b[1]))


def _near(box: Box, a: PxPoint, b: PxPoint) -> bool:
    """Whether segment a–b's bounding box comes within a pixel of `box`: no point of a
    segment that does not can lie in the box (`_points_inside` is then 0, not worked out)."""
    x0, y0, x1, y1 = box
    return (
        min(a[0], b[0]) <= x1 + 1
        and max(a[0], b[0]) >= x0 - 1
        and min(a[1], b[1]) <= y1 + 1
        and max(a[1], b[1]) >= y0 - 1
    )


def _points_inside(box: Box, a: PxPoint, b: PxPoint) -> int:
    """How many of 21 points evenly along a–b (both ends included) lie in `box`."""
    x0, y0, x1, y1 = box
    inside = 0
    for k in range(21):
        x, y = a[0] + (b[0] - a[0]) * k / 20, a[1] + (b[1] - a[1]) * k / 20
        inside += x0 <= x <= x1 and y0 <= y <= y1
    return inside


@dataclass(frozen=True, slots=True)
class Stroke:
    """What a hexside feature is drawn with: its style and colour, the hexside
    p–q, the centres of the hexes either side, and the centre of the hex it belongs to."""

    style: str
    color: RGB
    side: tuple[PxPoint, PxPoint]
    centres: tuple[PxPoint, PxPoint]
    inside: PxPoint


ROAD_WIDTHS = {"road": 0.09, "track": 0.07, "path": 0.045}  # in hex radii


def _inward_normal(p: PxPoint, q: PxPoint, inside: PxPoint) -> PxPoint:
    """The unit normal of the hexside p–q pointing into the hex whose centre is `inside`."""
    ex, ey = q[0] - p[0], q[1] - p[1]
    length = math.hypot(ex, ey)
    nx, ny = -ey / length, ex / length
    mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
    if (inside[0] - mx) * nx + (inside[1] - my) * ny < 0:
        nx, ny = -nx, -ny
    return nx, ny


@dataclass(frozen=True, slots=True)
class _Ray:
    """The ray from a hex centre toward one corner, where a pattern's marks go."""

    centre: PxPoint
    angle: float
    r: float  # the hex's radius

    def toward(self, dist: float, turn: float = 0.0) -> PxPoint:
        """The point `dist` radii out, the ray turned by `turn` radians."""
        cx, cy = self.centre
        angle = self.angle + turn
        return cx + dist * self.r * math.cos(angle), cy - dist * self.r * math.sin(angle)


def _trees(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    x, y = ray.toward(0.47)
    s = 0.13 * ray.r
    draw.ellipse((x - s, y - s, x + s, y + s), fill=ink)


def _orchard(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    for dist in (0.36, 0.56):
        ox, oy = ray.toward(dist)
        s = 0.06 * ray.r
        draw.ellipse((ox - s, oy - s, ox + s, oy + s), fill=ink)


def _dots(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    for dist in (0.33, 0.42, 0.51, 0.6):
        ox, oy = ray.toward(dist)
        s = 0.025 * ray.r
        draw.rectangle((ox - s, oy - s, ox + s, oy + s), fill=ink)


def _crops(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    x, y = ray.toward(0.47)
    r = ray.r
    for dy in (-0.08, 0.0, 0.08):
        draw.line(
            (x - 0.14 * r, y + dy * r, x + 0.14 * r, y + dy * r),
            fill=ink,
            width=max(1, round(0.025 * r)),
        )


def _marsh(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    x, y = ray.toward(0.47)
    r = ray.r
    w = max(1, round(0.025 * r))
    draw.line((x - 0.14 * r, y, x + 0.14 * r, y), fill=ink, width=w)
    for dx in (-0.07, 0.0, 0.07):
        draw.line((x + dx * r, y, x + dx * r * 1.6, y - 0.12 * r), fill=ink, width=w)


def _hatch(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    for turn in (0.35, -0.35):
        draw.line(
            (*ray.toward(0.3), *ray.toward(0.68, turn)),
            fill=ink,
            width=max(1, round(0.03 * ray.r)),
        )


def _buildings(draw: ImageDraw.ImageDraw, ray: _Ray, ink: RGB) -> None:
    x, y = ray.toward(0.47)
    s = 0.09 * ray.r
    draw.rectangle((x - s, y - s, x + s, y + s), fill=ink)


# A terrain pattern's mark, drawn once toward each corner of the hex ("none" draws nothing).
PATTERNS: dict[str, Callable[[ImageDraw.ImageDraw, _Ray, RGB], None]] = {
    "trees": _trees,
    "orchard": _orchard,
    "dots": _dots,
    "crops": _crops,
    "marsh": _marsh,
    "hatch": _hatch,
    "buildings": _buildings,
}


class MapRenderer:
    def __init__(self, model: MapModel, dpi: int = DPI) -> None:
        self.model = model
        self.grid: Grid = model.grid
        self.radius = dpi * HEX_HEIGHT_INCHES / math.sqrt(3)
        self.sx = self.radius * PIXEL_SCALE[0]
        self.sy = self.radius * PIXEL_SCALE[1]
        r = self.radius
        # The fonts Muster ships (every glyph a title may use, the same on
        # every machine).
        self.fonts = {
            "number": font(max(8, round(0.21 * r)), bold=False),
            "place": font(max(8, round(0.26 * r)), bold=False),
            "legend": font(max(9, round(0.32 * r)), bold=False),
            "title": font(max(12, round(0.6 * r))),
        }
        xs = [self.grid.centre(c, row)[0] for c, row in self.grid.offsets()]
        ys = [self.grid.centre(c, row)[1] for c, row in self.grid.offsets()]
        self.margin = round(0.8 * r)
        self.top = self.margin + round(1.0 * r)
        self.x0, self.y0 = min(xs) - 2, min(ys) - 1
        self.map_width = (max(xs) + 2 - self.x0) * self.sx
        self.map_height = (max(ys) + 1 - self.y0) * self.sy
        self.layout = Layout(self.radius)
        self.numbers: list[Box] = []  # hex numbers, which place labels keep clear of
        self.roads: list[tuple[PxPoint, PxPoint]] = []  # road, track and path centre lines
        self.setup_areas = setup_areas(model.rules)

    # ------------------------------------------------------------ coordinates

    def px(self, point: Point) -> PxPoint:
        x, y = point
        return self.margin + (x - self.x0) * self.sx, self.top + (y - self.y0) * self.sy

    def centre(self, label: str) -> PxPoint:
        return self.px(self.grid.centre(*Grid.parse(label)))

    def corners(self, label: str) -> list[PxPoint]:
        return [self.px(p) for p in self.grid.corners(*Grid.parse(label))]

    def hexside(self, a: str, b: str) -> tuple[PxPoint, PxPoint]:
        ends = self.grid.hexside_ends(*Grid.parse(a), self.model.direction(a, b))
        return self.px(ends[0]), self.px(ends[1])

    # ------------------------------------------------------------ the whole map

    def render(
        self, sight: tuple[str, str, Sight] | None = None, units: Iterable[str] = ()
    ) -> Image.Image:
        """The map with its title and legend; `sight` a line of sight to lay over
        it, `units` hexes to put a plain counter on."""
        img = Image.new("RGB", self._size(), PAPER)
        draw = ImageDraw.Draw(img)
        draw.text(
            (self.margin, self.margin // 2),
            self.model.map.title,
            font=self.fonts["title"],
            fill=INK,
        )
        labels = self.model.labels()
        for label in labels:
            self.layout.centres[label] = self.centre(label)
            self.layout.text[label] = []
            self._hex(draw, label)
        self._hexsides(draw)
        for label in labels:
            self._number(draw, label)
        self._lines(draw)
        self._setup_areas(draw)
        self._places(draw)
        self._entries(draw)
        for label in units:
            self._unit(draw, label)
        if sight is not None:
            self._sight(draw, *sight)
        self._legend(draw, self.margin * 2 + self.map_width)
        return img

    def _size(self) -> tuple[int, int]:
        """The image's size: the map, with the legend at its right, as tall as the longer."""
        legend_width = max(8 * self.radius, 1.2 * self.radius + self._longest() + self.margin)
        width = round(2 * self.margin + self.map_width + legend_width)
        height = round(self.top + self.map_height + self.margin)
        return width, max(height, round(self.top + self._legend_height()))

    def _longest(self) -> float:
        """The width of the legend's longest line."""
        return max(
            (
                self.fonts["legend"].getlength(line)
                for _k, _n, title in self._legend_items()
                for line in self._legend_lines(title)
            ),
            default=0.0,
        )

    # ------------------------------------------------------------ hexes

    def _hex(self, draw: ImageDraw.ImageDraw, label: str) -> None:
        terrain = self.model.terrain_of(label)
        draw.polygon(self.corners(label), fill=rgb(terrain.color), outline=GRID_LINE)
        self._pattern(draw, self.centre(label), terrain, self.radius)

    def _pattern(
        self, draw: ImageDraw.ImageDraw, at: PxPoint, terrain: ir.Terrain, r: float
    ) -> None:
        """The terrain's pattern around a hex centre, along the rays toward its corners."""
        mark = PATTERNS.get(terrain.pattern)
        if mark is None:
            return
        ink = pattern_color(terrain.color)
        for angle in CORNER_ANGLES:
            mark(draw, _Ray(at, angle, r), ink)

    def _number(self, draw: ImageDraw.ImageDraw, label: str) -> None:
        cx, cy = self.centre(label)
        self.numbers.append(
            self._text(draw, label, label, (cx, cy - 0.66 * self.radius), "number", INK)
        )

    def _text(
        self,
        draw: ImageDraw.ImageDraw,
        label: str,
        text: str,
        at: PxPoint,
        font: str,
        fill: RGB,
        boxed: bool = False,
        size: int | None = None,
    ) -> Box:
        """Text centred at `at` (in the named font, or that font at `size`), recorded
        in the layout of hex `label`."""
        f = self.fonts[font] if size is None else self.fonts[font].font_variant(size=size)
        left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=f, align="center")
        x, y = at[0] - (right - left) / 2 - left, at[1] - (bottom - top) / 2 - top
        box = (x + left, y + top, x + right, y + bottom)
        if boxed:
            pad = 0.06 * self.radius
            box = (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)
            draw.rectangle(box, fill=PAPER, outline=INK, width=max(1, round(0.02 * self.radius)))
        draw.multiline_text((x, y), text, font=f, fill=fill, align="center")
        self.layout.text[label].append(box)
        return box

    # ------------------------------------------------------------ hexsides

    def _hexsides(self, draw: ImageDraw.ImageDraw) -> None:
        """Features along hexsides first, then across them (roads), then bridges."""
        written = self.model.map.hexsides
        layers = (
            ("stream", "line", "slope", "fieldworks"),
            ("ford",),
            ("road", "track", "path"),
            ("bridge",),
        )
        for styles in layers:
            for (a, b), features in written.items():
                for name, owner in features.items():
                    f = self.model.features[name]
                    if f.draw in styles:
                        self._feature(draw, f, a, b, owner)

    def _feature(
        self, draw: ImageDraw.ImageDraw, f: ir.HexsideFeature, a: str, b: str, owner: str
    ) -> None:
        p, q = self.hexside(a, b)
        self._draw(draw, f, (p, q), (self.centre(a), self.centre(b)), self.centre(owner or a))

    def _draw(
        self,
        draw: ImageDraw.ImageDraw,
        f: ir.HexsideFeature,
        side: tuple[PxPoint, PxPoint],
        centres: tuple[PxPoint, PxPoint],
        inside: PxPoint,
    ) -> None:
        """One feature on the hexside p–q between two hex centres; `inside`: its owner's centre."""
        styles = {
            "road": self._road,
            "track": self._road,
            "path": self._road,
            "stream": self._line,
            "line": self._line,
            "ford": self._ford,
            "bridge": self._bridge,
            "slope": self._edge_symbol,
            "fieldworks": self._edge_symbol,
        }
        if f.draw in styles:
            styles[f.draw](draw, Stroke(f.draw, rgb(f.color), side, centres, inside))

    def _line(self, draw: ImageDraw.ImageDraw, s: Stroke) -> None:
        """A stream or a line along the hexside."""
        width = max(2, round((0.12 if s.style == "stream" else 0.05) * self.radius))
        draw.line((*s.side[0], *s.side[1]), fill=s.color, width=width)

    def _ford(self, draw: ImageDraw.ImageDraw, s: Stroke) -> None:
        """Three stepping stones along the hexside."""
        p, q = s.side
        for t in (0.3, 0.5, 0.7):
            x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
            r = 0.07 * self.radius
            draw.ellipse((x - r, y - r, x + r, y + r), fill=(235, 225, 190), outline=s.color)

    def _road(self, draw: ImageDraw.ImageDraw, s: Stroke) -> None:
        """A road, track or path from centre to centre: solid, or dashed (a track's
        dashes long, a path's short); kept for place labels to stay clear of."""
        width = max(2, round(ROAD_WIDTHS[s.style] * self.radius))
        if s.style == "road":
            self._solid_road(draw, s.color, width, *s.centres)
        else:
            dash = (0.16 if s.style == "track" else 0.07) * self.radius
            self._dashes(draw, s.color, width, dash, *s.centres)
        self.roads.append(s.centres)

    @staticmethod
    def _solid_road(
        draw: ImageDraw.ImageDraw, color: RGB, width: int, a: PxPoint, b: PxPoint
    ) -> None:
        """A line with round ends, so that roads meeting at a centre join up."""
        draw.line((*a, *b), fill=color, width=width)
        for x, y in (a, b):
            draw.ellipse((x - width / 2, y - width / 2, x + width / 2, y + width / 2), fill=color)

    @staticmethod
    def _dashes(
        draw: ImageDraw.ImageDraw, color: RGB, width: int, dash: float, a: PxPoint, b: PxPoint
    ) -> None:
        steps = max(1, int(math.dist(a, b) // dash))
        for i in range(0, steps, 2):
            t0, t1 = i / steps, min(1.0, (i + 1) / steps)
            draw.line(
                (
                    a[0] + (b[0] - a[0]) * t0,
                    a[1] + (b[1] - a[1]) * t0,
                    a[0] + (b[0] - a[0]) * t1,
                    a[1] + (b[1] - a[1]) * t1,
                ),
                fill=color,
                width=width,
            )

    def _bridge(self, draw: ImageDraw.ImageDraw, s: Stroke) -> None:
        """A plank across the hexside, along the line between the two centres."""
        r = self.radius
        a, b = s.centres
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        ux, uy = (b[0] - a[0]) / math.dist(a, b), (b[1] - a[1]) / math.dist(a, b)
        half_len, half_w = 0.24 * r, 0.09 * r
        corners = [
            (mx + sx * half_len * ux - sw * half_w * uy, my + sx * half_len * uy + sw * half_w * ux)
            for sx, sw in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
        draw.polygon(corners, fill=s.color, outline=INK)

    def _edge_symbol(self, draw: ImageDraw.ImageDraw, s: Stroke) -> None:
        """A slope's solid line, or fieldworks, on the side of the hex they belong to.

        The ticks of a slope and the teeth of fieldworks point out of that hex.
        """
        r = self.radius
        p, q = s.side
        ex, ey = q[0] - p[0], q[1] - p[1]
        nx, ny = _inward_normal(p, q, s.inside)
        inset = 0.07 * r
        a = (p[0] + nx * inset + ex * 0.08, p[1] + ny * inset + ey * 0.08)
        b = (q[0] + nx * inset - ex * 0.08, q[1] + ny * inset - ey * 0.08)
        width = max(2, round(0.045 * r))
        draw.line((*a, *b), fill=s.color, width=width)
        n = 5
        for i in range(n):
            t0, t1 = (i + 0.2) / n, (i + 0.8) / n
            base0 = (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0)
            base1 = (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1)
            mid = ((base0[0] + base1[0]) / 2, (base0[1] + base1[1]) / 2)
            if s.style == "slope":
                draw.line(
                    (*mid, mid[0] - nx * 0.14 * r, mid[1] - ny * 0.14 * r),
                    fill=s.color,
                    width=max(1, width // 2),
                )
            else:
                tip = (mid[0] - nx * 0.13 * r, mid[1] - ny * 0.13 * r)
                draw.polygon([base0, base1, tip], fill=s.color)

    # ------------------------------------------------------------ places and overlays

    def _star(self, draw: ImageDraw.ImageDraw, at: PxPoint, size: float) -> None:
        cx, cy = at
        points = []
        for i in range(10):
            angle = math.pi / 2 + i * math.pi / 5
            rad = size if i % 2 == 0 else size * 0.45
            points.append((cx + rad * math.cos(angle), cy - rad * math.sin(angle)))
        draw.polygon(points, fill=STAR, outline=INK)

    def _places(self, draw: ImageDraw.ImageDraw) -> None:
        r = self.radius
        for place in self.model.map.places:
            cx, cy = self.centre(place.hex)
            if place.victory:
                size = 0.24 * r
                self._star(draw, (cx, cy), size)
                self.layout.text[place.hex].append((cx - size, cy - size, cx + size, cy + size))
            text, at, size, clear = self._place_label(draw, place)
            self.layout.places[place.name] = self._text(
                draw, place.hex, text, at, "place", INK, boxed=not clear, size=size
            )

    def _place_label(
        self, draw: ImageDraw.ImageDraw, place: ir.Place
    ) -> tuple[str, PxPoint, int, bool]:
        """Where a place's name goes: the first of a few spots, sizes and line breaks
        that stays clear of hex numbers, roads and the victory star; else the spot
        with the least in the way, and the label is drawn on a paper box."""
        r = self.radius
        cx, cy = self.centre(place.hex)
        star = (
            [(cx - 0.26 * r, cy - 0.26 * r, cx + 0.26 * r, cy + 0.26 * r)] if place.victory else []
        )
        best: tuple[float, str, PxPoint, int] | None = None
        for text, at, size, box in self._label_tries(draw, place):
            crowd = self._crowding(box, star)
            if crowd == 0:
                return text, at, size, True
            if best is None or crowd < best[0]:
                best = (crowd, text, at, size)
        assert best is not None
        return best[1], best[2], best[3], False

    def _label_tries(
        self, draw: ImageDraw.ImageDraw, place: ir.Place
    ) -> Iterator[tuple[str, PxPoint, int, Box]]:
        """A place's label in the order to try it: each of three sizes, on one
        line then on two, at each of `SPOTS`; with the box it would take."""
        r = self.radius
        cx, cy = self.centre(place.hex)
        largest = self.fonts["place"].size
        for size in (largest, round(largest * 0.85), round(largest * 0.72)):
            f = self.fonts["place"].font_variant(size=size)
            for text in _label_texts(place.title):
                left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=f)
                w, h = right - left, bottom - top
                for dx, dy in SPOTS:
                    at = (cx + dx * r, cy + dy * r)
                    box = (at[0] - w / 2, at[1] - h / 2, at[0] + w / 2, at[1] + h / 2)
                    yield text, at, size, box

    def _crowding(self, box: Box, others: list[Box]) -> float:
        """How much of what a label must not cover lies under `box`: overlapping
        hex numbers and marks, and points of road centre lines."""
        pad = 0.06 * self.radius  # a road's half width and a little air
        padded = (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)
        # A covered hex number is worst (the hex can no longer be found), then
        # the star, then a road (a label on a paper box can sit on a road).
        crowd = 1000.0 * _overlapping(padded, self.numbers) + 100 * _overlapping(padded, others)
        return crowd + sum(
            _points_inside(padded, a, b) for a, b in self.roads if _near(padded, a, b)
        )

    def _dashed_hex(self, draw: ImageDraw.ImageDraw, centre: PxPoint, size: float) -> None:
        """A hexagon outline of dashes, as maps mark a line of hexes (a maneuver limit)."""
        x, y = centre
        corners = [(x + size * math.cos(a), y - size * math.sin(a)) for a in CORNER_ANGLES]
        width = max(1, round(0.05 * self.radius))
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
            for k in range(0, 6, 2):  # three dashes a side
                t0, t1 = k / 6, (k + 1) / 6
                draw.line(
                    (
                        ax + (bx - ax) * t0,
                        ay + (by - ay) * t0,
                        ax + (bx - ax) * t1,
                        ay + (by - ay) * t1,
                    ),
                    fill=INK,
                    width=width,
                )

    def _zones(self, kind: str) -> list[ir.Zone]:
        """The map's zones of one kind: "entry" hexes, a "line" of hexes, …"""
        return [z for z in self.model.map.zones if z.kind == kind]

    def _lines(self, draw: ImageDraw.ImageDraw) -> None:
        """Each line of hexes (a maneuver limit), a dashed ring in every hex of it."""
        for zone in self._zones("line"):
            for label in zone.hexes:
                self._dashed_hex(draw, self.centre(label), 0.8 * self.radius)

    def _setup_areas(self, draw: ImageDraw.ImageDraw) -> None:
        """Each scenario's set-up area drawn round its edge, in the side's colour,
        just inside the hexes so that two areas sharing a border both show."""
        width = max(2, round(0.09 * self.radius))
        for area in self.setup_areas:
            for label, d in self._area_edge(area):
                c = self.centre(label)
                ends = self.grid.hexside_ends(*Grid.parse(label), d)
                p, q = (self.px(e) for e in ends)
                p, q = ((c[0] + (e[0] - c[0]) * 0.9, c[1] + (e[1] - c[1]) * 0.9) for e in (p, q))
                draw.line((*p, *q), fill=area.color, width=width)

    def _area_edge(self, area: SetupArea) -> Iterator[tuple[str, int]]:
        """The hexsides round an area: each hex of it, and each direction out of the area."""
        inside = set(area.hexes)
        for label in area.hexes:
            for d, neighbour in enumerate(self.model.neighbors(label)):
                if neighbour not in inside:
                    yield label, d

    def _entries(self, draw: ImageDraw.ImageDraw) -> None:
        for zone in self._zones("entry"):
            for label in zone.hexes:
                cx, cy = self.centre(label)
                self._text(
                    draw, label, zone.title, (cx, cy - 0.3 * self.radius), "place", INK, boxed=True
                )

    def _unit(self, draw: ImageDraw.ImageDraw, label: str) -> None:
        cx, cy = self.centre(label)
        s = 0.3 * self.radius
        box = (cx - s, cy - s, cx + s, cy + s)
        draw.rectangle(
            box, fill=(230, 230, 230), outline=INK, width=max(1, round(0.04 * self.radius))
        )
        self.layout.text[label].append(box)

    def _sight(self, draw: ImageDraw.ImageDraw, a: str, b: str, sight: Sight) -> None:
        """The line of sight, and what blocks it: hexes ringed, a hexside struck."""
        r = self.radius
        color = LOS_CLEAR if sight.clear else LOS_BLOCKED
        draw.line((*self.centre(a), *self.centre(b)), fill=color, width=max(2, round(0.05 * r)))
        for label in (a, b):
            x, y = self.centre(label)
            s = 0.1 * r
            draw.ellipse((x - s, y - s, x + s, y + s), fill=color)
        if sight.blocker is not None and sight.blocker.kind != "range":
            self._blocker(draw, sight.blocker)

    def _blocker(self, draw: ImageDraw.ImageDraw, blocker: Blocker) -> None:
        """What blocks a line of sight: hexes ringed, or the hexside between two struck."""
        r = self.radius
        hexes = [Grid.label(*h) for h in blocker.hexes if self.grid.contains(*h)]
        if blocker.kind in ("hex", "spine"):
            for label in hexes:
                draw.polygon(
                    self.corners(label), outline=LOS_BLOCKED, width=max(3, round(0.08 * r))
                )
        elif len(hexes) == 2:
            p, q = self.hexside(*hexes)
            draw.line((*p, *q), fill=LOS_BLOCKED, width=max(3, round(0.14 * r)))

    # ------------------------------------------------------------ the legend

    def _legend_items(self) -> list[tuple[str, str, str]]:
        """What the map shows, in declaration order: terrain and hexsides the map
        uses (a type declared but on no hex is not listed), marks, set-up areas."""
        return [
            *self._terrain_items(),
            *self._mark_items(),
            *(("setup", area.key, area.title) for area in self.setup_areas),
            *(
                ("place", p.name, p.title if p.hex in p.title else f"{p.title} ({p.hex})")
                for p in self.model.map.places
            ),
        ]

    def _terrain_items(self) -> list[tuple[str, str, str]]:
        """The terrain on some hex, then the hexside features on some hexside."""
        m = self.model
        terrain = {m.terrain_of(label).name for label in m.labels()}
        features = self._features_used()
        items = [("terrain", t.name, t.title) for t in m.terrain.values() if t.name in terrain]
        items += [("hexside", f.name, f.title) for f in m.features.values() if f.name in features]
        return items

    def _features_used(self) -> set[str]:
        """The hexside features on some hexside of the map."""
        return {f for _a, _b, side in self.model.graph.edges(data="side") for f in side.features}

    def _mark_items(self) -> list[tuple[str, str, str]]:
        """The victory star if any place has one, then entry hexes and lines of hexes."""
        m = self.model.map
        items = [("victory", "victory", "Victory hex")] if any(p.victory for p in m.places) else []
        items += [("entry", z.name, f"{z.title}: entry hex") for z in self._zones("entry")]
        items += [("line", z.name, z.title) for z in self._zones("line")]
        return items

    def _legend_lines(self, title: str) -> list[str]:
        """A legend entry's text broken at spaces to the legend's width (10 hex radii)."""
        f, width = self.fonts["legend"], LEGEND_TEXT * self.radius
        lines: list[str] = []
        for word in title.split():
            if lines and f.getlength(f"{lines[-1]} {word}") <= width:
                lines[-1] += f" {word}"
            else:
                lines.append(word)
        return lines or [""]

    def _legend_height(self) -> float:
        rows = sum(max(1, len(self._legend_lines(t)) * 0.6) for _k, _n, t in self._legend_items())
        return (rows + 2) * 0.95 * self.radius

    def _legend(self, draw: ImageDraw.ImageDraw, left: float) -> None:
        r = self.radius
        y = self.top
        draw.text((left, y - 0.3 * r), "Legend", font=self.fonts["title"], fill=INK)
        y += 0.95 * r
        for kind, name, title in self._legend_items():
            lines = self._legend_lines(title)
            row = 0.95 * r * max(1, len(lines) * 0.6)
            sample = (left + 0.5 * r, y + row / 2)
            self._legend_sample(draw, kind, name, sample)
            text = "\n".join(lines)
            draw.multiline_text(
                (left + 1.2 * r, y + row / 2),
                text,
                font=self.fonts["legend"],
                fill=INK,
                anchor="lm",
            )
            width = max(draw.textlength(line, font=self.fonts["legend"]) for line in lines)
            self.layout.legend.append(
                LegendEntry(kind, name, title, (left, y, left + 1.2 * r + width, y + row))
            )
            y += row

    def _legend_sample(self, draw: ImageDraw.ImageDraw, kind: str, name: str, at: PxPoint) -> None:
        samples = {
            "terrain": self._terrain_sample,
            "hexside": self._hexside_sample,
            "victory": self._victory_sample,
            "entry": self._entry_sample,
            "line": self._line_sample,
            "setup": self._setup_sample,
            "place": self._place_sample,
        }
        samples[kind](draw, name, at)

    def _small_hex(self, at: PxPoint) -> list[PxPoint]:
        """The corners of a legend's sample hex (corner radius 0.42 hex radii)."""
        x, y = at
        s = 0.42 * self.radius
        return [(x + s * math.cos(a), y - s * math.sin(a)) for a in CORNER_ANGLES]

    def _terrain_sample(self, draw: ImageDraw.ImageDraw, name: str, at: PxPoint) -> None:
        terrain = self.model.terrain[name]
        draw.polygon(self._small_hex(at), fill=rgb(terrain.color), outline=GRID_LINE)
        self._pattern(draw, at, terrain, 0.42 * self.radius)

    def _hexside_sample(self, draw: ImageDraw.ImageDraw, name: str, at: PxPoint) -> None:
        """A hexside standing upright between two half-hexes; a combined type
        shows the features it stands for."""
        r = self.radius
        x, y = at
        f = self.model.features[name]
        side = ((x, y - 0.42 * r), (x, y + 0.42 * r))
        centres = ((x - 0.5 * r, y), (x + 0.5 * r, y))
        for part in [self.model.features[c] for c in f.combines] or [f]:
            self._draw(draw, part, side, centres, centres[0])

    def _victory_sample(self, draw: ImageDraw.ImageDraw, _name: str, at: PxPoint) -> None:
        self._star(draw, at, 0.24 * self.radius)

    def _entry_sample(self, draw: ImageDraw.ImageDraw, name: str, at: PxPoint) -> None:
        """The entry's label on a paper box; a long label ("Red arrows") shrinks to fit."""
        r = self.radius
        x, y = at
        zone = next(z for z in self.model.map.zones if z.name == name)
        largest = round(self.fonts["place"].size)
        size = fit(zone.title, round(1.0 * r), round(0.6 * r), largest, 6, bold=False)
        f = font(size or 6, bold=False)
        left, top, right, bottom = draw.textbbox((0, 0), zone.title, font=f)
        w, h = right - left, bottom - top
        pad = 0.06 * r
        draw.rectangle(
            (x - w / 2 - pad, y - h / 2 - pad, x + w / 2 + pad, y + h / 2 + pad),
            fill=PAPER,
            outline=INK,
        )
        draw.text((x, y), zone.title, font=f, fill=INK, anchor="mm")

    def _line_sample(self, draw: ImageDraw.ImageDraw, _name: str, at: PxPoint) -> None:
        self._dashed_hex(draw, at, 0.42 * self.radius)

    def _setup_sample(self, draw: ImageDraw.ImageDraw, name: str, at: PxPoint) -> None:
        """A hex outlined in the set-up area's colour."""
        area = next(a for a in self.setup_areas if a.key == name)
        hexagon = self._small_hex(at)
        width = max(2, round(0.09 * self.radius))
        for k in range(6):
            a, b = hexagon[k], hexagon[(k + 1) % 6]
            draw.line((*a, *b), fill=area.color, width=width)

    def _place_sample(self, draw: ImageDraw.ImageDraw, _name: str, at: PxPoint) -> None:
        x, y = at
        r = self.radius
        draw.ellipse((x - 0.08 * r, y - 0.08 * r, x + 0.08 * r, y + 0.08 * r), fill=INK)


def render_map(
    model: MapModel,
    dpi: int = DPI,
    sight: tuple[str, str, Sight] | None = None,
    units: Iterable[str] = (),
) -> tuple[Image.Image, Layout]:
    """The map as an image, and where its hexes, texts and legend entries are."""
    renderer = MapRenderer(model, dpi)
    return renderer.render(sight, units), renderer.layout
