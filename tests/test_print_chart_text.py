"""Chart cells hold words and numbers a player reads, never a Python repr.

A cell that printed `MoveCost(default=1, classes=())` passed every look test
that only asked whether the chart drew; this test reads every cell of every
chart of every shipped battle instead.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from compiler import ir
from compiler.backends.print_and_play.charts import all_charts, cites, terrain_chart
from compiler.check import compile_ruleset
from tests.conftest import RULESETS

BATTLES = ["training", "monmouth", "newtown"]
CLASS_NAMES = {name for name, obj in vars(ir).items() if isinstance(obj, type)}
REPR = re.compile(r"\w\(|=|\[|\]|\('|',|'\)|\bNone\b|\bTrue\b|\bFalse\b|\)\)")


@cache
def compiled(battle: str) -> ir.Ruleset:
    return compile_ruleset(RULESETS / battle)[0]


@pytest.fixture(params=BATTLES)
def rules(request) -> ir.Ruleset:
    return compiled(request.param)


def test_no_chart_cell_is_a_python_repr(rules):
    for name, chart in all_charts(rules):
        for r, row in enumerate((chart.header, *chart.rows)):
            for c, cell in enumerate(row):
                where = f"{rules.name} {name} row {r} column {c}: {cell.text!r}"
                assert not REPR.search(cell.text), where
                assert not any(re.search(rf"\b{k}\s*\(", cell.text) for k in CLASS_NAMES), where


def test_the_check_catches_a_repr():
    cost = ir.MoveCost(1, ())
    assert REPR.search(str(cost)) and any(k in str(cost) for k in CLASS_NAMES)


def test_terrain_effects_give_movement_costs_in_words():
    chart = terrain_chart(compiled("monmouth"))
    head = [c.text for c in chart.header]
    rows = {row[0].text: [c.text for c in row] for row in chart.rows}
    move = head.index("Movement")
    assert rows["Light Forest"][move] == "2 MP, artillery 3 MP"
    assert rows["Forest (Heavy Forest)"][move] == "3 MP, artillery prohibited"
    assert rows["Creek (hexside)"][move] == "+1 MP, artillery +2 MP"
    assert rows["Ford (hexside)"][move] == "+0 MP\ninstead of Creek"
    assert rows["Slope (hexside)"][move] == "up: +1 MP, artillery +2 MP\ndown: +0 MP"
    assert rows["Road (hexside)"][move] == "1 MP along"
    assert rows["Light Forest"][head.index("Line of sight")] == "blocks"
    assert rows["Light Forest"][head.index("ZOC")] == "not into"
    assert "Defend DRM" in head


def test_citations_are_listed_once_in_rulebook_order():
    sections = ("12.52", "9.4", "12.52", "9.52", "11.42", "9.4")
    prov = ir.Prov((*(ir.Cite("series", s) for s in sections), ir.Cite("battle", "4.7")))
    assert cites(prov) == "§ series 9.4, 9.52, 11.42, 12.52; § battle 4.7"
