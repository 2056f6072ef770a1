"""Counter faces, checked from their layout: sizes, text at least 6 pt, no overlaps, values."""

from __future__ import annotations

import itertools
import math

import pytest

from compiler.backends.print_and_play.geometry import COUNTER_INCHES, COUNTER_PX, DPI, MIN_TEXT_PX
from compiler.backends.print_and_play.mix import counter_mix
from compiler.check import compile_ruleset
from dsl.diagnostics import Reporter
from tests.conftest import RULESETS, STEPS
from tests.print_helpers import PRINT_TEST

RULESETS_TO_DRAW = [
    RULESETS / "training",
    RULESETS / "monmouth",
    RULESETS / "newtown",
    PRINT_TEST,
    STEPS,
]


def mix_of(path):
    rules, sources = compile_ruleset(path)
    r = Reporter(sources)
    mix = counter_mix(rules, r)
    r.check()
    return rules, mix


def test_a_counter_is_five_eighths_of_an_inch_rounded_up():
    assert COUNTER_INCHES * DPI == 187.5
    assert COUNTER_PX == math.ceil(COUNTER_INCHES * DPI) == 188
    assert math.ceil(6 / 72 * DPI) == MIN_TEXT_PX


@pytest.mark.parametrize("path", RULESETS_TO_DRAW, ids=lambda p: p.name)
def test_text_is_at_least_6_pt_inside_the_counter_and_never_overlaps(path):
    _rules, mix = mix_of(path)
    faces = [
        (c.name, side, face) for c in mix for side, face in (("front", c.front), ("back", c.back))
    ]
    assert faces
    for name, side, face in faces:
        for t in face.texts:
            assert t.size >= MIN_TEXT_PX, (name, side, t.text)
            x0, y0, x1, y1 = t.box
            assert 0 <= x0 < x1 <= COUNTER_PX and 0 <= y0 < y1 <= COUNTER_PX, (name, side, t)
        for a, b in itertools.combinations(face.texts, 2):
            apart = (
                a.box[2] <= b.box[0]
                or b.box[2] <= a.box[0]
                or a.box[3] <= b.box[1]
                or b.box[3] <= a.box[1]
            )
            assert apart, (name, side, a.text, b.text)


def texts(face):
    return [t.text for t in face.texts]


def test_fronts_and_backs_print_the_declared_values():
    rules, mix = mix_of(PRINT_TEST)
    by_name = {c.name: c for c in mix}
    for u in rules.units:
        c = by_name[u.name]
        front = texts(c.front)
        assert u.short in front
        assert str(u.movement) in front
        if u.kind == "unit":
            sp = str(u.strengths[0]) + (f"/{u.rifle_strengths[0]}" if u.rifle_strengths else "")
            assert sp in front, (u.name, front)
        if u.setup:
            assert u.setup in front
        if len(u.strengths) == 2:
            back = texts(c.back)
            sp = str(u.strengths[1]) + (f"/{u.rifle_strengths[1]}" if u.rifle_strengths else "")
            assert sp in back and (u.reduced_short or u.short) in back, (u.name, back)
            assert u.setup not in back
    assert "Ramsey" in texts(by_name["wesley"].back) and "Wesley" not in texts(
        by_name["wesley"].back
    )
    assert texts(by_name["dragoons"].back) == ["Dismounted"]
    assert texts(by_name["jaegers"].back) == []
    assert "(3) 0101" in texts(by_name["dragoons"].front)
    assert "T2 0101+" in texts(by_name["rangers"].front)


def test_a_three_step_unit_has_a_replacement_counter_for_its_third_step():
    _rules, mix = mix_of(STEPS)
    counters = [c for c in mix if c.name.startswith("red_grenadiers")]
    assert [c.name for c in counters] == ["red_grenadiers", "red_grenadiers-step3"]
    unit, replacement = counters
    # strength, morale, movement: 6 / 4 / 2 and 2 / 1 / 0, the set-up on the front only
    assert texts(unit.front) == ["Grenadiers", "0304", "6", "+2", "4"]
    assert texts(unit.back) == ["Grenadiers", "4", "+1", "4"]
    assert texts(replacement.front) == ["Grenadiers", "3rd step", "2", "0", "4"]
    assert texts(replacement.back) == []  # the unit's declared back: blank
    assert (replacement.kind, replacement.side, replacement.copies) == ("unit", "red", 1)
    # a two-step unit keeps its one counter
    assert [c.name for c in mix if c.name.startswith("red_guard")] == ["red_guard"]


def test_leaders_show_rank_stars_and_their_drms():
    _rules, mix = mix_of(PRINT_TEST)
    grey = next(c for c in mix if c.name == "general_grey")
    stars = [s for s in grey.front.items if getattr(s, "kind", "") == "stars"]
    assert [s.name for s in stars] == ["3"]
    assert {"+1", "+2", "6", "Grey", "0302"} <= set(texts(grey.front))


def test_rifle_badges_and_rear_guard_boxes():
    _rules, mix = mix_of(PRINT_TEST)
    by_name = {c.name: c for c in mix}
    badge = {
        n: [s for s in by_name[n].front.items if getattr(s, "kind", "") == "badge"] for n in by_name
    }
    # The value is the colour of the R, the circle the other colour (series
    # 3.2: "a white "R" in a black circle or a black "R" in a white circle").
    assert badge["riflemen"][0].fill == "#ffffff" and "R" in texts(by_name["riflemen"].front)
    assert badge["jaegers"][0].fill == "#000000"
    r_ink = {
        n: next(t.color for t in by_name[n].front.items if getattr(t, "text", "") == "R")
        for n in ("riflemen", "jaegers")
    }
    assert r_ink == {"riflemen": "black", "jaegers": "white"}
    assert not badge["wesley"]
    boxes = [s for s in by_name["grenadiers"].front.items if getattr(s, "kind", "") == "box"]
    assert len(boxes) == 1
    assert not [s for s in by_name["wesley"].front.items if getattr(s, "kind", "") == "box"]


def test_formation_band_and_stripe_colour_the_counter():
    _rules, mix = mix_of(PRINT_TEST)
    by_name = {c.name: c for c in mix}
    assert (by_name["grenadiers"].front.band, by_name["grenadiers"].front.stripe) == (
        "tan",
        "#b22222",
    )
    assert (by_name["field_guns"].front.band, by_name["field_guns"].front.stripe) == ("#1f3f8f", "")
    assert by_name["riflemen"].front.stripe == "lightblue"


def test_every_symbol_is_drawn():
    rules, mix = mix_of(PRINT_TEST)
    drawn = {s.name for c in mix for s in c.front.items if getattr(s, "kind", "") == "symbol"}
    assert drawn == {t.symbol for t in rules.unit_types}


def test_a_face_for_some_unit_types_changes_only_those():
    _rules, mix = mix_of(PRINT_TEST)
    by_name = {c.name: c for c in mix}
    for name in ("royal_guns", "field_guns", "mortars"):
        assert "G" in texts(by_name[name].front) and by_name[name].front.body == "#f3ead2"
    for name in ("grenadiers", "wesley"):
        assert "G" not in texts(by_name[name].front) and by_name[name].front.body != "#f3ead2"
    kinds = [getattr(s, "kind", "") for s in by_name["royal_guns"].front.items]
    assert kinds.count("box") == 1  # the rear-guard face still applies
