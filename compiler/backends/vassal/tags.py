"""Order-state tags: their images, and where each goes on a counter, clear of its values.

A tag (Disrupted, Pinned, …) is a small layer image drawn over the counter at
an offset of its own. The place is chosen per counter from its laid-out
faces (front and back: a flipped counter keeps its tags): the combat factors
along the foot are never covered; of the rest, a tag covers as little as it
can, the unit-type symbol before the name band and the band before any other
value. Each of a counter's tags gets its own place, so several show at once.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from compiler.backends.fonts import fit, font
from compiler.backends.print_and_play.face import Box, Shape, Text
from compiler.backends.print_and_play.geometry import COUNTER_PX
from compiler.backends.print_and_play.layout import BAND_H, SLOT_BOXES
from compiler.backends.print_and_play.mix import Counter
from compiler.backends.vassal.images import COUNTER, png

TAG_H = 14
TAG_FONT, SMALLEST = 10, 7  # the words' size, and the least they shrink to
WIDEST = 64  # a tag's width at most (two thirds of the counter)
EDGE = 2  # a tag keeps this far inside the counter
STEP = 2
FACTOR = 1_000_000  # a factor along the foot: never covered
VALUE, BAND, SYMBOL = 12, 3, 1  # cost of covering a pixel of each

Place = tuple[int, int]  # a tag's top-left corner, in counter pixels


def tag_width(levels: tuple[str, ...]) -> int:
    """A state's tag width: room for its longest words, at most `WIDEST`."""
    longest = max(font(TAG_FONT).getlength(level) for level in levels)
    return min(int(longest) + 8, WIDEST)


def tag_places(counter: Counter | None, widths: tuple[int, ...]) -> tuple[Place, ...]:
    """Where the tags of these widths go on `counter`, each in a place of its own:
    the first tag gets the clearest place, the next the clearest left, …"""
    covering = _covering_costs(_ink(counter) if counter is not None else [])
    taken: list[Box] = []
    out = []
    for w in widths:
        best = min(
            _candidates(w),
            key=lambda xy: (_cost(_box(xy, w), covering, taken), _off_centre(xy, w)),
        )
        out.append(best)
        taken.append(_box(best, w))
    return tuple(out)


def tag(text: str, fill: str, width: int) -> bytes:
    """A state's tag: its words on its colour."""
    img = Image.new("RGBA", (width, TAG_H), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, width - 1, TAG_H - 1), fill=fill, outline="#000000")
    label = text
    while fit(label, width - 4, TAG_H - 2, TAG_FONT, SMALLEST) == 0:  # cut too long a text short
        label = label[:-2] + "…"
    size = fit(label, width - 4, TAG_H - 2, TAG_FONT, SMALLEST)
    d.text((width // 2, TAG_H // 2), label, font=font(size), fill="#ffffff", anchor="mm")
    return png(img)


def layer_offset(place: Place, width: int) -> tuple[int, int]:
    """A layer's offset in VASSAL: from the counter's centre to the tag's (VASSAL
    centres a layer's image on the counter, then moves it by the offset)."""
    x, y = place
    return x + width // 2 - COUNTER // 2, y + TAG_H // 2 - COUNTER // 2


def _ink(counter: Counter) -> list[tuple[Box, int]]:
    """Every printed item of both faces, in counter pixels, with the cost of covering it."""
    scale = COUNTER / COUNTER_PX
    foot = SLOT_BOXES["bottom"]
    out = []
    for face in (counter.front, counter.back):
        for item in face.items:
            x0, y0, x1, y1 = item.box
            cy = (y0 + y1) / 2
            if isinstance(item, Shape) and item.kind == "symbol":
                cost = SYMBOL
            elif isinstance(item, Text) and cy < BAND_H:
                cost = BAND
            elif foot[1] <= cy:
                cost = FACTOR
            else:
                cost = VALUE
            box = (int(x0 * scale), int(y0 * scale), int(x1 * scale) + 1, int(y1 * scale) + 1)
            out.append((box, cost))
    return out


def _candidates(width: int) -> list[Place]:
    return [
        (x, y)
        for y in range(EDGE, COUNTER - EDGE - TAG_H + 1, STEP)
        for x in range(EDGE, COUNTER - EDGE - width + 1, STEP)
    ]


def _box(xy: Place, width: int) -> Box:
    x, y = xy
    return x, y, x + width, y + TAG_H


def _covering_costs(ink: list[tuple[Box, int]]) -> list[list[int]]:
    """What covering the counter's pixels costs, summed from its top-left corner
    (`table[y][x]`: the pixels above and left of x, y), so that a box's cost is four
    look-ups: the sum over its pixels of the cost of each printed item under them."""
    pixel = [[0] * COUNTER for _ in range(COUNTER)]
    for (x0, y0, x1, y1), cost in ink:
        x0, x1 = max(x0, 0), min(x1, COUNTER)
        for y in range(max(y0, 0), min(y1, COUNTER)):
            row = pixel[y]
            for x in range(x0, x1):
                row[x] += cost
    table = [[0] * (COUNTER + 1)]
    for row in pixel:
        above, running, line = table[-1], 0, [0]
        for x, cost in enumerate(row):
            running += cost
            line.append(above[x + 1] + running)
        table.append(line)
    return table


def _cost(box: Box, covering: list[list[int]], taken: list[Box]) -> int:
    if any(_overlap(box, t) for t in taken):
        return FACTOR * 10
    x0, y0, x1, y1 = box
    return covering[y1][x1] - covering[y0][x1] - covering[y1][x0] + covering[y0][x0]


def _overlap(a: Box, b: Box) -> int:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0) * max(h, 0)


def _off_centre(xy: Place, width: int) -> int:
    """Among equally clear places, the one nearest the middle of the counter."""
    x, y = xy
    return abs(x + width // 2 - COUNTER // 2) + abs(y + TAG_H // 2 - COUNTER // 2)
