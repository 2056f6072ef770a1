"""The heuristic bot: scores actions by what the rules value, from its own view.

Nothing here names a battle. What the bot wants comes from the ruleset: the
objectives are the map's victory hexes or those a `bot_weights` declaration
lists; the scenario's victory conditions (the IR's `victory` declarations)
are checked on the position to see where the game stands, and what they
read that no weight names (exits, hexes, per-side variables: the
compiler's goals) is weighed all the same; state variables such as VP and
army morale are weighed by name from the rule files;
close-combat odds come from the same `odds_column` query and odds table the
engine resolves combats on; terrain is valued by its TEC attributes; zones
of control tell a unit with no way back; leaders are valued by whom they
may command (14.1, 14.2). Weights: engine/bots/weights.py.

Decisions by kind:

- movement (step and exit actions): the step that most raises the moving unit's
  hex value (objectives, terrain, contact at good odds, no way back,
  command) — the unit that moved last first, so each completes its move,
  then the other combat units, leaders last so that they follow — or PASS
  when no step improves anything; leaving the map by an exit is one more
  such move, worth what it gains a side whose victory counts its exits;
- close-combat designation: the best-odds combat, if its margin over even
  odds (less the defender's terrain) reaches `attack_threshold`, else PASS;
- a hex to pick among many (set-up, entry, retreat far afield): the best hex
  by the same hex value;
- any other decision (yes/no, lead units, tactics chits, which unit loses a
  step, a retreat hex): one ply of look-ahead on a copy of the view, played
  on through the same side's decisions that follow at once, the evaluation
  averaged over the die roll that follows, if one does.
"""

from __future__ import annotations

import math
import random
import time
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.bots.view import view_of
from engine.bots.weights import Weights, weights_for
from engine.game import Game
from engine.nodes import RulesError
from engine.queries import odds_column
from engine.rules import Rules
from engine.state import EXITED, NOT_ENTERED, ON_MAP, State
from engine.terrain_state import board_of

MOVES = frozenset({"step", "exit"})  # the movement's actions, chosen by `Policy._move`
LOOKAHEAD = 12  # most candidate actions a look-ahead decision tries
SETTLE = 3  # own decisions played on after a look-ahead candidate (`_settle`)
MOVE_EPSILON = 1e-6
ACTING = 1e-3


@dataclass(frozen=True, slots=True)
class Picture:
    """One side's picture of the map, built once per decision: enemy units
    do not move while a side moves its own."""

    at: dict[int, tuple[int, ...]]  # hex -> units there
    enemy_on: set[int]  # hexes holding an enemy unit
    enemy_zoc: set[int]  # hexes next to an enemy combat unit
    enemy_next: dict[int, int]  # hex -> enemy combat strength next to it
    friends: set[int]  # hexes holding a friendly combat unit
    commanders: dict[int, list[int]]  # combat unit -> leaders who may command it
    commanded: dict[int, list[int]]  # leader -> combat units he may command
    exits: dict[int, tuple[int, ...]]  # unit -> the hexes it may leave the map from
    # unit -> its side's objectives no other friendly combat unit holds (`_with_objectives`,
    # asked for every hex the unit may step to: worked out once per unit)
    unheld: dict[int, tuple[tuple[int, float], ...]] = field(default_factory=dict)


