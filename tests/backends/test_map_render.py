"""The rendered map: every hex shows its terrain, the legend names every feature and place.

Each shipped battle's map (and the hand-made map of every feature) is drawn;
inside every hex the image is sampled along the rays from its centre toward
its corners — away from the hex number, the roads toward the hexside
midpoints and the features along the hexsides — skipping any text or marker
the renderer placed. Those pixels must be the terrain's colour, and its
pattern's colour where it has one.
"""

from __future__ import annotations

import math

import pytest
from PIL import Image

from compiler.backends.map_render import CORNER_ANGLES, pattern_color, render_map, rgb, setup_areas
from compiler.check import compile_ruleset
from compiler.map.model import MapModel
from muster.cli import main
from tests.conftest import RULESETS, SHIPPED_BATTLES
from tests.maps import MAPS

DPI = 100


def shipped_maps() -> list:
    return [RULESETS / name for name in SHIPPED_BATTLES]


@pytest.fixture(scope="module", params=[*shipped_maps(), MAPS / "features.mst"], ids=str)
def rendered(request):
    model = MapModel(compile_ruleset(request.param)[0])
    image, layout = render_map(model, DPI)
    return model, image, layout


def sampled_colours(image: Image.Image, layout, label: str) -> tuple[set, int]:
    cx, cy = layout.centres[label]
    r = layout.radius
    near = [
        box
        for boxes in layout.text.values()
        for box in boxes
        if box[0] - 2 < cx + r
        and box[2] + 2 > cx - r
        and box[1] - 2 < cy + r
        and box[3] + 2 > cy - r
    ]
    colours, n = set(), 0
    for angle in CORNER_ANGLES:
        for k in range(math.ceil(0.3 * r), math.floor(0.65 * r) + 1):
            x, y = cx + k * math.cos(angle), cy - k * math.sin(angle)
            if any(b[0] - 2 <= x <= b[2] + 2 and b[1] - 2 <= y <= b[3] + 2 for b in near):
                continue
            colours.add(image.getpixel((round(x), round(y))))
            n += 1
    return colours, n


@pytest.mark.slow
def test_every_hex_shows_its_terrain(rendered):
    model, image, layout = rendered
    assert set(layout.centres) == set(model.labels())
    for label in model.labels():
        terrain = model.terrain_of(label)
        colours, n = sampled_colours(image, layout, label)
        assert n >= 2 * 0.3 * layout.radius, f"{label}: too little of the hex is free of text"
        expected = {rgb(terrain.color)}
        if terrain.pattern != "none":
            expected.add(pattern_color(terrain.color))
        assert colours == expected, f"{label} ({terrain.name}): {colours} != {expected}"


def test_the_legend_names_what_the_map_uses_and_every_place(rendered):
    model, image, layout = rendered
    entries = {(e.kind, e.name) for e in layout.legend}
    used = {model.terrain_of(label).name for label in model.labels()}
    assert {e.name for e in layout.legend if e.kind == "terrain"} == used
    if model.rules.name == "monmouth":  # the series declares terrain this map never shows
        assert "meeting_house" in set(model.terrain) - used
    on_sides = {f for _a, _b, side in model.graph.edges(data="side") for f in side.features}
    assert {e.name for e in layout.legend if e.kind == "hexside"} == on_sides
    assert {("place", p.name) for p in model.map.places} <= entries
    assert {("entry", z.name) for z in model.map.zones if z.kind == "entry"} <= entries
    if any(p.victory for p in model.map.places):
        assert ("victory", "victory") in entries
    for e in layout.legend:
        left, top, right, bottom = e.box
        assert 0 <= left < right <= image.width and 0 <= top < bottom <= image.height


def test_muster_map_writes_a_png_with_a_line_of_sight(tmp_path, capsys):
    out = tmp_path / "map.png"
    code = main(
        ["map", str(MAPS / "features.mst"), "-o", str(out), "--dpi", "60", "--los", "0302", "0702"]
    )
    assert code == 0 and f"map → {out}" in capsys.readouterr().out
    with Image.open(out) as image:
        assert image.format == "PNG" and image.width > 300
    assert (
        main(
            [
                "map",
                str(MAPS / "features.mst"),
                "-o",
                str(tmp_path / "x.png"),
                "--los",
                "0302",
                "1111",
            ]
        )
        == 1
    )
    assert "not a hex of the map" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_place_labels_keep_clear_of_hex_numbers(rendered):
    model, _image, layout = rendered
    numbers = {label: boxes[0] for label, boxes in layout.text.items() if boxes}
    for place in model.map.places:
        label_box = layout.places[place.name]
        for hex_label, box in numbers.items():
            overlap = min(label_box[2], box[2]) > max(label_box[0], box[0]) and min(
                label_box[3], box[3]
            ) > max(label_box[1], box[1])
            assert not overlap, f"{place.title} covers the number of {hex_label}"


def test_setup_areas_are_drawn_and_listed():
    rules = compile_ruleset(RULESETS / "training")[0]
    model = MapModel(rules)
    image, layout = render_map(model, DPI)
    setup = [e for e in layout.legend if e.kind == "setup"]
    assert len(setup) == 2 and all("Night March" in e.title for e in setup)
    # The east bank's border is drawn in the Blue side's ink along its west edge.
    area = next(a for a in setup_areas(rules) if "East bank" in a.title)
    cx, cy = layout.centres["0601"]
    r = layout.radius
    row = [image.getpixel((round(x), round(cy))) for x in range(round(cx - r), round(cx))]
    assert area.color in row
