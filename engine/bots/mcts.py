"""The search bot: Monte Carlo search over the bot's own views.

At each decision the bot rebuilds the position from its observation
(engine/bots/view.py) and searches it with `clone()`/`apply_action`. The
search compares a few *candidates* on the same sampled worlds (common
random numbers): each round re-deals what is hidden from the bot
(determinisation: the concealed stacks and face-down choices sampled
afresh from its observation) and draws one seed for the dice, and every
candidate is played on a copy of that world, with that seed, by the
heuristic policy (yes/no questions answered by its look-ahead, as the
heuristic bot answers them: by one ply a "yes" that costs only once the
question's sequel is played looks free), every chance node sampled from
its own probabilities, and scored by the heuristic evaluation where the
rollout stops (which includes the victory the scenario's conditions
would award and, at the end of a game, its result). Comparing candidates on the same worlds and
dice means a difference in their scores is the candidates', not the
luck's: a budget of a few rounds already tells them apart.

Where the search spends its budget — where games are decided:

- the *posture* of each of its player turns' movement: at the first step
  of a player turn the candidates are the heuristic planner re-weighed
  (`POSTURES`: as tuned, pressing on to the objectives, guarding the
  objectives the enemy makes for, defending them only, cautious; a spare
  from `SPARE_POSTURES` in place of one that repeats an earlier one), each
  rollout playing its own side by the posture and the enemy by the tuned
  heuristic to the end of the game turn (`PLAN_DECISIONS` at most), so
  that the turn's end-of-turn victory checks are in what is compared —
  and, for a side moving second in its game turn, to the end of the next,
  so that the enemy's reply to the posture is in it too. The
  turn's steps (most of a game's decisions, each a single hex) then
  follow the chosen posture's planner without further search;
- every other decision (close-combat designations, retreats, which unit
  takes a loss, momentum, tactics chits, yes/no questions, set-up): the
  candidates are the heuristic bot's own choice (its look-ahead, as the
  `heuristic` bot plays) and the `CANDIDATES - 1` other actions it ranks
  next by one ply, each rolled out for `ROLLOUT_DECISIONS` decisions
  (in the last game turn, to the end of the game).

The heuristic's choice (or the tuned posture) stands unless another
candidate's mean score beats it by `MARGIN`: the search overrules the
heuristic only on evidence.

The budget is rollouts (`mcts:N`, reproducible: it never reads the
clock) or seconds (`mcts:0.5s`, which depends on the machine's speed and
so is not): N rollouts per searched decision and per posture choice, in
rounds of one rollout per candidate (at least one round). A seconds
budget is a promise: it counts from the moment the bot is asked, the
rollouts look at the clock before each action (a round of posture
rollouts can take seconds), the heuristic's look-ahead before each
candidate and die roll it values (`Policy.deadline`), and a round the
deadline cuts short is not counted — when not even one round fits, the
heuristic's choice (or the tuned posture) stands. The search aims at
`AIM` of the budget, leaving the rest for the action in flight.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable
from dataclasses import replace

from engine import chance
from engine.bots.heuristic import LOOKAHEAD, MOVES, OutOfTime, Policy
from engine.bots.view import hides_anything, redeal, view_of
from engine.bots.weights import Weights, weights_for
from engine.game import Game
from engine.nodes import RulesError
from engine.state import State

DEFAULT_ITERATIONS = 100
CANDIDATES = 3  # actions compared at a decision: the heuristic's choice and the next best
ROLLOUT_DECISIONS = 12  # decisions a rollout from a decision plays at least
ROLLOUT_ROLLS = 2  # chance outcomes it plays at least (the dice the decision leads to)
SEARCHED = frozenset({"designate", "option"})  # decisions searched; the heuristic's elsewhere
PLAN_DECISIONS = 400  # most decisions a posture rollout plays (it stops at the turn's end)
MARGIN = 1.0  # mean evaluation gain (about a strength point) needed to overrule the heuristic
FULL_COLLECTIONS_HELD = 1 << 30  # the collector's oldest threshold while a deadline runs
AIM = 0.95  # share of a seconds budget the search may spend: the rest is for the step in flight


def _scaled(w: Weights, **factors: float) -> Weights:
    return replace(w, terms={k: v * factors.get(k, 1.0) for k, v in w.terms.items()})


def _theirs(w: Weights, p: int) -> tuple[tuple[int, int, float], ...]:
    """The objectives only side p's enemy makes for."""
    return tuple((h, p, wt) for h, side, wt in w.objectives if side not in (-1, p))