class Evaluator:
    """Position values and action scores for one game, from one side's view."""

    def __init__(self, game: Game, weights: Weights | None = None) -> None:
        rules = game.rules
        self.game = game
        self.w: Weights = weights if weights is not None else weights_for(game)
        self.side = tuple(u.side for u in rules.units)
        self.kind = tuple(u.kind for u in rules.units)
        self.cube = rules.board.cube
        self.neighbors = rules.board.neighbors
        self.strengths = tuple(u.strengths for u in rules.units)
        self._index_units(len(rules.sides))
        # Each hex's neighbours on the map, as a set (`_hemmed_in`: all of them closed?).
        self.around = tuple(frozenset(n for n in nb if n >= 0) for nb in self.neighbors)
        # Per terrain type; a hex's type is read from the map as it stands.
        self.type_value = _terrain_values(rules, self.w)
        self.objectives = _objectives_by_side(self.w, len(rules.sides))
        # Hexes' distances to every hex, looked up rather than worked out: rows made
        # as they are first needed, shared by the game's evaluators (`distances_from`).
        self.rows: dict[int, array] = game.derived.setdefault("hex distance rows", {})
        # Objectives pull linearly across the map: every hex nearer is worth
        # the same, so a unit far away still feels the pull.
        self.reach = 1 + _farthest_from_first(rules.board.cube)
        # Each objective's pull on every hex (`pull` of its distance).
        self.pull_of = {
            o: tuple(map(self.pull, self.distances_from(o)))
            for o in {o for side in self.objectives for o, _ in side}
        }
        self.victory = _victory_conditions(game)
        self.levels = rules.victory_levels
        self.odds_table = _odds_table(game)
        self.even_column = _even_column(game, self.odds_table)
        self.exiting = self.w.exits if rules.exits else frozenset()

    def _index_units(self, sides: int) -> None:
        """What `position` goes over at every evaluation, found once: each side's units
        of each kind in unit order, every other side's units, the combat units."""
        units = range(len(self.kind))
        self.units_of_kind = {
            (p, k): tuple(u for u in units if self.side[u] == p and self.kind[u] == k)
            for p in range(sides)
            for k in set(self.kind)
        }
        self.others = tuple(tuple(u for u in units if self.side[u] != p) for p in range(sides))
        self.combat_units = tuple(u for u in units if self.kind[u] == "unit")

    # ------------------------------------------------------------ positions

    def distance(self, a: int, b: int) -> int:
        ca, cb = self.cube[a], self.cube[b]
        return max(abs(ca[0] - cb[0]), abs(ca[1] - cb[1]), abs(ca[2] - cb[2]))

    def distances_from(self, h: int) -> array:
        """Hex h's distance to every hex of the map, by hex."""
        row = self.rows.get(h)
        if row is None:
            c = self.cube[h]
            row = self.rows[h] = array(
                "H", [max(abs(c[0] - o[0]), abs(c[1] - o[1]), abs(c[2] - o[2])) for o in self.cube]
            )
        return row

    def strength(self, s: State, u: int) -> int:
        values = self.strengths[u]
        return values[min(s.unit_loss[u], len(values) - 1)] if values else 0

    def evaluate(self, s: State, p: int) -> float:
        """How good the position is for side p (a weighted sum, weights.py)."""
        if s.terminal:
            return self.w["win"] * s.returns()[p]
        return self.position(s, p) + self.w["victory"] * self.standing(s, p)

    def position(self, s: State, p: int) -> float:
        """The evaluation's terms other than the game's result and the
        standing: variables, strength, objectives, units with no way back."""
        w = self.w
        score = 0.0
        for var, weight in w.variables.items():
            value = s.vars[var]
            score += weight * float(value[p] - value[1 - p])
        score += w["strength"] * self.strength_balance(s, p)
        score += w["objective"] * (self._closeness(s, p) - self._closeness(s, 1 - p))
        score -= w["surrounded"] * (self.trapped_strength(s, p) - self.trapped_strength(s, 1 - p))
        if self.exiting:
            score += w["exit"] * (self.exit_progress(s, p) - self.exit_progress(s, 1 - p))
        return score

    def exit_progress(self, s: State, p: int) -> float:
        """Side p's strength off the map by an exit, and half of it, times its pull,
        for each unit an exit lets leave (0 for a side that does not win by exits)."""
        if p not in self.exiting:
            return 0.0
        progress = 0.0
        for u in self.game.units_by_side[p]:
            if s.unit_status[u] == EXITED:
                progress += self.strength(s, u)
            elif s.unit_status[u] == ON_MAP:
                progress += self.exit_pull(s, u, s.unit_hex[u], self.exit_hexes(s, u))
        return progress

    def exit_hexes(self, s: State, u: int) -> tuple[int, ...]:
        """The hexes an exit of the rules lets unit u leave the map from (its
        allowance aside: that is the movement's to check)."""
        if self.side[u] not in self.exiting or not self.strength(s, u):
            return ()
        switch_on = s.game.switch_on
        return tuple(
            h
            for x in self.game.rules.exits
            if not x.rule or switch_on[x.rule]
            for h in sorted(x.hexes)
            if x.condition is None or x.condition(s, {"unit": u, "hex": h})
        )

    def exit_pull(self, s: State, u: int, h: int, exits: tuple[int, ...]) -> float:
        """What standing in hex h is worth to unit u on its way off the map: half
        its strength, times the pull of the nearest hex it may leave from."""
        if not exits:
            return 0.0
        return 0.5 * self.strength(s, u) * self.pull(min(self.distance(h, x) for x in exits))

    def strength_balance(self, s: State, p: int) -> int:
        """Side p's combat strength on the map or still to enter, less the enemy's."""
        strength = 0
        status = s.unit_status
        for u in self.combat_units:
            if status[u] == ON_MAP or status[u] == NOT_ENTERED:
                strength += self.strength(s, u) if self.side[u] == p else -self.strength(s, u)
        return strength

    def standing(self, s: State, p: int) -> float:
        """The victory the rules would award if they were checked now: the
        first of the scenario's conditions that holds, its level's utility,
        for side p or against it (0 when none holds)."""
        for v in self.victory:
            if v.condition(s, {}):
                u = self.levels.get(v.level, 1.0)
                return u if v.winner == p else -u
        return 0.0

    def trapped_strength(self, s: State, p: int) -> int:
        """Strength of side p's combat units in contact with no way back
        (`trapped`): what a lost close combat would capture."""
        enemy_on: set[int] = set()
        enemy_zoc: set[int] = set()
        status, hexes, kind, neighbors = s.unit_status, s.unit_hex, self.kind, self.neighbors
        for u in self.others[p]:
            if status[u] == ON_MAP:
                h = hexes[u]
                enemy_on.add(h)
                if kind[u] == "unit":
                    enemy_zoc.update(neighbors[h])
        closed = enemy_on | enemy_zoc
        around = self.around
        return sum(
            self.strength(s, u)
            for u in self.on_map(s, p, "unit")
            if hexes[u] in enemy_zoc and around[hexes[u]] <= closed
        )

    def on_map(self, s: State, p: int, kind: str) -> list[int]:
        """Side p's units of a kind ("unit" or "leader") on the map, in unit order."""
        status = s.unit_status
        return [u for u in self.units_of_kind.get((p, kind), ()) if status[u] == ON_MAP]

    def _hemmed_in(self, h: int, enemy_on: set[int], enemy_zoc: set[int]) -> bool:
        """In an enemy zone of control, with every neighbour on the map holding
        an enemy or in an enemy zone of control too."""
        return h in enemy_zoc and self.around[h] <= enemy_on | enemy_zoc

    def _closeness(self, s: State, p: int) -> float:
        own = [s.unit_hex[u] for u in self.on_map(s, p, "unit")]
        if not own:
            return 0.0
        return sum(
            wt * self.pull(min(map(self.distances_from(o).__getitem__, own)))
            for o, wt in self.objectives[p]
        )

    def pull(self, d: int) -> float:
        """An objective's pull at distance d: 1 on it, falling linearly to 0."""
        return max(0.0, 1.0 - d / self.reach)

    def terrain_value(self, s: State, h: int) -> float:
        """What the terrain of hex h is worth (its cover), as the map now stands."""
        return self.type_value[board_of(s).terrain[h]]

    def picture(self, s: State, p: int) -> Picture:
        """Side p's picture of the map for one decision (see `Picture`)."""
        at = s.units_by_hex()
        enemy_on: set[int] = set()
        enemy_zoc: set[int] = set()
        enemy_next: dict[int, int] = {}
        friends: set[int] = set()
        for u, kind in enumerate(self.kind):
            if s.unit_status[u] != ON_MAP:
                continue
            h = s.unit_hex[u]
            if self.side[u] == p:
                if kind == "unit":
                    friends.add(h)
                continue
            enemy_on.add(h)
            if kind == "unit":
                strength = self.strength(s, u)
                for n in self.neighbors[h]:
                    if n >= 0:
                        enemy_zoc.add(n)
                        enemy_next[n] = enemy_next.get(n, 0) + strength
        commanders = self.commanders(s, p)
        exits = (
            {u: self.exit_hexes(s, u) for u in self.on_map(s, p, "unit")}
            if p in self.exiting
            else {}
        )
        return Picture(
            at, enemy_on, enemy_zoc, enemy_next, friends, commanders, _commanded(commanders), exits
        )

    def trapped(self, h: int, pic: Picture) -> bool:
        """In contact with no hex to fall back to: every neighbour holds an
        enemy or lies in an enemy zone of control (a retreat there is
        barred, and a unit that cannot retreat is captured)."""
        return self._hemmed_in(h, pic.enemy_on, pic.enemy_zoc)

    def hex_value(self, s: State, u: int, h: int, pic: Picture) -> float:
        """What standing in hex h is worth to unit u."""
        value = self.terrain_value(s, h)
        if self.kind[u] == "leader":
            return value + self._leader_value(s, u, h, pic)
        value = self._with_objectives(value, u, h, pic)
        if self.kind[u] != "unit":
            return value
        if pic.exits.get(u):
            value += self.w["exit"] * self.exit_pull(s, u, h, pic.exits[u])
        enemy = pic.enemy_next.get(h, 0)
        if enemy:
            value = self._with_contact(value, s, u, h, enemy, pic)
        # A leader who may command the unit adds his DRMs in his hex and
        # tactics chits next to it (14.2): a bonus there, nothing lost by
        # marching on ahead (leaders move after their units and follow).
        leaders = pic.commanders.get(u, ())
        if leaders:
            where = [s.unit_hex[x] for x in leaders]
            if h in where:
                value += self.w["command"] * 1.0
            elif not set(where).isdisjoint(self.neighbors[h]):
                value += self.w["command"] * 0.5
        return value

    def exit_gain(self, s: State, u: int, pic: Picture) -> float:
        """What leaving the map is worth to unit u over standing where it is: its
        strength off the map (`exit`) less its strength on it and its hex value."""
        if self.side[u] not in self.exiting:
            return -math.inf
        off = (self.w["exit"] - self.w["strength"]) * self.strength(s, u)
        return off - self.hex_value(s, u, s.unit_hex[u], pic)

    def _with_objectives(self, value: float, u: int, h: int, pic: Picture) -> float:
        """`value` plus the pull of each objective no other friendly combat unit
        holds, and the worth of occupying it (added in turn: the same sum to the
        last bit)."""
        w = self.w
        unheld = pic.unheld.get(u)
        if unheld is None:
            p, side, kind = self.side[u], self.side, self.kind
            unheld = pic.unheld[u] = tuple(
                (o, wt)
                for o, wt in self.objectives[p]
                if not any(x != u and side[x] == p and kind[x] == "unit" for x in pic.at.get(o, ()))
            )
        for o, wt in unheld:
            value += w["objective"] * wt * self.pull_of[o][h]
            if h == o:
                value += w["occupy"] * wt
        return value

    def _with_contact(
        self, value: float, s: State, u: int, h: int, enemy: int, pic: Picture
    ) -> float:
        """`value` plus what contact with `enemy` strength next to hex h is worth
        to combat unit u and its friends there, less the risk of being trapped."""
        w = self.w
        p = self.side[u]
        own = self.strength(s, u) + sum(
            self.strength(s, x)
            for x in pic.at.get(h, ())
            if x != u and self.side[x] == p and self.kind[x] == "unit"
        )
        # Even odds are worth seeking (a combat is designated from
        # there); at 1:2 contact is neutral, worse is to be avoided.
        ratio = 1 + math.log2(max(own, 1) / enemy)
        value += w["attack"] * max(-2.0, min(2.0, ratio))
        if self.trapped(h, pic):
            value -= w["surrounded"]
        return value

    def _leader_value(self, s: State, u: int, h: int, pic: Picture) -> float:
        """A leader's hex: with units he may command (the more, the better),
        never alone where the enemy can reach him (14.32)."""
        w = self.w
        own = pic.commanded.get(u, ())
        here = sum(1 for x in own if s.unit_hex[x] == h)
        if here:
            return w["command"] * min(here, 3)
        value = 0.0
        if own:
            hexes = s.unit_hex
            gap = min(map(self.distances_from(h).__getitem__, [hexes[x] for x in own]))
            value -= 0.1 * w["command"] * gap
        if h in pic.enemy_zoc and h not in pic.friends:
            value -= w["surrounded"]
        return value

    def commanders(self, s: State, p: int) -> dict[int, list[int]]:
        """Per combat unit of side p: the friendly leaders on the map who may command it."""
        rules = self.game.rules
        leaders = self.on_map(s, p, "leader")
        return {
            u: [
                x
                for x in leaders
                if rules.units[x].commands is None or rules.units[x].commands(s, {"unit": u})
            ]
            for u in self.on_map(s, p, "unit")
        }

    def combat_margin(self, s: State, p: int, action: int) -> float:
        """Odds columns above even odds of a designated combat, less the
        defender's terrain; -inf for the Diversion or no odds table."""
        centre, mask, form = self.game.actions.decode_designate(action)
        if mask == 0 or self.odds_table is None:
            return -math.inf
        around = [n for d, n in enumerate(self.neighbors[centre]) if mask >> d & 1 and n >= 0]
        attack_hexes, defense_hexes = (around, [centre]) if form == 0 else ([centre], around)
        at = s.units_by_hex()

        def total(hexes: list[int], side_is_p: bool) -> int:
            return sum(
                self.strength(s, x)
                for h in hexes
                for x in at.get(h, ())
                if self.kind[x] == "unit" and (self.side[x] == p) == side_is_p
            )

        column = odds_column(
            s, self.odds_table, total(attack_hexes, True), total(defense_hexes, False)
        )
        cover = max(self.terrain_value(s, h) for h in defense_hexes)
        return column - self.even_column - cover


