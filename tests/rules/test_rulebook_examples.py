"""The rulebooks' own worked examples, each set up as a position and played.

Every "Example:" paragraph and worked example of the series rules (Part One
of the Monmouth rulebook) becomes a hand-made position on the litmus battle
(`tests/data/litmus/base.mst`, a small battle on the series rules) plus the
units an example names that it lacks (`tests/data/examples/examples.mst`),
played through the engine with the dice the example rolls. Where the
example rests on a printed chart (the Fire Table's "To Hit" number), the
shipped provisional chart is checked to give the example's number first, so
a changed chart fails here rather than silently changing the example.

Examples that rest on diagrams whose hexes the text does not give are
played as far as the note says: 11.4's LOS illustration on hexes of the
litmus map chosen to show each of its three blockers (terrain, slope, unit),
8.1's ZOC illustration as its note says. Newtown's illustrated example of 5.7 is
played on the Newtown battle itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.backends.engine_codegen import generate
from compiler.build import load_generated
from compiler.check import compile_ruleset
from engine.los import sight
from engine.save import from_json
from engine.state import State
from tests.conftest import fresh_game

EXAMPLES = Path(__file__).parent.parent / "data" / "examples" / "examples.mst"

# Where the units not in an example wait, far from everything.
AWAY = {
    "nj_1": "0209",
    "nj_2": "0210",
    "scott_rifles": "0309",
    "us_guns": "0310",
    "lee": "0209",
    "guards": "2408",
    "grenadiers": "2409",
    "dragoons": "2410",
    "gb_guns": "2308",
    "rear_guard_foot": "2309",
    "clinton": "2408",
    "militia_rifles_a": "0409",
    "militia_rifles_b": "0410",
}


@pytest.fixture(scope="module")
def package():
    rules, _ = compile_ruleset(EXAMPLES)
    return load_generated(generate(rules), rules.name)


@pytest.fixture(scope="module")
def game(package):
    return package.load_game()


def position(game, units: dict, stack: list, turn: int = 3, phasing: str = "american", **extra):
    placed = {**AWAY, **units}
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": "litmus",
            "vars": {"turn": turn, "phasing": phasing, **extra.pop("vars", {})},
            "units": {name: {"hex": h} for name, h in placed.items()},
            "stack": [{"procedure": "game", "step": "winner"}, *stack],
            **extra,
        },
    )


def answer(s: State, text: str) -> None:
    """Take the legal action that reads `text`."""
    by_text = {s.action_to_string(a): a for a in s.legal_actions()}
    assert text in by_text, f"{text!r} is not among {sorted(by_text)}"
    s.apply_action(by_text[text])


def roll(s: State, face: int) -> None:
    assert s.is_chance_node(), s.legal_actions()
    s.apply_action(face)


def until_chance(s: State, prefer: tuple[str, ...] = ()) -> None:
    """Make the decisions before the next die roll: an answer from `prefer`
    where one is legal, else the first legal action."""
    while not s.is_chance_node():
        assert not s.is_terminal()
        by_text = {s.action_to_string(a): a for a in s.legal_actions()}
        chosen = next((by_text[t] for t in prefer if t in by_text), s.legal_actions()[0])
        s.apply_action(chosen)


def hex_of(game, s: State, unit: str) -> str:
    return game.rules.board.labels[s.unit_hex[game.unit_by_name[unit]]]


# ---------------------------------------------------------------- 10.4


def rifle_fire(game, firers: list[str], has_fired: tuple[str, ...] = ()) -> State:
    """§ series 10.4, 10.5: American rifles next to the Guards, rifle fire phase."""
    units = {"guards": "1104", "militia_rifles_a": "1003", "militia_rifles_b": "1004"}
    s = position(
        game,
        units,
        [
            {
                "procedure": "rifle_fire_phase",
                "step": "phasing_fire",
                "bindings": {"side": "american"},
            }
        ],
        vars={"has_fired": {name: name in has_fired for name in game.unit_by_name}},
    )
    answer(s, "Guards")
    while not s.is_chance_node():
        s.apply_action(_rifle_answer(game, s, firers))
    return s


def _rifle_answer(game, s: State, firers: list[str]) -> int:
    """Choose each rifle in turn and fire it only if it is one of `firers`."""
    by_text = {s.action_to_string(a): a for a in s.legal_actions()}
    frame = s.stack[-1]
    if "r" in frame.b and any(t.startswith("Fire ") and t.endswith("? yes") for t in by_text):
        unit = game.rules.units[frame.b["r"]]
        answer = "yes" if unit.name in firers else "no"
        return next(
            a
            for t, a in by_text.items()
            if t.startswith(f"Fire {unit.title} at ") and t.endswith(f"? {answer}")
        )
    return s.legal_actions()[0]


def test_the_militia_rifles_example_hits_on_a_5_and_the_guards_retreat(game):
    """§ series 10.4, 10.2, 10.5: "The SPs of the two rifle units must be combined …
    the 'To Hit' number is ≥ 6 with one die, but the two rifle units have not yet
    fired this game and so receive the +1 DRM First Fire Bonus. The American
    player rolls a 5 which scores a hit. He then … rolls again. He rolls a '4'
    which results in an R (Retreat) for the Guards unit.\""""
    table = game.tables[game.rules.table_index("fire_table")]
    two_sp = next(cells for low, high, _n, cells in table.rows if low <= 2 <= (high or 2))
    assert two_sp[0][0] == 6  # the shipped chart gives the example's "To Hit" number
    s = rifle_fire(game, ["militia_rifles_a", "militia_rifles_b"])
    roll(s, 5)
    assert "Rifle Fire: American rolled 5, +1 First Fire Bonus = 6." in s.take_messages()
    roll(s, 4)
    assert any("→ R" in m for m in s.take_messages())
    # 10.4: applied once both sides have fired; the British choose the hex.
    while hex_of(game, s, "guards") == "1104":
        assert not s.is_chance_node() and not s.is_terminal()
        s.apply_action(s.legal_actions()[0])
    assert hex_of(game, s, "guards") in ("1203", "1204")  # one hex, toward the east edge


def test_one_militia_rifle_alone_misses_on_the_same_roll(game):
    """§ series 10.2, 10.4: the example's hit needs both units' SPs: one SP needs a 7."""
    s = rifle_fire(game, ["militia_rifles_a"])
    roll(s, 5)
    assert "Rifle Fire: American rolled 5, +1 First Fire Bonus = 6." in s.take_messages()
    assert not s.is_chance_node()  # no damage roll: a miss
    assert hex_of(game, s, "guards") == "1104"


def test_no_first_fire_bonus_when_one_firer_has_fired_before(game):
    """§ series 10.5: "The DRM for first-time rifle fire can only be used if ALL
    the units are conducting their first fire." The example's 5 then misses."""
    s = rifle_fire(game, ["militia_rifles_a", "militia_rifles_b"], has_fired=("militia_rifles_b",))
    roll(s, 5)
    assert "Rifle Fire: American rolled 5." in s.take_messages()
    assert not s.is_chance_node()


