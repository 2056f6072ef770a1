"""Charts and counters hold words and numbers a player reads, never a Python repr.

A cell that printed `MoveCost(default=1, classes=())` passed every look test
that only asked whether the chart drew; this test reads every cell (and
title, subtitle and note) of every chart and track of every shipped battle
instead, and every text on every counter.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from compiler import ir
from compiler.backends.print_and_play.charts import all_charts, cites, table_chart, terrain_chart
from compiler.backends.print_and_play.face import Text
from compiler.backends.print_and_play.grid import PAD
from compiler.backends.print_and_play.mix import counter_mix
from compiler.backends.print_and_play.tracks import level_track, turn_track_charts
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from tests.conftest import SHIPPED_BATTLES, compiled

BATTLES = SHIPPED_BATTLES
CLASS_NAMES = {name for name, obj in vars(ir).items() if isinstance(obj, type)}
# Notes under a chart explain codes with "=" (`AM = Army Morale Loss`).
NOTE_REPR = re.compile(r"\w\(|\[|\]|\('|',|'\)|\bNone\b|\bTrue\b|\bFalse\b|\)\)")
REPR = re.compile(r"\w\(|=|\[|\]|\('|',|'\)|\bNone\b|\bTrue\b|\bFalse\b|\)\)")


@pytest.fixture(params=BATTLES)
def rules(request) -> ir.Ruleset:
    return compiled(request.param)[0]


def printed_charts(rules: ir.Ruleset):
    """Every chart the print build draws: tables, DRM lists, levels, terrain, turn track."""
    turns = [(f"turn_track_{n}", c) for n, c in enumerate(turn_track_charts(rules), start=1)]
    return [*all_charts(rules), *turns]


def is_repr(text: str, pattern: re.Pattern = REPR) -> bool:
    return bool(pattern.search(text)) or any(re.search(rf"\b{k}\s*\(", text) for k in CLASS_NAMES)


def test_no_chart_cell_is_a_python_repr(rules):
    charts = printed_charts(rules)
    assert any(name.startswith("turn_track") for name, _c in charts) or not rules.turn_track
    for name, chart in charts:
        texts = [chart.title, chart.subtitle, *chart.notes]
        assert not any(is_repr(t, NOTE_REPR) for t in texts), f"{rules.name} {name}: {texts}"
        for r, row in enumerate((chart.header, *chart.rows)):
            for c, cell in enumerate(row):
                assert not is_repr(cell.text), (
                    f"{rules.name} {name} row {r} column {c}: {cell.text!r}"
                )
    for lv in rules.levels:
        assert not any(is_repr(level.title) for level in lv.levels), lv.name


def test_no_chart_has_two_columns_of_one_name(rules):
    # The Army Morale Adjustment Chart once headed its rows and its values
    # "Result" both: a player cannot tell which column is which.
    for name, chart in printed_charts(rules):
        heads = [c.text for c in chart.header]
        assert len(heads) == len(set(heads)), f"{rules.name} {name}: {heads}"


def test_no_counter_text_is_a_python_repr(rules):
    for counter in counter_mix(rules, Reporter(SourceFiles())):
        for face in (counter.front, counter.back):
            for item in face.items:
                if isinstance(item, Text):
                    assert not is_repr(item.text), f"{rules.name} {counter.name}: {item.text!r}"


def test_level_names_stay_on_the_track(rules):
    # The track's boxes start PAD in from each edge; a level name wider than
    # its boxes (a one-box "Demoralized") once ran off the left edge.
    for lv in rules.levels:
        ink = np.asarray(level_track(rules, lv).convert("L")) < 128
        margin = PAD // 2
        assert not ink[:, :margin].any() and not ink[:, -margin:].any(), lv.name


def test_every_counter_shows_something(rules):
    # The Newtown cattle herd, a `piece`, once had a blank face: no look
    # was declared for pieces.
    for counter in counter_mix(rules, Reporter(SourceFiles())):
        texts = [i.text for i in counter.front.items if isinstance(i, Text)]
        assert counter.front.items, f"{rules.name} {counter.name} has a blank front"
        if counter.kind == "piece":
            unit = next(u for u in rules.units if u.name == counter.name)
            assert unit.title in texts and str(unit.movement) in texts, texts


def test_table_names_print_as_titles():
    rules = compiled("monmouth")[0]
    chart = table_chart(rules, next(t for t in rules.tables if t.name == "cc_identification"))
    assert [c.text for c in chart.header] == ["Die roll", "Turns 2–3", "Turn 4 plus"]
    cells = {row[0].text: [c.text for c in row[1:]] for row in chart.rows}
    assert cells["0"][0] == "Maxwell's New Jersey Brigade/Scott's Detachment"
    results = table_chart(rules, next(t for t in rules.tables if t.name == "army_morale_chart"))
    assert "Captured, Defender's Choice" in [row[0].text for row in results.rows]
    assert [c.text for c in results.header] == ["Result", "Army morale"]


def test_the_check_catches_a_repr():
    cost = ir.MoveCost(1, ())
    assert REPR.search(str(cost)) and any(k in str(cost) for k in CLASS_NAMES)


def test_terrain_effects_give_movement_costs_in_words():
    chart = terrain_chart(compiled("monmouth")[0])
    head = [c.text for c in chart.header]
    rows = {row[0].text: [c.text for c in row] for row in chart.rows}
    move = head.index("Movement")
    assert rows["Light Forest"][move] == "2 MP, artillery 3 MP"
    assert rows["Forest (Heavy Forest)"][move] == "3 MP, artillery prohibited"
    assert rows["Creek (hexside)"][move] == "+1 MP, artillery +2 MP"
    assert rows["Slope (hexside)"][move] == "up: +1 MP, artillery +2 MP\ndown: +0 MP"
    assert rows["Road (hexside)"][move] == "1 MP along"
    assert rows["Light Forest"][head.index("Line of sight")] == "blocks"
    assert rows["Light Forest"][head.index("ZOC")] == "not into"
    assert "Defend DRM" in head


def test_terrain_effects_list_the_terrain_of_the_map():
    # The series declares terrain no one map holds (a meeting house, a town,
    # fieldworks); a battle's chart lists what a player meets on its map.
    monmouth = {row[0].text for row in terrain_chart(compiled("monmouth")[0]).rows}
    assert {"Village", "Hedgerow (hexside)", "Slope/Creek (hexside)"} <= monmouth
    assert not {"Town", "Meeting House", "Fieldworks (hexside)", "Ford (hexside)"} & monmouth
    newtown = terrain_chart(compiled("newtown")[0])
    head = [c.text for c in newtown.header]
    rows = {row[0].text: [c.text for c in row] for row in newtown.rows}
    assert rows["Ford (hexside)"][head.index("Movement")] == "+0 MP\ninstead of Creek"
    assert "Town" not in rows and "Breastwork (hexside)" in rows


def test_citations_are_listed_once_in_rulebook_order():
    sections = ("12.52", "9.4", "12.52", "9.52", "11.42", "9.4")
    prov = ir.Prov((*(ir.Cite("series", s) for s in sections), ir.Cite("battle", "4.7")))
    assert cites(prov) == "§ series 9.4, 9.52, 11.42, 12.52; § battle 4.7"