def _terrain_values(rules: Rules, w: Weights) -> tuple[float, ...]:
    """Each terrain type's worth: its properties (cover) weighted."""
    return tuple(
        sum(weight * float(t.props.get(attr, 0) or 0) for attr, weight in w.terrain.items())
        for t in rules.terrain
    )


def _objectives_by_side(w: Weights, n: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Each side's objectives (hex, weight): its own and those of either side (-1)."""
    return tuple(
        tuple((h, wt) for h, side, wt in w.objectives if side in (-1, p)) for p in range(n)
    )


def _farthest_from_first(cube: Any) -> int:
    """The distance from the map's first hex to the farthest (1 for no hexes)."""
    return max((max(abs(a - b) for a, b in zip(cube[0], c, strict=True)) for c in cube), default=1)


def _victory_conditions(game: Game) -> tuple[Any, ...]:
    """The victory conditions of the game's scenario (and of every scenario)."""
    scenario = game.scenario.name if game.scenario is not None else None
    return tuple(v for v in game.rules.victory if not v.scenarios or scenario in v.scenarios)


def _odds_table(game: Game) -> int | None:
    """The first table read by odds (the close combat table), if any."""
    return next((i for i, t in enumerate(game.tables) if t.column_kind == "odds"), None)


def _even_column(game: Game, odds_table: int | None) -> int:
    """The odds table's 1:1 column (its middle if it has none; 0 for no table)."""
    if odds_table is None:
        return 0
    columns = game.tables[odds_table].columns
    return next((i for i, (a, d) in enumerate(columns) if a == d), len(columns) // 2)


class OutOfTime(Exception):
    """A search ran past its decision's deadline (a seconds budget)."""


class Policy:
    """The heuristic's choice of action at a node of its view.

    `deadline` (a `time.monotonic()` instant; 0 for none, as the heuristic
    bot plays) bounds the look-ahead: past it, the look-ahead answers with
    the best candidate it has valued, so that a search bot with a seconds
    budget is never held up inside one decision of a rollout."""

    def __init__(self, game: Game, weights: Weights | None = None) -> None:
        self.ev = Evaluator(game, weights)
        self.last_moved = -1
        self.deadline = 0.0

    def out_of_time(self) -> bool:
        """Whether the deadline (if any) has passed."""
        return bool(self.deadline) and time.monotonic() > self.deadline

    def choose(
        self, view: State, actions: list[int], p: int, rng: random.Random, deep: bool
    ) -> int:
        space = view.game.actions
        if view.stack and view.stack[-1].proc == "designate_combats":
            actions = _whole_stacks(view, actions)
        kinds = {space.kind_of(a) for a in actions} - {"pass"}
        if kinds & MOVES:
            return self._move(view, actions, p)
        if kinds == {"designate"}:
            return self._designate(view, actions, p)
        if kinds == {"hex"} and len(actions) > LOOKAHEAD:
            return self._place(view, actions, p)
        return self._look_ahead(view, actions, p, rng, deep)

    def _move(self, view: State, actions: list[int], p: int) -> int:
        """The step that most raises its unit's hex value: the unit that
        moved last first (it completes its move), then combat units, then
        leaders (who follow their units); PASS when no step gains.

        The unit that moved last is valued first, alone: when one of its steps
        gains, that step is the answer whatever the others gain, so they are
        valued only when none does (most decisions of a movement phase are a
        unit going on, and valuing every unit's steps was most of the bot's
        time)."""
        space = view.game.actions
        pic = self.ev.picture(view, p)
        values: dict[int, float] = {}
        mover = self.last_moved
        own: list[int] = []
        if mover >= 0:  # its steps (a block of the action space) and its exit
            steps, leave = range(space.step(mover, 0), space.step(mover + 1, 0)), space.exit(mover)
            own = [a for a in actions if a in steps or a == leave]
        own_best, own_gain = None, MOVE_EPSILON
        for a, _u, gain in self._step_gains(view, own, pic, values):
            if gain > own_gain:
                own_best, own_gain = a, gain
        if own_best is not None:
            choice = own_best
        else:
            best: dict[bool, tuple[float, int]] = {}
            for a, u, gain in self._step_gains(view, actions, pic, values):
                leader = self.ev.kind[u] == "leader"
                if gain > best.get(leader, (MOVE_EPSILON, 0))[0]:
                    best[leader] = (gain, a)
            if best:
                choice = best[min(best)][1]
            else:
                choice = space.PASS if space.PASS in actions else actions[0]
        if space.kind_of(choice) == "step":
            self.last_moved = space.decode_step(choice)[0]
        return choice

    def _step_gains(
        self, view: State, actions: list[int], pic: Picture, values: dict[int, float]
    ) -> Iterator[tuple[int, int, float]]:
        """Each step among the actions, with its unit and how much the step
        raises the unit's hex value (and each exit, with what leaving gains);
        `values` keeps each unit's value where it stands, for the decision."""
        space = view.game.actions
        ev = self.ev
        for a in actions:
            kind = space.kind_of(a)
            if kind == "exit":
                u = space.decode("exit", a)
                yield a, u, ev.exit_gain(view, u, pic)
            if kind != "step":
                continue
            u, d = space.decode_step(a)
            here = view.unit_hex[u]
            there = ev.neighbors[here][d]
            if u not in values:
                values[u] = ev.hex_value(view, u, here, pic)
            yield a, u, ev.hex_value(view, u, there, pic) - values[u]

    def _designate(self, view: State, actions: list[int], p: int) -> int:
        space = view.game.actions
        scored = [(self.ev.combat_margin(view, p, a), a) for a in actions if a != space.PASS]
        margin, best = max(scored, key=lambda x: x[0])
        if space.PASS in actions and margin < self.ev.w["attack_threshold"]:
            return space.PASS
        return best

    def _place(self, view: State, actions: list[int], p: int) -> int:
        space = view.game.actions
        ev = self.ev
        objectives = ev.objectives[p]

        def value(h: int) -> float:
            near = sum(ev.w["objective"] * wt * ev.pull_of[o][h] for o, wt in objectives)
            return ev.terrain_value(view, h) + near

        return max(actions, key=lambda a: value(space.decode("hex", a)) if a else -math.inf)

    def _look_ahead(
        self, view: State, actions: list[int], p: int, rng: random.Random, deep: bool
    ) -> int:
        candidates = actions if len(actions) <= LOOKAHEAD else rng.sample(actions, LOOKAHEAD)
        if not deep:
            candidates = candidates[:4]
        space = view.game.actions
        idle = {space.PASS}
        if sorted(actions) == [space.option(0), space.option(1)]:
            idle.add(space.option(0))  # the "no" of a yes/no question
        best, best_value = candidates[0], -math.inf
        for a in candidates:
            try:
                value = self._after(view, a, p, deep)
            except OutOfTime:  # the best valued so far answers
                break
            if value is None:
                continue
            if a not in idle:
                value += ACTING  # between equals, act rather than pass or say no
            if value > best_value:
                best, best_value = a, value
        return best

    def _after(self, view: State, a: int, p: int, deep: bool) -> float | None:
        """The value to side p of the position action a leads to (deep: with
        its sequel settled and the dice next averaged); None when the action
        does not play in this view."""
        child = view.clone()
        try:
            child.apply_action(a)
        except (ValueError, RulesError):  # legal in the game, not in this view of it
            return None
        if self.out_of_time():
            raise OutOfTime
        if deep:
            self._settle(child, p)
            return self._expected(child, p)
        return self.ev.evaluate(child, p)

    @staticmethod
    def _settle(s: State, p: int) -> None:
        """Play on, in place, the few decisions of side p that follow at once
        (the stack to examine after "examine a stack?", the next gun after
        "fire this gun?") by their first action that is not PASS, so that
        what an answer costs or gains is on the board when it is evaluated."""
        for _ in range(SETTLE):
            action = _sequel(s, p)
            if action is None:
                return
            try:
                s.apply_action(action)
            except (ValueError, RulesError):  # legal in the game, not in this view of it
                return
            s.take_messages()

    def _expected(self, s: State, p: int) -> float:
        """The evaluation, averaged over the outcomes of a chance node next."""
        if not s.is_chance_node():
            return self.ev.evaluate(s, p)
        total = 0.0
        for outcome, prob in s.chance_outcomes():
            if self.out_of_time():
                raise OutOfTime
            child = s.clone()
            child.apply_action(outcome)
            total += prob * self.ev.evaluate(child, p)
        return total


def _commanded(commanders: dict[int, list[int]]) -> dict[int, list[int]]:
    """Per leader, the combat units he may command (`commanders` turned round)."""
    commanded: dict[int, list[int]] = {}
    for u, leaders in commanders.items():
        for x in leaders:
            commanded.setdefault(x, []).append(u)
    return commanded


def _sequel(s: State, p: int) -> int | None:
    """The first action not PASS of side p's decision, if one follows at once
    (None at the end, a chance node, the other side's decision, or a new
    phase of play, which is no answer's sequel)."""
    if s.is_terminal() or s.is_chance_node() or s.current_player() != p:
        return None
    actions = s.legal_actions(p)
    space = s.game.actions
    if any(space.kind_of(a) in ("step", "designate") for a in actions):
        return None
    return next((a for a in actions if a != space.PASS), actions[0])


def _whole_stacks(view: State, actions: list[int]) -> list[int]:
    """Leaving a unit out of the combat just designated (12.15) only when
    nothing else may be done: the bot's combats commit whole stacks."""
    space = view.game.actions
    whole = [a for a in actions if space.kind_of(a) != "unit"]
    return whole or actions


class HeuristicBot:
    """Plays by the heuristic policy on a view rebuilt from its observation."""

    name = "heuristic"

    def __init__(self, player: int, rng: random.Random) -> None:
        self.player = player
        self.rng = rng
        self.policy: Policy | None = None

    def step(self, s: State) -> int:
        actions = s.legal_actions(self.player)
        if len(actions) == 1:
            return actions[0]
        if self.policy is None:
            self.policy = Policy(s.game)
        _observation, view = view_of(s, self.player, self.rng)
        return self.policy.choose(view, actions, self.player, self.rng, deep=True)