# ---------------------------------------------------------------- 12.23 step 1, 12.14


def combat_odds(game, side: str, attackers: dict, defenders: dict, diverted: bool = False):
    """The odds column a designated combat is rolled at (§ series 12.23)."""
    s = position(
        game,
        {**attackers, **defenders},
        [{"procedure": "close_combat_phase", "step": "resolve", "bindings": {"side": side}}],
        phasing=side,
        combats=[
            {
                "side": side,
                "attackers": list(attackers),
                "defenders": list(defenders),
                "attack_hexes": sorted(set(attackers.values())),
                "defense_hexes": sorted(set(defenders.values())),
                "diverted": diverted,
            }
        ],
    )
    until_chance(s, prefer=("Withdraw the cavalry instead of fighting? no",))
    frame = s.stack[-1]
    assert frame.proc == "close_combat"
    table = game.tables[game.rules.table_index("close_combat_table")]
    return table.columns[frame.b["odds"]]


def test_five_sps_attacking_four_is_one_to_one(game):
    """§ series 12.23: "Example: 5 SPs attacking 4 SPs is 1:1"."""
    assert combat_odds(game, "british", {"guards": "1104"}, {"nj_1": "1004"}) == (1, 1)


def test_four_sps_attacking_five_is_one_to_two(game):
    """§ series 12.23: "but 4 SPs attacking 5 SPs is 1:2" (rounded for the defender)."""
    assert combat_odds(game, "american", {"nj_1": "1004"}, {"guards": "1104"}) == (1, 2)


