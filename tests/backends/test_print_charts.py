"""Charts and tracks: every table drawn from the IR, provisional values visibly marked."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from compiler.backends.print_and_play.charts import all_charts, table_chart
from compiler.backends.print_and_play.grid import HATCH, MARK, reasons, render_chart
from compiler.backends.print_and_play.tracks import level_track, turn_track_charts
from compiler.check import compile_ruleset
from tests.conftest import RULESETS
from tests.print_helpers import PRINT_TEST


@pytest.fixture(scope="module")
def rules():
    return compile_ruleset(PRINT_TEST)[0]


def has_colour(img: Image.Image, colour: str) -> bool:
    rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    a = np.asarray(img.convert("RGB"), dtype=np.int16)
    return bool((np.abs(a - np.array(rgb)).max(axis=2) <= 10).any())


def test_every_table_modifier_list_and_level_track_has_a_chart(rules):
    names = {name for name, _chart in all_charts(rules)}
    assert {t.name for t in rules.tables} <= names
    assert {m.name for m in rules.modifiers} <= names
    assert {lv.name for lv in rules.levels} <= names
    assert "terrain_effects" in names


def test_table_cells_follow_the_ruleset(rules):
    cc = table_chart(rules, next(t for t in rules.tables if t.name == "close_combat_table"))
    assert [c.text for c in cc.header] == ["Die roll", "1:2", "1:1", "2:1", "3:1"]
    assert [c.text for c in cc.rows[0]] == ["1 or less", "E/-", "R/-", "1/-", "-/-"]
    assert [r[0].text for r in cc.rows] == ["1 or less", "2–5", "6 or more"]
    tm = table_chart(rules, next(t for t in rules.tables if t.name == "tactics_matrix"))
    assert [r[0].text for r in tm.rows] == ["Assault", "Flank", "Probe"]
    assert [c.text for c in tm.rows[2]] == ["Probe", "0", "-1", "1"]


@pytest.mark.parametrize("path", [RULESETS / "training", PRINT_TEST], ids=lambda p: p.name)
def test_provisional_values_are_marked_on_every_chart_and_only_there(path):
    rules = compile_ruleset(path)[0]
    charts = [chart for _name, chart in all_charts(rules)] + turn_track_charts(rules)
    assert charts
    for chart in charts:
        img = render_chart(chart, 2400)
        marked = bool(reasons(chart))
        assert has_colour(img, MARK) == marked, chart.title
        assert has_colour(img, HATCH) == marked, chart.title
    for lv in rules.levels:
        provisional = any(level.prov.provisional for level in lv.levels)
        assert has_colour(level_track(rules, lv), MARK) == provisional


def test_every_provisional_row_of_the_ruleset_reaches_its_chart(rules):
    charts = dict(all_charts(rules))
    for t in rules.tables:
        chart = charts[t.name]
        for row, drawn in zip(t.rows, chart.rows, strict=True):
            assert all(c.provisional == row.prov.provisional for c in drawn[1:])
    turn_cells = [c for chart in turn_track_charts(rules) for row in chart.rows for c in row]
    assert any(c.provisional for c in turn_cells)


def test_turn_track_shows_heat_and_entries(rules):
    (chart,) = turn_track_charts(rules)
    rows = {row[0].text: [c.text for c in row[1:]] for row in chart.rows}
    assert rows["Heat"] == ["", "HEAT", "HEAT"]
    assert rows["Entry roll"] == ["", "0–4", ""]
    assert rows["Enter"][1] == "Crown: Rangers 0101/0102\nPatriot: Howitzers 1006"
    assert rows["Enter"][2] == "Crown: 16th Drag 0101 (roll)"
