"""The static game: compiled rules, rule switches, the action space and its bounds.

`Game` is made once from a generated package's `Rules` and never changes;
`Game.new_initial_state()` is the only way to make a `State`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from engine import interpreter
from engine.board import DIRECTIONS, unit_costs
from engine.describe import action_to_string, describe_state
from engine.effects import set_at
from engine.errors import BadInput
from engine.firing import Firing
from engine.information import observe
from engine.move_paths import cheapest_paths
from engine.primitives import get
from engine.restrictions import hex_tests
from engine.rule_switches import SwitchError, switches_for
from engine.rules import PUBLIC, Rules, ScenarioSpec, TableSpec, TriggerSpec
from engine.save import state_hash, to_json
from engine.state import MAX_SIDES, MAX_UNITS, NOT_ENTERED, ON_MAP, OUT_OF_PLAY, Frame, State

__all__ = ["DIRECTIONS", "ActionSpace", "Game", "GameInfo"]
MAX_OPTIONS = 128
MASKS = 1 << DIRECTIONS
T = TypeVar("T")


class ActionSpace:
    """Dense integer actions, in segments by what they name.

    PASS (0) ends the current activity (the movement phase, designation, …);
    then one action per unit, per hex, per (unit, direction) step, per combat
    designation (centre hex, 6-bit mask of neighbours, form), per option
    of a small choice (yes/no, a combat, a side), and per unit leaving the map
    by an `exit` (last, so that the others keep their numbers).
    """

    PASS = 0

    def __init__(self, n_units: int, n_hexes: int) -> None:
        self.n_units = n_units
        self.n_hexes = n_hexes
        self.unit0 = 1
        self.hex0 = self.unit0 + n_units
        self.step0 = self.hex0 + n_hexes
        self.designate0 = self.step0 + n_units * DIRECTIONS
        self.option0 = self.designate0 + n_hexes * MASKS * 2
        self.exit0 = self.option0 + MAX_OPTIONS
        self.size = self.exit0 + n_units

    def unit(self, u: int) -> int:
        return self.unit0 + u

    def hex(self, h: int) -> int:
        return self.hex0 + h

    def step(self, u: int, direction: int) -> int:
        return self.step0 + u * DIRECTIONS + direction

    def designate(self, centre: int, mask: int, form: int) -> int:
        return self.designate0 + (centre * MASKS + mask) * 2 + form

    def option(self, i: int) -> int:
        if not 0 <= i < MAX_OPTIONS:
            raise ValueError(f"option {i} outside the action space")
        return self.option0 + i

    def exit(self, u: int) -> int:
        return self.exit0 + u

    def kind_of(self, a: int) -> str:
        if a == self.PASS:
            return "pass"
        if a < self.hex0:
            return "unit"
        if a < self.step0:
            return "hex"
        if a < self.designate0:
            return "step"
        if a < self.option0:
            return "designate"
        if a < self.exit0:
            return "option"
        return "exit"

    def option_index(self, a: int) -> int:
        return a - self.option0

    def decode_step(self, a: int) -> tuple[int, int]:
        return divmod(a - self.step0, DIRECTIONS)

    def decode_designate(self, a: int) -> tuple[int, int, int]:
        rest, form = divmod(a - self.designate0, 2)
        centre, mask = divmod(rest, MASKS)
        return centre, mask, form

    def encode(self, kind: str, value: int) -> int:
        """The action that picks `value`, a thing of type `kind`."""
        if kind == "unit":
            return self.unit(value)
        if kind == "hex":
            return self.hex(value)
        return self.option(value)

    def decode(self, kind: str, a: int) -> int:
        if kind == "unit":
            return a - self.unit0
        if kind == "hex":
            return a - self.hex0
        if kind == "exit":
            return a - self.exit0
        return self.option_index(a)


@dataclass(frozen=True, slots=True)
class GameInfo:
    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    min_utility: float
    max_utility: float
    utility_sum: float | None
    max_game_length: int


class SetupError(BadInput):
    """A scenario whose fixed set-up breaks its own stacking rule."""


class ParamsError(BadInput):
    """A game's parameters that name an unknown parameter, scenario or rule
    switch, or give one a value of the wrong kind (the message lists the
    known names)."""


# What a game's parameters may hold: the scenario's name, the rule switches
# (`{"rules": {"name": False}}`), and a player's compiled local chart values.
PARAMS = ("scenario", "rules", "charts")


def _apart(s: State) -> State:
    """A copy of s for a search of its own (`Game.reach`), read item by item.

    The search plays steps and asks their legality on copies: it must neither answer
    from nor write into the answers s keeps between decisions (`engine/incremental.py`:
    inside the search a rule asking `can_reach` again is left out, so its answers are
    not s's). And an answer of s's that asked it depends on the whole position: every
    unit's hex, status and losses and every variable are read here one by one, so that
    such an answer is forgotten when any of them changes."""
    for values in (s.unit_hex, s.unit_status, s.unit_loss):
        for i in range(len(values)):
            values[i]  # a read: noted while s is being asked a question
    for name in list(s.vars):
        s.vars[name]
    apart = s.clone()
    apart._remembered = None
    return apart


def _check_params(params: dict[str, Any], switches: list[str]) -> None:
    """Refuse a parameter the engine does not read: it would be ignored, and
    the game played without what it asked for (a rule switch given at the top
    level, not under `rules`)."""
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        hint = " (rule switches go under 'rules')" if unknown[0] in switches else ""
        raise ParamsError(f"unknown parameter {unknown[0]!r}{hint}; known: {', '.join(PARAMS)}")
    if not isinstance(params.get("scenario", ""), str):
        raise ParamsError(f"the scenario is a name, not {params['scenario']!r}"[:120])
    chosen = params.get("rules", {})
    if not isinstance(chosen, dict) or not all(type(v) is bool for v in chosen.values()):
        raise ParamsError("'rules' maps rule switches to true or false")


def _check_size(rules: Rules) -> None:
    """Refuse rules with more sides or units than the engine's keys hold (engine/state.py)."""
    if len(rules.sides) > MAX_SIDES or len(rules.units) > MAX_UNITS:
        raise BadInput(
            f"{rules.name} has {len(rules.sides)} sides and {len(rules.units)} units; "
            f"the engine plays at most {MAX_SIDES} sides and {MAX_UNITS} units"
        )


def _with_charts(rules_hash: str, charts: dict[str, TableSpec]) -> str:
    """The rules hash of a game played with a player's local chart values."""
    if not charts:
        return rules_hash
    played = repr(sorted((name, repr(spec)) for name, spec in charts.items()))
    return hashlib.sha256(f"{rules_hash}:{played}".encode()).hexdigest()


def _grouped(pairs: Iterable[tuple[str, T]]) -> dict[str, tuple[T, ...]]:
    """The items by key, each key's in the order given (keys in order of first use)."""
    groups: dict[str, tuple[T, ...]] = {}
    for key, item in pairs:
        groups[key] = (*groups.get(key, ()), item)
    return groups


class Game:
    """Compiled rules plus the parameters of one way of playing them."""

    # What a `State`'s OpenSpiel-like methods run: the interpreter, saves and
    # descriptions import the state module, so it reaches them through here.
    node_of = staticmethod(interpreter.current_node)
    play = staticmethod(interpreter.apply_action)
    describe_action = staticmethod(action_to_string)
    describe = staticmethod(describe_state)
    saved = staticmethod(to_json)
    hash_of = staticmethod(state_hash)
    observe = staticmethod(observe)

    def __init__(
        self, rules: Rules, params: dict[str, Any] | None = None, rules_hash: str = ""
    ) -> None:
        _check_size(rules)
        self.rules = rules
        self.params = dict(params or {})
        _check_params(self.params, [sw.name for sw in rules.switches])
        self.firing: Firing | None = None  # `muster soak` attaches a counter (engine/firing.py)
        self._reaching = False  # a `can_reach` search is under way (`reach`)
        # The hexes each unit could reach in a position (unit, state hash): asked again
        # at every step a legality check weighs, searched once.
        self._reached: dict[tuple[int, str], frozenset[int]] = {}
        # A player's local chart values (compiler/local_charts.py) change the
        # game: they enter the rules hash, so a log replays only with them.
        charts: dict[str, TableSpec] = self.params.pop("charts", {})
        self.rules_hash = _with_charts(rules_hash, charts)
        self.scenario = self._scenario(self.params.get("scenario"))
        self.switch_on: dict[str, bool] = self._switches(dict(self.params.get("rules", {})))
        # Tables as played: the rules' own, or a player's local chart values.
        self.tables = tuple(charts.get(t.name, t) for t in rules.tables)
        self.first_turn = self.scenario.first_turn if self.scenario else rules.first_turn
        self.last_turn = self.scenario.last_turn if self.scenario else rules.last_turn
        # When and where each unit enters: (turn, hexes, variable); turn 0 never.
        self.entries = self._entries()
        self.actions = ActionSpace(len(rules.units), len(rules.board.labels))
        self.triggers_by_event: dict[str, tuple[TriggerSpec, ...]] = _grouped(
            (trig.event, trig) for trig in rules.triggers
        )
        self._tabulate_units()
        self._tabulate_sides()
        self._tabulate_variables()
        self.restrictions: dict[str, tuple] = self._restrictions_on()
        self.hex_tests = hex_tests(self.restrictions, rules.board.zones)
        # What primitives work out from the rules and the map alone, kept for the
        # game's life (march distances to a goal): never from a position.
        self.derived: dict[str, dict] = {}
        # The position every game starts from, set up once (`new_initial_state`).
        self._initial: State | None = None
        # Every token any bag may hold, by name; chance outcomes of draws index it.
        self.tokens: list[str] = sorted(rules.markers)
        self._index_names()
        self.info = self._info()

    def _restrictions_on(self) -> dict[str, tuple]:
        """The movement restrictions of each kind whose rule switch is on in this
        game, in declaration order (asked for every step of every unit: no scan
        of the others, no switch looked up again)."""
        return _grouped(
            (r.kind, r) for r in self.rules.restrictions if not r.rule or self.switch_on[r.rule]
        )

    def _index_names(self) -> None:
        """Each unit, side and hex by its name (saves and logs name them)."""
        rules = self.rules
        self.unit_by_name = {u.name: i for i, u in enumerate(rules.units)}
        self.side_by_name = {s.name: i for i, s in enumerate(rules.sides)}
        self.hex_by_label = {label: i for i, label in enumerate(rules.board.labels)}

    def _switches(self, chosen: dict[str, Any]) -> dict[str, bool]:
        """Each rule switch on or off: as `chosen` says, else as the scenario
        sets it, else the rules' default (`switches_for`)."""
        known = {sw.name for sw in self.rules.switches}
        unknown = sorted(set(chosen) - known)
        if unknown:
            raise ParamsError(f"unknown rule switch {unknown[0]!r}; known: {sorted(known)}")
        try:
            return switches_for(
                self.rules, self.scenario, {name: bool(on) for name, on in chosen.items()}
            )
        except SwitchError as e:
            raise ParamsError(str(e)) from None

    def _tabulate_units(self) -> None:
        """The per-unit tables the primitives and queries look up at every step."""
        rules = self.rules
        # Each unit's cost to step from each hex in each direction on the printed
        # map (`step_cost`): looked up for every step considered.
        self.step_costs = unit_costs(rules)
        # Each unit's printed strengths, step by step (`unit_strength`).
        self.strengths = tuple(unit.strengths for unit in rules.units)
        # Each combat unit's side, and None for a leader: `enemies_adjacent` is asked
        # for the hexes around every step considered.
        self.combat_sides = tuple(
            unit.side if unit.kind == "unit" else None for unit in rules.units
        )
        # The combat units, in unit order (a designation decision goes over them).
        self.combat_units = tuple(u for u, unit in enumerate(rules.units) if unit.kind == "unit")

    def _tabulate_sides(self) -> None:
        """Each side's units, and those of them that enter during the game."""
        rules = self.rules
        # Each side's units and leaders, in unit order (a movement decision asks
        # about every one of the phasing side's).
        self.units_by_side = tuple(
            tuple(u for u, unit in enumerate(rules.units) if unit.side == side)
            for side in range(len(rules.sides))
        )
        # Of those, the ones with a turn and hexes of entry (the reinforcement
        # primitive asks which are due at every decision of the phase).
        self.entering_by_side = tuple(
            tuple(u for u in units if self.entries[u][0] and self.entries[u][1])
            for units in self.units_by_side
        )

    def _tabulate_variables(self) -> None:
        """What the interpreter and the remembered answers need of the variables."""
        rules = self.rules
        self.variable_scopes = {var.name: var.scope for var in rules.variables}
        self.variable_types = {var.name: var.type for var in rules.variables}
        # Variables with a value per side, unit or hex (victory points too): a
        # remembered answer depends on the members it reads (engine/incremental.py).
        self.indexed_variables = frozenset(
            {"vp"} | {var.name for var in rules.variables if var.scope}
        )
        self.announced = {var.name: var.title for var in rules.variables if var.announce}
        self.secret_variables = {v.name: v for v in rules.variables if v.secret != PUBLIC}
        self.resets: dict[str, tuple] = _grouped(
            (var.reset, var) for var in rules.variables if var.reset
        )

    def _info(self) -> GameInfo:
        rules = self.rules
        top = max(rules.victory_levels.values(), default=1.0)
        return GameInfo(
            num_players=len(rules.sides),
            num_distinct_actions=self.actions.size,
            # Chance outcomes are die faces (the face's own value) or the
            # indices of the tokens a draw may give.
            max_chance_outcomes=max(rules.die[1] + 1, len(self.tokens)),
            min_utility=-top,
            max_utility=top,
            utility_sum=0.0,
            max_game_length=self._max_game_length(),
        )

    def _max_game_length(self) -> int:
        """An upper bound on actions (chance outcomes included) in one game.

        Per player turn: every unit may take at most its movement allowance in
        steps plus one action to start, and each unit may be in one combat
        whose resolution takes a bounded number of decisions and rolls.
        """
        rules = self.rules
        n_units = len(rules.units)
        max_ma = max((u.movement for u in rules.units), default=0)
        per_player_turn = n_units * (max_ma + 2) + 1 + n_units * 24
        turns = self.last_turn - self.first_turn + 1
        return turns * len(rules.sides) * per_player_turn + 64

    def _scenario(self, name: str | None) -> ScenarioSpec | None:
        scenarios = self.rules.scenarios
        if not scenarios:
            if name is not None:
                raise ParamsError(f"{self.rules.name} has no scenarios")
            return None
        if name is None:
            return scenarios[0]
        for sc in scenarios:
            if sc.name == name:
                return sc
        raise ParamsError(f"unknown scenario {name!r}; known: {[sc.name for sc in scenarios]}")

    def _entries(self) -> list[tuple[int, tuple[int, ...], bool]]:
        units = self.rules.units
        sc = self.scenario
        if sc is None or sc.printed_setup:
            return [(u.entry_turn, u.entry_hexes, u.variable_entry) for u in units]
        entries: list[tuple[int, tuple[int, ...], bool]] = [(0, (), False)] * len(units)
        for turn, hexes, placed in sc.reinforcements:
            for u, _reduced, _assigns in placed:
                entries[u] = (turn, hexes, units[u].variable_entry)
        return entries

    def reach(self, s: State, u: int) -> frozenset[int]:
        """The hexes unit u can get to now by legal steps (the `can_reach` query),
        played out on copies by `cheapest_paths`. None while such a search is under
        way: a rule the search obeys that asks it again (a `no_end` on "if it can
        reach one") is left out of the search instead of recursing."""
        if self._reaching:
            return frozenset()
        apart = _apart(s)
        key = (u, apart.state_hash())
        found = self._reached.get(key)
        if found is None:
            self._reaching = True
            try:
                found = frozenset(cheapest_paths(apart, u))
            finally:
                self._reaching = False
            if len(self._reached) >= 256:  # a few decisions' worth: the rest is history
                self._reached.clear()
            self._reached[key] = found
        return found

    # OpenSpiel-style accessors
    def num_players(self) -> int:
        return self.info.num_players

    def num_distinct_actions(self) -> int:
        return self.info.num_distinct_actions

    def max_game_length(self) -> int:
        return self.info.max_game_length

    def max_chance_outcomes(self) -> int:
        return self.info.max_chance_outcomes

    def min_utility(self) -> float:
        return self.info.min_utility

    def max_utility(self) -> float:
        return self.info.max_utility

    def _check_stacking(self, s: State) -> None:
        """A scenario's fixed set-up must keep every hex within its `stacking` rule."""
        sc = self.scenario
        if sc is None or sc.stacking is None:
            return
        for h, units in sorted(s.units_by_hex().items()):
            if not sc.stacking(s, {"units": units}):
                names = ", ".join(self.rules.units[u].name for u in units)
                raise SetupError(
                    f"scenario {sc.name!r} sets up hex {self.rules.board.labels[h]} "
                    f"over its stacking limit: {names}"
                )

    def new_initial_state(self) -> State:
        """The position at the start of the game (or scenario), set up.

        Every game starts from the same position, and working it out runs to the
        first decision, which asks about every unit: it is worked out once and
        copied, with its account. A game counting what fires (`firing`) sets up
        each start afresh, so that each is counted.
        """
        if self.firing is not None:
            return self._set_up()
        if self._initial is None:
            self._initial = self._set_up()
        s = self._initial.clone()
        s.messages = list(self._initial.messages)
        return s

    def _set_up(self) -> State:
        """The start of the game: units placed, the scenario's values set, run to
        the first decision."""
        s = State(self)
        s.vars["turn"] = self.first_turn
        sc = self.scenario
        for u, (turn, _hexes, _variable) in enumerate(self.entries):
            s.unit_status[u] = NOT_ENTERED if turn else OUT_OF_PLAY
        if sc is None or sc.printed_setup:
            self._place_printed(s)
        if sc is not None:
            _set_scenario_values(s, sc)
            self._check_stacking(s)
        s.stack.append(Frame(self.rules.start_procedure, 0, {}))
        interpreter.emit(s, "start", procedure=self.rules.start_procedure, side=s.vars["phasing"])
        if sc is not None and any(p.chosen for p in sc.setup):
            frame = Frame("setup", 0, {}, prim=True)
            frame.params = {}
            get("setup").start(s, frame, {}, ("", 0))
            s.stack.append(frame)
        interpreter.advance(s)
        return s

    def _place_printed(self, s: State) -> None:
        """Every unit with a printed set-up hex placed there."""
        for i, unit in enumerate(self.rules.units):
            if unit.setup >= 0:
                s.unit_hex[i] = unit.setup
                s.unit_status[i] = ON_MAP


def _set_scenario_values(s: State, sc: ScenarioSpec) -> None:
    """A scenario's starting values, its fixed placements (a placement the
    players choose is left to the set-up primitive), and the losses and values
    its set-up and reinforcements give their units."""
    for variable, index_fn, value_fn in sc.values:
        if index_fn is None:
            s.vars[variable] = value_fn(s, {})
        else:
            set_at(s, variable, index_fn(s, {}), value_fn(s, {}))
    for placement in sc.setup:
        for u, reduced, assigns in placement.units:
            _set_unit_values(s, u, reduced, assigns)
            if not placement.chosen:
                s.unit_hex[u] = placement.hexes[0]
                s.unit_status[u] = ON_MAP
    for _turn, _hexes, placed in sc.reinforcements:
        for u, reduced, assigns in placed:
            _set_unit_values(s, u, reduced, assigns)


def _set_unit_values(s: State, u: int, reduced: bool, assigns: tuple) -> None:
    """A unit starting reduced or not, with the values the scenario assigns it."""
    s.unit_loss[u] = 1 if reduced else 0
    for variable, value_fn in assigns:
        set_at(s, variable, u, value_fn(s, {}))