def _guarding(w: Weights, p: int) -> Weights:
    """Side p also makes for the objectives only the enemy makes for."""
    return replace(w, objectives=w.objectives + _theirs(w, p))


def _defending(w: Weights, p: int) -> Weights:
    """Side p makes for the enemy's objectives only, and attacks less."""
    theirs = _theirs(w, p)
    return _scaled(replace(w, objectives=theirs), attack=0.5) if theirs else _guarding(w, p)


# A posture: the tuned weights of a game, re-weighed for side p. The first is the default.
POSTURES: dict[str, Callable[[Weights, int], Weights]] = {
    "tuned": lambda w, p: w,
    "press": lambda w, p: _scaled(w, objective=2.0, occupy=2.0, attack=1.5),
    "guard": _guarding,
    "defend": _defending,
    "cautious": lambda w, p: _scaled(w, attack=0.5, surrounded=3.0, objective=0.5),
}
# Postures that take the place of those that come out the same as an earlier
# one (guarding is the tuned posture where no objective is the enemy's alone).
SPARE_POSTURES: dict[str, Callable[[Weights, int], Weights]] = {
    # Units keep by the leaders who command them, so the army arrives together.
    "massed": lambda w, p: _scaled(w, command=8.0, surrounded=3.0, objective=0.5),
    # Units hardly advance: they take cover and contact at good odds where they stand.
    "hold": lambda w, p: _scaled(w, objective=0.1, occupy=0.1, surrounded=3.0),
}


