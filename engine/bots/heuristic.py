"""The heuristic bot: scores actions by what the rules value, from its own view.

Nothing here names a battle. What the bot wants comes from the ruleset: the
objectives are the map's victory hexes or those a `bot_weights` declaration
lists; state variables such as VP and army morale are weighed by name from
the rule files; close-combat odds come from the same `odds_column` query
and odds table the engine resolves combats on; terrain is valued by its TEC
attributes; leaders by whom they may command (14.1). Weights:
engine/bots/weights.py.

Decisions by kind:

- movement (step actions): the step that most raises the moving unit's
  hex value (objectives, terrain, contact at good odds, command) — the unit
  that moved last first, so each completes its move — or PASS when no step
  improves anything;
- close-combat designation: the best-odds combat, if its margin over even
  odds (less the defender's terrain) reaches `attack_threshold`, else PASS;
- a hex to pick among many (set-up, entry, retreat far afield): the best hex
  by the same hex value;
- any other decision (yes/no, lead units, tactics chits, which unit loses a
  step, a retreat hex): one ply of look-ahead on a copy of the view, the
  evaluation averaged over the die roll that follows, if one does.
"""

from __future__ import annotations

import math
import random

from engine.bots.view import view_of
from engine.bots.weights import Weights, weights_for
from engine.game import Game
from engine.queries import odds_column
from engine.state import NOT_ENTERED, ON_MAP, State
from engine.terrain_state import board_of

LOOKAHEAD = 12  # most candidate actions a look-ahead decision tries
MOVE_EPSILON = 1e-6
ACTING = 1e-3


class Evaluator:
    """Position values and action scores for one game, from one side's view."""

    def __init__(self, game: Game) -> None:
        rules = game.rules
        self.game = game
        self.w: Weights = weights_for(game)
        self.side = tuple(u.side for u in rules.units)
        self.kind = tuple(u.kind for u in rules.units)
        self.cube = rules.board.cube
        self.neighbors = rules.board.neighbors
        # Per terrain type; a hex's type is read from the map as it stands.
        self.type_value = tuple(
            sum(
                weight * float(t.props.get(attr, 0) or 0) for attr, weight in self.w.terrain.items()
            )
            for t in rules.terrain
        )
        n = len(rules.sides)
        self.objectives = tuple(
            tuple((h, wt) for h, side, wt in self.w.objectives if side in (-1, p)) for p in range(n)
        )
        # Objectives pull linearly across the map: every hex nearer is worth
        # the same, so a unit far away still feels the pull.
        cube = rules.board.cube
        self.reach = 1 + max(
            (max(abs(a - b) for a, b in zip(cube[0], c, strict=True)) for c in cube), default=1
        )
        self.odds_table = next(
            (i for i, t in enumerate(game.tables) if t.column_kind == "odds"), None
        )
        self.even_column = 0
        if self.odds_table is not None:
            columns = game.tables[self.odds_table].columns
            self.even_column = next(
                (i for i, (a, d) in enumerate(columns) if a == d), len(columns) // 2
            )

    # ------------------------------------------------------------ positions

    def distance(self, a: int, b: int) -> int:
        ca, cb = self.cube[a], self.cube[b]
        return max(abs(ca[0] - cb[0]), abs(ca[1] - cb[1]), abs(ca[2] - cb[2]))

    def strength(self, s: State, u: int) -> int:
        values = self.game.rules.units[u].strengths
        return values[min(s.unit_loss[u], len(values) - 1)] if values else 0

    def evaluate(self, s: State, p: int) -> float:
        """How good the position is for side p (a weighted sum, weights.py)."""
        w = self.w
        if s.terminal:
            return w["win"] * s.returns()[p]
        score = 0.0
        for var, weight in w.variables.items():
            value = s.vars[var]
            score += weight * float(value[p] - value[1 - p])
        strength = 0
        for u, kind in enumerate(self.kind):
            if kind == "unit" and s.unit_status[u] in (ON_MAP, NOT_ENTERED):
                strength += self.strength(s, u) if self.side[u] == p else -self.strength(s, u)
        score += w["strength"] * strength
        score += w["objective"] * (self._closeness(s, p) - self._closeness(s, 1 - p))
        return score

    def _closeness(self, s: State, p: int) -> float:
        own = [
            s.unit_hex[u]
            for u, kind in enumerate(self.kind)
            if kind == "unit" and self.side[u] == p and s.unit_status[u] == ON_MAP
        ]
        if not own:
            return 0.0
        return sum(
            wt * self.pull(min(self.distance(h, o) for h in own)) for o, wt in self.objectives[p]
        )

    def pull(self, d: int) -> float:
        """An objective's pull at distance d: 1 on it, falling linearly to 0."""
        return max(0.0, 1.0 - d / self.reach)

    def terrain_value(self, s: State, h: int) -> float:
        """What the terrain of hex h is worth (its cover), as the map now stands."""
        return self.type_value[board_of(s).terrain[h]]

    def hex_value(self, s: State, u: int, h: int, commanders: dict[int, list[int]]) -> float:
        """What standing in hex h is worth to unit u."""
        w = self.w
        p = self.side[u]
        at = s.units_by_hex()
        value = self.terrain_value(s, h)
        if self.kind[u] == "leader":
            friends = [
                s.unit_hex[o]
                for o, kind in enumerate(self.kind)
                if kind == "unit" and self.side[o] == p and s.unit_status[o] == ON_MAP
            ]
            if friends:
                value += w["command"] / (1 + min(self.distance(h, f) for f in friends))
            return value
        for o, wt in self.objectives[p]:
            holders = [x for x in at.get(o, ()) if x != u and self.side[x] == p]
            if not any(self.kind[x] == "unit" for x in holders):
                value += w["objective"] * wt * self.pull(self.distance(h, o))
        if self.kind[u] != "unit":
            return value
        enemy = 0
        for n in self.neighbors[h]:
            if n >= 0:
                for x in at.get(n, ()):
                    if self.side[x] != p and self.kind[x] == "unit":
                        enemy += self.strength(s, x)
        if enemy:
            own = self.strength(s, u) + sum(
                self.strength(s, x)
                for x in at.get(h, ())
                if x != u and self.side[x] == p and self.kind[x] == "unit"
            )
            # Even odds are worth seeking (a combat is designated from
            # there); at 1:2 contact is neutral, worse is to be avoided.
            ratio = 1 + math.log2(max(own, 1) / enemy)
            value += w["attack"] * max(-2.0, min(2.0, ratio))
        leaders = commanders.get(u, [])
        if leaders:
            value += w["command"] / (1 + min(self.distance(h, s.unit_hex[x]) for x in leaders))
        return value

    def commanders(self, s: State, p: int) -> dict[int, list[int]]:
        """Per combat unit of side p: the friendly leaders on the map who may command it."""
        rules = self.game.rules
        leaders = [
            x
            for x, kind in enumerate(self.kind)
            if kind == "leader" and self.side[x] == p and s.unit_status[x] == ON_MAP
        ]
        out: dict[int, list[int]] = {}
        for u, kind in enumerate(self.kind):
            if kind == "unit" and self.side[u] == p and s.unit_status[u] == ON_MAP:
                out[u] = [
                    x
                    for x in leaders
                    if rules.units[x].commands is None or rules.units[x].commands(s, {"unit": u})
                ]
        return out

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


