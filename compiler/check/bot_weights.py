"""`bot_weights`: how a battle tunes the heuristic bot, in its rule files.

    bot_weights ford_bot "The bot at the ford" § … provisional "…" {
        scenarios SCENARIO          # only there; without it, every scenario
        objective 3                 # a term of engine/bots/weights.py: its weight
        army_morale 2               # a per-side variable: own minus the enemy's
        terrain defend_drm -1       # a terrain attribute: weight per point
        SIDE 0604                   # objectives of a side: hexes or places
        both PLACE                  # … or of both sides
    }

The engine's defaults and the meaning of each term are in
engine/bots/weights.py; a declaration only replaces what it names.
"""

from __future__ import annotations

from fractions import Fraction

from compiler import ir
from compiler.check.forces import ForcesChecker
from compiler.check.props import Props, describe, name_of, prov_of
from dsl import ast
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, Reporter, did_you_mean, hint_note
from engine.bots.weights import TERMS

BOTH = "both"
# The fixed keys; a line may also be a per-side variable or a side (its objectives).
KEYS = TERMS | {BOTH, "terrain", "scenarios"}


def _number(v: ast.Expr) -> float | None:
    if isinstance(v, ast.Number):
        return float(Fraction(v.text))
    if isinstance(v, ast.Unary) and v.op == "-" and isinstance(v.operand, ast.Number):
        return -float(Fraction(v.operand.text))
    return None


def check_bot_weights(
    d: ast.Entity,
    r: Reporter,
    forces: ForcesChecker,
    sides: list[str],
    side_variables: set[str],
    terrain_attributes: set[str],
    scenario_names: set[str],
) -> ir.BotWeights:
    keys = KEYS | side_variables | set(sides)
    p = Props(d, r, keys)
    scenarios = _scenarios(p, r, scenario_names)
    terms, variables = _weights(p, r, side_variables)
    terrain = _terrain_weights(p, r, terrain_attributes)
    return ir.BotWeights(
        name_of(d),
        scenarios,
        terms,
        variables,
        terrain,
        _objectives(p, forces, sides),
        prov_of(d.prov),
        d.span,
    )


def _objectives(p: Props, forces: ForcesChecker, sides: list[str]) -> tuple[tuple[str, str], ...]:
    """The hexes a side's bot heads for (`both`: either side's), each with its side."""
    objectives: list[tuple[str, str]] = []
    for side in [*sides, BOTH]:
        for v in p.values(side):
            objectives.extend((label, side if side != BOTH else "") for label in forces.hexes_of(v))
    return tuple(objectives)


def _scenarios(p: Props, r: Reporter, scenario_names: set[str]) -> tuple[str, ...]:
    """The scenarios the weights are for (none: every scenario)."""
    scenarios = []
    for v in p.values("scenarios"):
        if isinstance(v, ast.Name) and v.id in scenario_names:
            scenarios.append(v.id)
        else:
            r.error(v.span, UNKNOWN_NAME, f"no scenario {describe(v)}")
    return tuple(scenarios)


def _weights(
    p: Props, r: Reporter, side_variables: set[str]
) -> tuple[dict[str, float], dict[str, float]]:
    """The weights of the evaluation's terms and of the per-side variables."""
    terms: dict[str, float] = {}
    variables: dict[str, float] = {}
    for key in sorted(TERMS | side_variables):
        if not p.has(key):
            continue
        vals = p.values(key)
        value = _number(vals[0]) if len(vals) == 1 else None
        if value is None:
            r.error(p.line(key).span, BAD_VALUE, f"{key!r} takes one number, its weight")
            continue
        (terms if key in TERMS else variables)[key] = value
    return terms, variables


def _terrain_weights(p: Props, r: Reporter, terrain_attributes: set[str]) -> dict[str, float]:
    """`terrain ATTRIBUTE WEIGHT …`: what a unit's hex is worth by its terrain."""
    terrain: dict[str, float] = {}
    vals = p.values("terrain")
    for i in range(0, len(vals), 2):
        attr, weight = vals[i], _number(vals[i + 1]) if i + 1 < len(vals) else None
        if not isinstance(attr, ast.Name) or weight is None:
            r.error(
                attr.span,
                BAD_VALUE,
                "terrain takes pairs of a terrain attribute and a weight: `terrain defend_drm -1`",
            )
            break
        if attr.id not in terrain_attributes:
            hint = did_you_mean(attr.id, terrain_attributes)
            r.error(attr.span, UNKNOWN_NAME, f"no terrain declares {attr.id!r}", *hint_note(hint))
            continue
        terrain[attr.id] = weight
    return terrain