def test_a_diversion_shifts_two_to_one_to_three_to_two(game):
    """§ series 12.14: "shifted one column to the left (for example, 2-1 is reduced to 3-2)"."""
    attackers = {"nj_1": "1004", "nj_2": "1004"}
    assert combat_odds(game, "american", attackers, {"grenadiers": "1104"}) == (2, 1)
    shifted = combat_odds(game, "american", attackers, {"grenadiers": "1104"}, diverted=True)
    assert shifted == (3, 2)


# ---------------------------------------------------------------- 12.15


def designations(game, units: dict, side: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every combat the phasing side may designate first, as (attack hexes, defense hexes)."""
    s = position(
        game,
        units,
        [{"procedure": "close_combat_phase", "step": "designate", "bindings": {"side": side}}],
        phasing=side,
    )
    board = game.rules.board
    out = []
    for a in s.legal_actions():
        if game.actions.kind_of(a) != "designate":
            continue
        centre, mask, form = game.actions.decode_designate(a)
        if mask == 0:
            continue  # the Diversion (12.14)
        ring = tuple(
            sorted(board.labels[board.neighbors[centre][i]] for i in range(6) if mask >> i & 1)
        )
        here = (board.labels[centre],)
        out.append((ring, here) if form == 0 else (here, ring))
    return out


def test_one_attacking_hex_or_one_defending_hex_per_combat(game):
    """§ series 12.15: "one attacking hex versus two or more defending hexes or two or
    more attacking hexes versus one defending hex are legal, but two or more
    attacking hexes versus two or more defending hexes in a single Close Combat
    is illegal.\""""
    board = game.rules.board
    label = board.labels
    d1, d2 = game.hex_by_label["1103"], game.hex_by_label["1104"]
    a1, a2 = sorted(set(board.neighbors[d1]) & set(board.neighbors[d2]) - {-1})
    # One American hex next to two British hexes: one against two.
    one_two = designations(
        game, {"nj_1": label[a1], "guards": "1103", "grenadiers": "1104"}, "american"
    )
    assert ((label[a1],), ("1103", "1104")) in one_two
    # Two American hexes next to one British hex: two against one.
    two_one = designations(
        game, {"nj_1": label[a1], "nj_2": label[a2], "guards": "1103"}, "american"
    )
    assert ((label[a1], label[a2]), ("1103",)) in two_one
    # Both American hexes next to both British hexes: never two against two.
    units = {"nj_1": label[a1], "nj_2": label[a2], "guards": "1103", "grenadiers": "1104"}
    shapes = designations(game, units, "american")
    assert shapes
    assert all(len(a) == 1 or len(d) == 1 for a, d in shapes)


DESIGNATE = [
    {"procedure": "close_combat_phase", "step": "designate", "bindings": {"side": "american"}}
]


def designating(s: State) -> bool:
    return any(f.proc == "designate_combats" for f in s.stack)


def test_attackers_b_and_c_stacked_need_not_attack_the_same_hex(game):
    """§ series 12.15: "Attackers A, B and C have moved next to Defenders X, Y and Z …
    Defenders Y and Z must be attacked together. However, Attackers B and C need
    not attack the same hex, though all units shown must be involved in a combat.
    The attacking player decides to have C attack X, while A and B combine in a
    single close combat against Y and Z."

    A is nj_1 in 1004, B and C are nj_2 and Scott's rifles stacked in 1003, X is
    the Guards in 1103 (next to B and C only), Y and Z the Grenadiers and the
    Rear Guard Foot stacked in 1104 (next to A and to B and C)."""
    units = {
        "nj_1": "1004",
        "nj_2": "1003",
        "scott_rifles": "1003",
        "guards": "1103",
        "grenadiers": "1104",
        "rear_guard_foot": "1104",
    }
    s = position(
        game,
        units,
        DESIGNATE,
    )
    # B and C may not be left out of every combat: the pass is not offered.
    assert "pass" not in {s.action_to_string(a) for a in s.legal_actions()}
    answer(s, "attack 1103 from 1003")  # B and C against X ...
    answer(s, "hold back 2nd N.J. from attack 1")  # ... then B is kept for Y and Z
    # Neither may leave the last unit of its hex: C stays against X.
    assert "hold back Scott's Rifles from attack 1" not in {
        s.action_to_string(a) for a in s.legal_actions()
    }
    answer(s, "attack 1104 from 1004, 1003")
    names = {u: n for n, u in game.unit_by_name.items()}
    shapes = [({names[u] for u in c.attackers}, {names[u] for u in c.defenders}) for c in s.combats]
    assert shapes == [
        ({"scott_rifles"}, {"guards"}),
        ({"nj_1", "nj_2"}, {"grenadiers", "rear_guard_foot"}),
    ]
    # Every unit shown is in a combat: the designation is over, the Attacker
    # chooses which to resolve first (12.23).
    assert not designating(s)


def test_a_split_is_offered_only_while_every_obligation_can_still_be_met(game):
    """§ series 12.15, 12.12: stacked attackers "may combine in a single attack or
    attack different units", but "all units shown must be involved in a combat":
    with B (nj_2) and C (the rifles) in 1003 and only the Guards in 1103 next to
    them, B may not be left out of the combat against X — he would have nothing
    left to attack — while C, a rifle unit never required to attack, may."""
    units = {"nj_2": "1003", "scott_rifles": "1003", "guards": "1103"}
    s = position(
        game,
        units,
        DESIGNATE,
    )
    answer(s, "attack 1103 from 1003")
    offered = {s.action_to_string(a) for a in s.legal_actions()}
    assert "hold back 2nd N.J. from attack 1" not in offered
    assert "hold back Scott's Rifles from attack 1" in offered
    answer(s, "hold back Scott's Rifles from attack 1")
    assert [set(c.attackers) for c in s.combats] == [{game.unit_by_name["nj_2"]}]
    assert not designating(s)


# ---------------------------------------------------------------- 8.1


def test_zocs_extend_out_of_but_not_into_light_woods_and_not_into_heavy_woods(package, game):
    """§ series 8.1: "A ZOC extends out of, but not into, light forest/orchard, heavy
    forest, and fieldworks hexsides"; the diagram note: "a unit's ZOC does not extend
    into a Plantation House or Heavy Woods hex, but does extend out of (though not
    into) Light Woods hexes." (The litmus map has forest at 0602–0603 and an orchard
    at 1003; it has no plantation house.)"""
    in_zoc = package.rules.define__in_enemy_zoc
    american = game.rules.side_index("american")
    # A British unit next to the heavy forest hex 0603, in clear 0703.
    s = position(game, {"guards": "0703"}, [], phasing="british")
    assert not in_zoc(s, game.hex_by_label["0603"], american)  # not into heavy forest
    assert in_zoc(s, game.hex_by_label["0704"], american)  # into clear
    # A British unit in the orchard 1003: its ZOC extends out of the orchard ...
    s = position(game, {"guards": "1003"}, [], phasing="british")
    assert in_zoc(s, game.hex_by_label["1004"], american)
    # ... but a unit next to the orchard exerts none into it.
    s = position(game, {"guards": "1004"}, [], phasing="british")
    assert not in_zoc(s, game.hex_by_label["1003"], american)


# ---------------------------------------------------------------- 11.4


def test_the_los_diagram_blocked_by_terrain_slope_and_a_unit(game):
    """§ series 11.4's diagram: "an artillery unit tracing fire across a hex field
    where some hexes are blocked by blocking terrain (marked "B"), some by slopes
    (marked "S"), and some by an intervening combat unit (marked "U")." The
    diagram's hexes are not in the text; here, on the litmus map, the American
    guns in 0705 fire in the British Defensive Artillery Fire Phase at:

    - B: the Grenadiers in 0602, behind the heavy forest of 0603 (11.42:
      "LOS can always be traced into blocking terrain, but never through it");
    - S: the Dragoons in 1005, across the slope hexside 0805/0905, part of
      neither unit's hex, neither unit up slope (11.43 A: "the LOS is blocked
      if it crosses any slope hexside which is not part of the firing or
      target unit's hexes");
    - U: the Guards in 0707, behind the Rear Guard Foot in 0706 (11.42: "any
      hex that contains combat units, whether friendly or enemy, is blocking
      terrain");
    - and, clear, the Rear Guard Foot (adjacent: "LOS is always clear when
      firing at an adjacent unit", 11.41) and the British guns in 0404, three
      hexes off over open ground (11.2: range three)."""
    units = {
        "us_guns": "0705",
        "grenadiers": "0602",
        "dragoons": "1005",
        "guards": "0707",
        "rear_guard_foot": "0706",
        "gb_guns": "0404",
    }
    s = position(
        game,
        units,
        [
            {
                "procedure": "defensive_artillery_fire_phase",
                "step": "fire",
                "bindings": {"side": "british"},
            }
        ],
        phasing="british",
    )
    offered = {s.action_to_string(a) for a in s.legal_actions()}
    titles = {n: game.rules.units[game.unit_by_name[n]].title for n in units}
    for clear in ("rear_guard_foot", "gb_guns"):
        assert titles[clear] in offered, clear
    for blocked in ("grenadiers", "dragoons", "guards"):
        assert titles[blocked] not in offered, blocked
    # Why each is blocked: B, S and U.
    board, h = game.rules.board, game.hex_by_label
    terrain = [t.title for t in game.rules.terrain]
    occupied = {s.unit_hex[u] for u in range(len(game.rules.units)) if s.unit_hex[u] >= 0}
    occupied -= {h["0705"]}

    def blocker(target: str):
        seen = sight(board, h["0705"], h[units[target]], occupied - {h[units[target]]}, terrain)
        assert not seen.clear, target
        return seen.blocker

    b = blocker("grenadiers")
    assert (b.kind, b.hexes) == ("hex", (h["0603"],)) and "Forest" in b.why
    s_ = blocker("dragoons")
    assert s_.kind == "slope" and set(s_.hexes) == {h["0805"], h["0905"]}
    u = blocker("guards")
    assert (u.kind, u.hexes, u.why) == ("hex", (h["0706"],), "combat units")


# ---------------------------------------------------------------- Newtown 5.7


@pytest.fixture(scope="module")
def newtown():
    return fresh_game("newtown")


def test_the_retreat_before_combat_example_takes_every_unit_next_to_f(newtown):
    """§ newtown 5.7: "If unit 'B' decides to execute Retreat Before Combat instead of
    attacking American unit 'F', then units 'A', 'C' and 'D' must also execute a
    Retreat as they are adjacent to American unit 'F'. Note that they would be
    required to do so even if they were designated to attack American units 'E'
    or 'G'."

    F (1st N.J.) stands in clear 1013; B (Little Beard) and A (Fish Carrier)
    attack it from the north and north-east; C (Capt. Montour, north-west) is
    designated against E (N.J. Brigade) and D (Sagwarithra, south-east) against
    G (Spencer's), each E and G next to its attacker only."""
    game = newtown
    board, label = game.rules.board, game.rules.board.labels
    f = game.hex_by_label["1013"]
    b, a, d, c = (board.neighbors[f][i] for i in (0, 1, 2, 5))
    ring = set(board.neighbors[f]) | {f}

    def beyond(x: int) -> int:
        """A hex next to x, two from F, and next to no other attacker."""
        others = {a, b, c, d} - {x}
        return next(
            y
            for y in board.neighbors[x]
            if y >= 0 and y not in ring and not set(board.neighbors[y]) & (others | {f})
        )

    e, g = beyond(c), beyond(d)
    indians = {"little_beard": b, "fish_carrier": a, "captain_montour": c, "sagwarithra": d}
    americans = {"first_nj": f, "nj_brigade": e, "spencer": g}

    def combat(attackers: list[str], defender: str) -> dict:
        return {
            "side": "indian",
            "attackers": attackers,
            "defenders": [defender],
            "attack_hexes": sorted(label[indians[u]] for u in attackers),
            "defense_hexes": [label[americans[defender]]],
        }

    s = from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": "newtown",
            "vars": {"turn": 3, "phasing": "indian"},
            "units": {u: {"hex": label[h]} for u, h in {**indians, **americans}.items()},
            "combats": [
                combat(["little_beard", "fish_carrier"], "first_nj"),
                combat(["captain_montour"], "nj_brigade"),
                combat(["sagwarithra"], "spencer"),
            ],
            "stack": [
                {"procedure": "game", "step": "winner"},
                {
                    "procedure": "close_combat_phase",
                    "step": "retreat_before_combat",
                    "bindings": {"side": "indian"},
                },
            ],
        },
    )
    answer(s, "Retreat before combat in a designated close combat? yes")
    answer(s, "choose combat 1 (Little Beard, Fish Carrier against 1st N.J.)")
    while any(fr.proc == "retreat_before_combat" for fr in s.stack):
        if s.is_chance_node():
            s.apply_action(s.chance_outcomes()[-1][0])  # morale checks pass
        else:
            s.apply_action(s.legal_actions()[0])  # the first hex; no American follows
    for unit, start in indians.items():
        u = game.unit_by_name[unit]
        assert s.unit_hex[u] != start, f"{unit} did not retreat"
        assert s.unit_hex[u] not in board.neighbors[f], f"{unit} is still next to F"


# ---------------------------------------------------------------- Monmouth 4.62


@pytest.fixture(scope="module")
def monmouth():
    return fresh_game("monmouth", {"scenario": "campaign"})


@pytest.mark.parametrize("stack", [["nj_1"], ["nj_1", "nj_2", "nj_3"]])
def test_one_unit_or_a_stack_of_three_countermarching_off_costs_one_army_morale(monmouth, stack):
    """§ monmouth 4.62: "An Army Morale adjustment of –1 is made each turn in which
    any American units countermarch off the board … Clarification: It doesn't
    matter if one unit countermarched off the board or a stack of 3 units. The
    penalty would still be a loss of 1 AM point for that Game Turn."

    The units stand on A-1 (0111), their countermarch's goal, marked to
    countermarch: each marches off the board."""
    game = monmouth
    impact = dict.fromkeys(game.unit_by_name, None) | dict.fromkeys(stack, "cc_countermarch")
    s = from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": "monmouth",
            "vars": {
                "turn": 5,
                "phasing": "american",
                "army_morale": {"american": 18, "british": 18},
                "cc_impact": impact,
            },
            "units": {name: {"hex": "0111"} for name in stack} | {"clinton": {"hex": "4114"}},
            "stack": [
                {"procedure": "game", "step": "winner"},
                {
                    "procedure": "movement_phase",
                    "step": "countermarch",
                    "bindings": {"side": "american"},
                },
            ],
        },
    )
    while any(f.proc == "movement_phase" for f in s.stack) and any(
        s.unit_hex[game.unit_by_name[u]] >= 0 for u in stack
    ):
        s.apply_action(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0])
    assert all(s.unit_hex[game.unit_by_name[u]] < 0 for u in stack)  # all off the board
    assert s.vars["army_morale"][game.side_by_name["american"]] == 17