class MctsBot:
    name = "mcts"

    def __init__(
        self,
        player: int,
        rng: random.Random,
        iterations: int = DEFAULT_ITERATIONS,
        seconds: float = 0.0,
    ) -> None:
        self.player = player
        self.rng = rng
        self.iterations = iterations
        self.seconds = seconds
        self.policy: Policy | None = None
        self.rollout_policy: Policy | None = None
        self.postures: dict[str, Policy] = {}
        self.planned: tuple[int, int] | None = None  # (turn, phasing side) of the posture
        self.mover: Policy | None = None
        self.deadline = 0.0  # with a seconds budget, when this decision's answer is due

    @staticmethod
    def parse_budget(budget: str) -> tuple[int, float]:
        """`"200"` → 200 rollouts; `"0.5s"` → half a second; `""` → the default."""
        try:
            if not budget:
                return DEFAULT_ITERATIONS, 0.0
            if budget.endswith("s"):
                seconds = float(budget[:-1])
                if 0 < seconds < math.inf:
                    return 0, seconds
            elif int(budget) > 0:
                return int(budget), 0.0
        except ValueError:
            pass
        raise ValueError(f"mcts budget {budget!r}: iterations (mcts:200) or seconds (mcts:0.5s)")

    def step(self, s: State) -> int:
        actions = s.legal_actions(self.player)
        if len(actions) == 1:
            return actions[0]
        # The search aims a little short of the budget (`AIM`), so that the action
        # or evaluation in flight when the deadline passes ends within it.
        self.deadline = time.monotonic() + AIM * self.seconds if self.seconds else 0.0
        if not self.seconds:
            return self._answer(s, actions)
        # A full collection in the search scans the whole game (45 ms in a
        # shipped scenario): with a deadline to keep, only the young objects (the
        # search's own garbage) are collected until the answer is given.
        young, middle, old = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_COLLECTIONS_HELD)
        try:
            return self._answer(s, actions)
        finally:
            gc.set_threshold(young, middle, old)

    def _answer(self, s: State, actions: list[int]) -> int:
        """The search's answer among the legal actions (more than one)."""
        if self.policy is None:
            self._make_policies(s.game)
        assert self.policy is not None
        for policy in self._policies():
            policy.deadline = self.deadline
        observation, view = view_of(s, self.player, self.rng)
        space = s.game.actions
        if any(space.kind_of(a) in MOVES for a in actions):
            return self._move(s, view, observation, actions)
        heuristic = self.policy.choose(view, actions, self.player, self.rng, deep=True)
        if not {space.kind_of(a) for a in actions} - {"pass"} <= SEARCHED:
            return heuristic
        return self._search(view, observation, actions, heuristic)

    def _search(
        self, view: State, observation: dict | None, actions: list[int], heuristic: int
    ) -> int:
        """The best of the heuristic's choice and the few others it ranks next,
        by rollouts (the heuristic's choice stands unless beaten by `MARGIN`)."""
        candidates = self._candidates(view, actions, heuristic)
        if len(candidates) == 1:
            return heuristic
        starts = [_playing(a) for a in candidates]
        best = self._compare(view, observation, starts, [self.rollout_policy] * len(starts), False)
        return candidates[best]

    def _move(self, s: State, view: State, observation: dict | None, actions: list[int]) -> int:
        """A step (or PASS) by the posture planned once per player turn."""
        turn = (s.vars["turn"], s.vars["phasing"])
        if self.planned != turn:
            self.planned = turn
            self.mover = self._plan(view, observation)
            self.mover.last_moved = -1
        assert self.mover is not None
        return self.mover.choose(view, actions, self.player, self.rng, deep=False)

    def _policies(self) -> list[Policy]:
        """Every policy the bot plays by: its own, the rollouts', the postures'."""
        assert self.policy is not None and self.rollout_policy is not None
        return [self.policy, self.rollout_policy, *self.postures.values()]

    def _make_policies(self, game: Game) -> None:
        self.policy = Policy(game)
        self.rollout_policy = Policy(game)
        tuned = weights_for(game)
        self.postures = {}
        seen: list[Weights] = []
        for name, posture in [*POSTURES.items(), *SPARE_POSTURES.items()]:
            weights = posture(tuned, self.player)
            if weights not in seen and len(seen) < len(POSTURES):
                seen.append(weights)
                self.postures[name] = Policy(game, weights)

    def _candidates(self, view: State, actions: list[int], heuristic: int) -> list[int]:
        """The heuristic's choice, then the others it ranks best by one ply."""
        assert self.policy is not None
        others = [a for a in actions if a != heuristic]
        if len(others) > LOOKAHEAD:
            others = self.rng.sample(others, LOOKAHEAD)
        scored = []
        for i, a in enumerate(others):
            if self.policy.out_of_time():  # no round would fit: the heuristic's stands
                return [heuristic]
            scored.append((self._one_ply(view, a), i, a))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [heuristic, *(a for value, _, a in scored[: CANDIDATES - 1] if value > -math.inf)]

    def _one_ply(self, view: State, action: int) -> float:
        """The heuristic's quick score of an action: a designation by its odds
        margin, anything else by the evaluation of the position it leads to."""
        assert self.policy is not None
        ev = self.policy.ev
        space = view.game.actions
        if space.kind_of(action) == "designate":
            return ev.combat_margin(view, self.player, action)
        if action == space.PASS and view.stack and view.stack[-1].proc == "designate_combats":
            return ev.w["attack_threshold"]
        child = view.clone()
        try:
            child.apply_action(action)
        except (ValueError, RulesError):  # legal in the game, not in this view of it
            return -math.inf
        return ev.evaluate(child, self.player)

    def _plan(self, view: State, observation: dict | None) -> Policy:
        """The movement planner for this player turn: the posture whose
        rollouts to the end of the game turn score best."""
        names = list(self.postures)
        policies = [self.postures[n] for n in names]
        best = self._compare(view, observation, [_nothing] * len(names), policies, True)
        return policies[best]

    def _compare(
        self,
        view: State,
        observation: dict | None,
        starts: list[Callable[[State], None]],
        own: list[Policy],
        to_turn_end: bool,
    ) -> int:
        """Index of the best candidate (`means`): candidate 0 stands unless
        another's mean beats it by `MARGIN`."""
        means = self.means(view, observation, starts, own, to_turn_end)
        best = max(range(len(means)), key=lambda k: (means[k], -k))
        return best if means[best] > means[0] + MARGIN else 0

    def means(
        self,
        view: State,
        observation: dict | None,
        starts: list[Callable[[State], None]],
        own: list[Policy],
        to_turn_end: bool,
    ) -> list[float]:
        """Each candidate's mean score: candidate k is `starts[k]` applied to
        a world, then a rollout with side `player` played by `own[k]`. Every
        round plays each candidate on the same re-dealt world and dice
        (-inf for a candidate no world allowed, or when no round finished
        before the deadline)."""
        assert self.policy is not None
        n = len(starts)
        hidden = hides_anything(observation)
        rounds = max(1, self.iterations // n)
        totals = [0.0] * n
        counts = [0] * n
        r = 0
        while _another_round(r, rounds, self.deadline):
            r += 1
            world = view.clone()
            if hidden:
                redeal(world, observation, self.rng)
            seed = self.rng.getrandbits(48)
            try:
                scores = [
                    self._candidate_score(world, starts[k], own[k], seed, to_turn_end)
                    for k in range(n)
                ]
            except OutOfTime:  # the round cut short by the deadline is not counted
                break
            for k, score in enumerate(scores):
                if score is not None:
                    totals[k] += score
                    counts[k] += 1
        return [totals[k] / counts[k] if counts[k] else -math.inf for k in range(n)]

    def _candidate_score(
        self,
        world: State,
        start: Callable[[State], None],
        own: Policy,
        seed: int,
        to_turn_end: bool,
    ) -> float | None:
        """One candidate's score in one world (None when the world does not allow it)."""
        child = world.clone()
        try:
            start(child)
        except (ValueError, RulesError):  # legal in the game, not in this sampled world
            return None
        self._rollout(child, own, seed, to_turn_end)
        return self.score(child)

    def score(self, s: State) -> float:
        """A rollout's score: the heuristic evaluation, but a finished game
        keeps the position's terms beside its result (`win` × returns in
        place of the standing), so that a rollout that ends the game and one
        that stops short are scored on one scale."""
        assert self.policy is not None
        ev = self.policy.ev
        if s.terminal:
            result = ev.w["win"] * s.returns()[self.player]
        else:
            result = ev.w["victory"] * ev.standing(s, self.player)
        return ev.position(s, self.player) + result

    def _rollout(self, s: State, own: Policy, seed: int, to_turn_end: bool) -> None:
        """Play on, in place: side `player` by `own`, the enemy by the tuned
        heuristic, chance sampled from seed and move number, until the game
        turn changes (after its end-of-turn victory checks) or, without
        `to_turn_end`, once `ROLLOUT_DECISIONS` decisions and `ROLLOUT_ROLLS`
        chance outcomes are played (so that the dice a decision leads to are
        in its score); `PLAN_DECISIONS` decisions at most. A yes/no question
        is answered by the heuristic's look-ahead, which plays the answer's
        sequel on; everything else by its one ply, which is cheap."""
        enemy = self.rollout_policy
        assert enemy is not None
        rng = random.Random(seed)
        own.last_moved = enemy.last_moved = -1
        turn = s.vars["turn"]
        # In the last game turn every rollout plays to the end of the game,
        # so that candidates are all scored on a finished game.
        last = turn >= s.game.last_turn
        space = s.game.actions
        yes_no = [space.option(0), space.option(1)]
        done = rolls = 0
        # A posture's rollout runs on to the end of a game turn in which the
        # enemy has moved after this side: the enemy's reply to the posture
        # (an overextended unit cut off, a counterattack) is in its score.
        replied = not to_turn_end
        extended = False
        # Without `to_turn_end` (and short of the last turn), a rollout stops
        # after a few decisions and rolls.
        short = not to_turn_end and not last
        while not s.is_terminal() and done < PLAN_DECISIONS:
            if self.deadline and time.monotonic() > self.deadline:
                raise OutOfTime
            if s.vars["turn"] != turn:
                if replied or extended or last:
                    return
                turn, extended = s.vars["turn"], True
            if s.vars["phasing"] != self.player:
                replied = True
            if short and done >= ROLLOUT_DECISIONS and rolls >= ROLLOUT_ROLLS:
                return
            if s.is_chance_node():
                action = chance.sample(s, seed)
                rolls += 1
            else:
                action = self._decide(s, own, enemy, rng, yes_no)
                done += 1
            s.apply_action(action)
            s.take_messages()

    def _decide(
        self, s: State, own: Policy, enemy: Policy, rng: random.Random, yes_no: list[int]
    ) -> int:
        """A rollout's decision: side `player` by `own`, the enemy by `enemy`; a
        yes/no question by the look-ahead, anything else by one ply."""
        p = s.current_player()
        policy = own if p == self.player else enemy
        actions = s.legal_actions()
        return policy.choose(s, actions, p, rng, deep=sorted(actions) == yes_no)


def _another_round(done: int, rounds: int, deadline: float) -> bool:
    """Whether to play another round: `rounds` of them, or (with a deadline)
    another while there is time left."""
    if not deadline:
        return done < rounds
    return time.monotonic() < deadline


def _playing(action: int) -> Callable[[State], None]:
    return lambda s: s.apply_action(action)


def _nothing(s: State) -> None:
    """A posture candidate starts from the position as it is."""