class Policy:
    """The heuristic's choice of action at a node of its view."""

    def __init__(self, game: Game) -> None:
        self.ev = Evaluator(game)
        self.last_moved = -1

    def choose(
        self, view: State, actions: list[int], p: int, rng: random.Random, deep: bool
    ) -> int:
        space = view.game.actions
        if view.stack and view.stack[-1].proc == "designate_combats":
            # Leaving a unit out of the combat just designated (12.15) only when
            # nothing else may be done: the bot's combats commit whole stacks.
            whole = [a for a in actions if space.kind_of(a) != "unit"]
            actions = whole or actions
        kinds = {space.kind_of(a) for a in actions} - {"pass"}
        if "step" in kinds:
            return self._move(view, actions, p)
        if kinds == {"designate"}:
            return self._designate(view, actions, p)
        if kinds == {"hex"} and len(actions) > LOOKAHEAD:
            return self._place(view, actions, p)
        return self._look_ahead(view, actions, p, rng, deep)

    def _move(self, view: State, actions: list[int], p: int) -> int:
        space = view.game.actions
        commanders = self.ev.commanders(view, p)
        best, best_gain, own_best, own_gain = space.PASS, MOVE_EPSILON, None, MOVE_EPSILON
        values: dict[int, float] = {}
        for a in actions:
            if space.kind_of(a) != "step":
                continue
            u, d = space.decode_step(a)
            here = view.unit_hex[u]
            there = self.ev.neighbors[here][d]
            if u not in values:
                values[u] = self.ev.hex_value(view, u, here, commanders)
            gain = self.ev.hex_value(view, u, there, commanders) - values[u]
            if gain > best_gain:
                best, best_gain = a, gain
            if u == self.last_moved and gain > own_gain:
                own_best, own_gain = a, gain
        choice = own_best if own_best is not None else best
        if choice == space.PASS and space.PASS not in actions:
            choice = actions[0]
        if space.kind_of(choice) == "step":
            self.last_moved = space.decode_step(choice)[0]
        return choice

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
            near = sum(ev.w["objective"] * wt * ev.pull(ev.distance(h, o)) for o, wt in objectives)
            return ev.terrain_value(view, h) + near

        return max(actions, key=lambda a: value(space.decode("hex", a)) if a else -math.inf)

    def _look_ahead(
        self, view: State, actions: list[int], p: int, rng: random.Random, deep: bool
    ) -> int:
        candidates = actions if len(actions) <= LOOKAHEAD else rng.sample(actions, LOOKAHEAD)
        if not deep:
            candidates = candidates[:4]
        best, best_value = candidates[0], -math.inf
        for a in candidates:
            child = view.clone()
            try:
                child.apply_action(a)
            except ValueError:  # legal in the game, not in this view of it
                continue
            value = self._expected(child, p) if deep else self.ev.evaluate(child, p)
            if a != view.game.actions.PASS:
                value += ACTING  # between equals, act rather than pass or wait
            if value > best_value:
                best, best_value = a, value
        return best

    def _expected(self, s: State, p: int) -> float:
        """The evaluation, averaged over the outcomes of a chance node next."""
        if not s.is_chance_node():
            return self.ev.evaluate(s, p)
        total = 0.0
        for outcome, prob in s.chance_outcomes():
            child = s.clone()
            child.apply_action(outcome)
            total += prob * self.ev.evaluate(child, p)
        return total


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
