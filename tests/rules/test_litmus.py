"""The litmus rules of DESIGN.md, each written in a small rule file on the
series rules (tests/data/litmus/), check clean and compile to the IR the rule
means: the event, the condition, the effects, the patch position."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

from compiler import ir
from compiler.check import compile_ruleset

LITMUS = Path(__file__).parent.parent / "data" / "litmus"
FILES = sorted(p.name for p in LITMUS.glob("*.mst"))


def compiled(name: str) -> ir.Ruleset:
    """The checked IR (compile_ruleset raises CompileError on any error)."""
    return compile_ruleset(LITMUS / name)[0]


def track_keys(tree: object) -> list[str]:
    """The turn-track values an expression reads (`track.heat` → "heat")."""
    return [q.args[0].value for q in of(ir.Query, tree) if q.func == "turn_data"]


def targets(tree: object) -> set[str]:
    """The variables (and bindings) a body sets."""
    return {s.name for s in of(ir.SetVar, tree)} | {s.name for s in of(ir.SetVarAt, tree)}


def nodes(tree: object) -> Iterator[object]:
    """Every IR node under a node (statements and expressions), depth first."""
    if isinstance(tree, tuple | list):
        for item in tree:
            yield from nodes(item)
    elif is_dataclass(tree) and not isinstance(tree, type):
        yield tree
        for f in fields(tree):
            if f.name not in ("span", "prov"):
                yield from nodes(getattr(tree, f.name))


def of(kind: type, tree: object) -> list:
    return [n for n in nodes(tree) if isinstance(n, kind)]


def named(items, name: str):
    return next(i for i in items if i.name == name)


def step_names(rules: ir.Ruleset, proc: str) -> list[str]:
    return [s.name for s in named(rules.procedures, proc).steps]


def consts(tree: object) -> set[object]:
    """The constants an expression holds (a negated number as the negative number)."""
    negated = {id(u.operand) for u in of(ir.Unary, tree) if u.op == "-"}
    return {-c.value if id(c) in negated else c.value for c in of(ir.Const, tree)}


def effects(tree: object) -> dict[str, list[ir.Effect]]:
    out: dict[str, list[ir.Effect]] = {}
    for e in of(ir.Effect, tree):
        out.setdefault(e.func, []).append(e)
    return out


def calls(tree: object) -> dict[str, list[ir.CallProc]]:
    out: dict[str, list[ir.CallProc]] = {}
    for c in of(ir.CallProc, tree):
        out.setdefault(c.proc, []).append(c)
    return out


def arg(call: ir.CallProc, name: str) -> ir.TExpr:
    return dict(call.args)[name]


def test_there_is_a_file_for_each_litmus_rule():
    assert set(FILES) >= {
        "lee_east.mst",
        "lee_relieved.mst",
        "washington_adjacent.mst",
        "heat.mst",
        "command_and_control.mst",
        "rear_guard.mst",
        "morgan.mst",
        "activation_cup.mst",
        "retreat_before_combat.mst",
        "evasion.mst",
        "cattle_herd.mst",
        "attachment.mst",
    }


@pytest.mark.parametrize("name", FILES)
def test_each_litmus_file_checks_clean(name):
    compiled(name)


# ---------------------------------------------------------------- Monmouth


def test_lee_must_reach_hex_row_21_by_the_third_american_player_turn():
    r = compiled("lee_east.mst")
    late = named(r.triggers, "lee_late")
    assert late.event == "end" and not late.once
    # at the end of the American player turn of turn 3, if Lee never reached 21xx
    assert {"player_turn", "american", 3} <= consts(late.condition)
    assert any(v.name == "lee_reached_21" for v in of(ir.Var, late.condition))
    assert list(calls(late.body)) == ["lee_penalty"]
    # the hex-row predicate
    row = named(r.defines, "beyond_21xx")
    [query] = of(ir.Query, row.body)
    assert query.func == "hex_column" and 21 in consts(row.body)
    # the penalty: -2 Army Morale and a British VP, once (a flag other rules can read)
    penalty = named(r.procedures, "lee_penalty")
    [adjust] = calls(penalty.steps)["adjust_army_morale"]
    assert consts(arg(adjust, "side")) == {"american"} and consts(arg(adjust, "amount")) == {-2}
    [score] = effects(penalty.steps)["score"]
    assert [a.value for a in score.args] == ["british", 1]
    assert "lee_penalized" in targets(penalty.steps)
    # moving west of the row later, while in command, costs the same
    back = named(r.triggers, "lee_falls_back")
    assert back.event == "entered"
    assert {"lee_in_command", "lee_reached_21"} <= {v.name for v in of(ir.Var, back.condition)}
    assert named(r.variables, "lee_in_command").type == "bool"


def test_lee_is_relieved_when_he_and_washington_share_a_hex():
    r = compiled("lee_relieved.mst")
    relief = named(r.triggers, "lee_relieved")
    assert relief.event == "entered" and relief.once
    assert [q.func for q in of(ir.Query, relief.condition)] == ["hex_of", "hex_of"]
    halts = effects(relief.body)["halt"]
    assert sorted(c.value for h in halts for c in of(ir.Const, h)) == ["lee", "washington"]
    [adjust] = calls(relief.body)["adjust_army_morale"]
    assert consts(arg(adjust, "amount")) == {1}
    assert targets(relief.body) == {"lee_in_command", "cc_intact_turn"}
    # the C&C phase is switched off from the next turn: the player-turn step
    # that runs it tests cc_intact_turn, and is inserted before movement
    steps = step_names(r, "player_turn")
    assert steps.index("command_and_control") == steps.index("movement") - 1
    cc = named(named(r.procedures, "player_turn").steps, "command_and_control")
    assert "cc_intact_turn" in {v.name for v in of(ir.Var, cc.body)}
    assert "command_and_control" in calls(cc.body)


def test_washington_leads_units_in_adjacent_hexes():
    r = compiled("washington_adjacent.mst")
    drm = named(r.modifiers, "morale_check_drm")
    [mod] = [m for m in drm.modifiers if m.label == "Washington adjacent"]
    assert consts(mod.amount) == {1}
    queries = {q.func for q in of(ir.Query, mod.condition)}
    assert "adjacent" in queries
    # the series' own modifiers are still there, before it
    assert drm.modifiers[-1] is mod and len(drm.modifiers) > 1


def test_heat_turns_modify_morale_and_a_tied_initiative_skips_the_turn():
    r = compiled("heat.mst")
    drm = named(r.modifiers, "morale_check_drm")
    [heat] = [m for m in drm.modifiers if m.label == "Heat"]
    assert consts(heat.amount) == {-1}
    assert track_keys(heat.condition) == ["heat"]
    heated = {t.number for t in r.turn_track.turns if t.data.get("heat")}
    assert heated == set(range(6, 13))
    # the initiative's roll step is replaced: a tie without Momentum skips the turn
    roll = named(named(r.procedures, "initiative").steps, "roll")
    assert "heat_skip" in targets(roll.body)
    assert "momentum_spent" in {v.name for v in of(ir.VarAt, roll.body)}
    steps = step_names(r, "game_turn")
    assert steps.index("heat") == steps.index("initiative") + 1


def test_command_and_control_is_a_phase_of_table_rolls():
    r = compiled("command_and_control.mst")
    phase = named(r.procedures, "command_and_control")
    assert phase.kind == "phase"
    assert [s.name for s in phase.steps] == ["clear", "identify", "impact", "countermarch"]
    rolls = of(ir.Roll, phase.steps)
    assert [x.table for x in rolls] == ["", "cc_impact_table"]
    # units of the brigades the ID Table names, wherever they are, are marked
    identify = named(phase.steps, "identify")
    assert any(q.func == "lookup" for q in of(ir.Query, identify.body))
    assert any(a.name == "brigade" for a in of(ir.UnitAttr, identify.body))
    assert targets(identify.body) == {"confused"}
    # the Impact Table's cells are values of the impact variable
    impact = named(r.tables, "cc_impact_table")
    assert impact.kinds == ("cc_impact",)
    assert {c for row in impact.rows for (c,) in row.cells} == {
        "no_move",
        "half_move",
        "countermarch",
        "intact",
    }
    # the countermarch: a forced march toward the entry hex
    [march] = of(ir.CallPrim, named(phase.steps, "countermarch").body)
    assert march.prim == "march" and consts(dict(march.args)["exit"]) == {True}
    kinds = {x.name: x.kind for x in r.restrictions}
    assert kinds["cc_no_move"] == "no_move" and kinds["cc_half_move"] == "allowance"


def test_the_rear_guard_is_confined_behind_a_line_until_turn_6():
    r = compiled("rear_guard.mst")
    zones = {z.name: z for z in r.map.zones}
    line = zones["rear_guard_limit"]
    assert line.kind == "line" and len(line.hexes) == 10
    area = zones["rear_guard_area"]
    # the line and every hex east of it
    assert set(line.hexes) < set(area.hexes)
    assert {h[:2] for h in area.hexes} == {str(c) for c in range(18, 25)}
    confine = named(r.restrictions, "rear_guard_zone")
    assert (confine.kind, confine.zone, confine.until_turn) == (
        "confined_to",
        "rear_guard_area",
        6,
    )
    # no advance after combat from the limit itself
    advance = named(r.defines, "may_advance")
    zones_read = [tuple(c.value) for c in of(ir.Const, advance.body) if c.type == "hexes"]
    assert zones_read == [line.hexes]


def test_morgan_enters_on_a_roll_and_the_british_answer_the_turn_after():
    r = compiled("morgan.mst")
    morgan = named(r.units, "morgan_rifles")
    assert morgan.entry.turn == 8 and morgan.entry.variable
    steps = step_names(r, "movement_phase")
    assert steps.index("morgan_roll") == steps.index("reinforcements") - 1
    roll_step = named(named(r.procedures, "movement_phase").steps, "morgan_roll")
    assert track_keys(roll_step.body) == ["entry_roll"]
    kinds = {x.name: x.kind for x in r.restrictions}
    assert kinds["morgan_waits"] == kinds["conditional_reinforcements"] == "no_arrival"
    answer = named(r.restrictions, "conditional_reinforcements")
    assert "morgan_arrival" in {v.name for v in of(ir.Var, answer.condition)}


# ---------------------------------------------------------------- Newtown


def test_the_activation_cup_is_a_bag_drawn_in_a_loop():
    r = compiled("activation_cup.mst")
    [bag] = r.bags
    assert sorted(bag.contents) == [
        "mohawk_activation",
        "mohawk_activation",
        "turtle_activation",
        "wolf_activation",
    ]
    phase = named(r.procedures, "activation_movement")
    [loop] = of(ir.Repeat, phase.steps)
    assert [d.bag for d in of(ir.Draw, loop.body)] == ["activation_container"]
    assert of(ir.EndPhase, loop.body)  # the Combat marker ends the phase
    [move] = of(ir.CallPrim, loop.body)
    assert move.prim == "move_units" and "who" in dict(move.lambdas)
    # the marker table names brigades, checked as brigades
    assert named(r.tables, "activates").kinds == ("brigade",)
    joins = named(r.triggers, "combat_marker_joins")
    assert joins.event == "became_adjacent" and joins.once
    assert [e.func for e in of(ir.Effect, joins.body)] == ["put_in"]
    steps = step_names(r, "player_turn")
    assert steps.index("activation") == steps.index("movement") + 1
    assert steps.index("end_phase") == steps.index("close_combat") + 1
    assert [e.func for e in of(ir.Effect, named(r.procedures, "player_turn").steps)] == ["refill"]


def test_retreat_before_combat_is_inserted_after_designation():
    r = compiled("retreat_before_combat.mst")
    steps = step_names(r, "close_combat_phase")
    assert steps.index("retreat_before_combat") == steps.index("designate") + 1
    # across combats: the stacks to retreat from grow with every stack a
    # retreating unit leaves behind
    proc = named(r.procedures, "retreat_away_from")
    assert "stacks" in {x.name for x in of(ir.Let, proc.steps)} - {"movers", "from", "left"}
    assert {"retreat_unit", "advance_into_vacated"} <= set(calls(proc.steps))
    assert "leave_combat" in effects(proc.steps)


def test_evasion_sets_the_retreat_primitive_per_side():
    r = compiled("evasion.mst")
    [retreat] = of(ir.CallPrim, named(named(r.procedures, "retreat_unit").steps, "retreat").body)
    args = dict(retreat.args) | dict(retreat.lambdas)
    assert {"through", "on_through"} <= set(args)
    assert [d.define for d in of(ir.DefineCall, args["through"])] == ["indian"]
    assert consts(args["on_through"]) == {"evasion_check"}
    check = named(r.procedures, "evasion_check")
    assert "morale_check" in calls(check.steps)
    assert "lose_step" in effects(check.steps)


def test_the_cattle_herd_is_driven_along_the_road_and_captured():
    r = compiled("cattle_herd.mst")
    assert named(r.units, "cattle").kind == "piece"
    steps = step_names(r, "movement_phase")
    assert steps.index("herd") == steps.index("move") - 1
    [march] = of(ir.CallPrim, named(named(r.procedures, "movement_phase").steps, "herd").body)
    assert march.prim == "march" and consts(dict(march.args)["along_roads"]) == {True}
    capture = named(r.triggers, "herd_captured")
    assert capture.event == "entered"
    assert set(effects(capture.body)) == {"capture", "score"}
    [adjust] = calls(capture.body)["adjust_army_morale"]
    assert consts(arg(adjust, "amount")) == {-2}


def test_the_platoon_is_attached_to_a_parent_unit():
    r = compiled("attachment.mst")
    attached = named(r.variables, "attached_to")
    assert (attached.scope, attached.type) == ("unit", "unit")
    events = {t.name: t.event for t in r.triggers}
    assert events["platoon_goes_along"] == "entered"
    assert events["platoon_shares_order"] == "changed:order"
    assert events["platoon_shares_pin"] == "changed:pinned"
    assert events["platoon_shares_capture"] == "captured"
    assert "carry" in effects(named(r.triggers, "platoon_goes_along").body)
    # stacking, strength, lead and morale read the attachment
    for define in ("counts_for_stacking", "adds_strength", "may_lead", "modified_morale"):
        body = named(r.defines, define).body
        assert {"platoon", "attached", "has_platoon"} & (
            {d.define for d in of(ir.DefineCall, body)} | consts(body)
        ), define
