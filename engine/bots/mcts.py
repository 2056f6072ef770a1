"""The search bot: Monte Carlo tree search over the bot's own views.

At each decision the bot rebuilds the position from its observation
(engine/bots/view.py), once per iteration when something is hidden from it
(determinisation: each iteration samples the concealed stacks and face-down
choices afresh), and searches it with `clone()`/`apply_action`: UCB1 over
its candidate actions at the root, then a rollout by the heuristic policy
for `ROLLOUT_DECISIONS` decisions with every die roll and draw sampled from
the chance node's own probabilities, and the heuristic evaluation of where
the rollout stopped, relative to the root, squashed into [-1, 1].

The budget is iterations (`mcts:200`, reproducible) or seconds
(`mcts:0.5s`, which depends on the machine's speed and so is not). Movement
steps — most decisions of a game, each a single hex — follow the heuristic
planner: the search spends its budget where the dice and the other side
decide, at close-combat designations, choices, retreats and set-up.

Movement is searched one level up instead: at the first step of each of
its player turns the bot chooses a *posture* for the heuristic planner
(`POSTURES`: as tuned, pressing on to the objectives, guarding the
objectives the enemy makes for, cautious), by UCB1 over rollouts of the
game from a view re-dealt each time: its own side plays the posture, the
enemy the tuned heuristic, for `PLAN_DECISIONS` decisions (about a game
turn), scored by the evaluation where they stop. The turn's steps then
follow the chosen posture's planner. `mcts:N` spends N iterations on each
decision and N // 2 rollouts (at least one per posture) on each posture.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import replace

from engine.bots.heuristic import Policy
from engine.bots.view import hides_anything, redeal, view_of
from engine.bots.weights import Weights, weights_for
from engine.game import Game
from engine.nodes import RulesError
from engine.state import State

DEFAULT_ITERATIONS = 100
ROLLOUT_DECISIONS = 6
CANDIDATES = 6  # actions searched at the root: the heuristic's choice and a sample
EXPLORATION = 1.4
VALUE_SCALE = 5.0  # evaluation difference that counts as a clear gain (tanh scale)
PLAN_DECISIONS = 120  # decisions a posture rollout plays (about a game turn)


def _scaled(w: Weights, **factors: float) -> Weights:
    return replace(w, terms={k: v * factors.get(k, 1.0) for k, v in w.terms.items()})


def _guarding(w: Weights, p: int) -> Weights:
    """Side p also makes for the objectives only the enemy makes for."""
    theirs = tuple((h, p, wt) for h, side, wt in w.objectives if side not in (-1, p))
    return replace(w, objectives=w.objectives + theirs)


# A posture: the tuned weights of a game, re-weighed for side p.
POSTURES: dict[str, Callable[[Weights, int], Weights]] = {
    "tuned": lambda w, p: w,
    "press": lambda w, p: _scaled(w, objective=2.0, occupy=2.0, attack=1.5),
    "guard": _guarding,
    "cautious": lambda w, p: _scaled(w, attack=0.5, surrounded=3.0, objective=0.5),
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

    @staticmethod
    def parse_budget(budget: str) -> tuple[int, float]:
        """`"200"` → 200 iterations; `"0.5s"` → half a second; `""` → the default."""
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
        game = s.game
        if self.policy is None:
            self._make_policies(game)
        observation, view = view_of(s, self.player, self.rng)
        space = game.actions
        if any(space.kind_of(a) == "step" for a in actions):
            turn = (s.vars["turn"], s.vars["phasing"])
            if self.planned != turn:
                self.planned = turn
                self.mover = self.postures[self._plan(view, observation)]
                self.mover.last_moved = -1
            assert self.mover is not None
            return self.mover.choose(view, actions, self.player, self.rng, deep=False)
        heuristic = self.policy.choose(view, actions, self.player, self.rng, deep=False)
        others = [a for a in actions if a != heuristic]
        candidates = [heuristic, *self.rng.sample(others, min(CANDIDATES - 1, len(others)))]
        hidden = hides_anything(observation)
        root_value = self.policy.ev.evaluate(view, self.player)
        visits = [0] * len(candidates)
        totals = [0.0] * len(candidates)
        deadline = time.monotonic() + self.seconds if self.seconds else 0.0
        i = 0
        while (i < self.iterations) if not deadline else (time.monotonic() < deadline):
            i += 1
            k = self._select(visits, totals, i)
            world = view.clone()
            if hidden:
                redeal(world, observation, self.rng)
            try:
                world.apply_action(candidates[k])
            except (ValueError, RulesError):  # legal in the game, not in this sampled world
                visits[k] += 1
                totals[k] -= 1.0
                continue
            self._rollout(world)
            gain = self.policy.ev.evaluate(world, self.player) - root_value
            visits[k] += 1
            totals[k] += math.tanh(gain / VALUE_SCALE)
        best = max(
            range(len(candidates)),
            key=lambda j: (visits[j], totals[j] / visits[j] if visits[j] else -1.0, -j),
        )
        return candidates[best]

    def _make_policies(self, game: Game) -> None:
        self.policy = Policy(game)
        self.rollout_policy = Policy(game)
        tuned = weights_for(game)
        self.postures = {
            name: Policy(game, posture(tuned, self.player)) for name, posture in POSTURES.items()
        }

    def _plan(self, view: State, observation: dict) -> str:
        """The posture whose rollouts score best (UCB1 over the postures)."""
        assert self.policy is not None
        names = list(self.postures)
        rollouts = max(len(names), self.iterations // 2) if not self.seconds else len(names)
        hidden = hides_anything(observation)
        root_value = self.policy.ev.evaluate(view, self.player)
        visits = [0] * len(names)
        totals = [0.0] * len(names)
        for i in range(1, rollouts + 1):
            k = self._select(visits, totals, i)
            world = view.clone()
            if hidden:
                redeal(world, observation, self.rng)
            self._play_on(world, self.postures[names[k]], PLAN_DECISIONS)
            gain = self.policy.ev.evaluate(world, self.player) - root_value
            visits[k] += 1
            totals[k] += math.tanh(gain / VALUE_SCALE)
        best = max(
            range(len(names)),
            key=lambda j: (totals[j] / visits[j] if visits[j] else -1.0, -j),
        )
        return names[best]

    def _play_on(self, s: State, own: Policy, decisions: int) -> None:
        """Play on, in place: side `player` by `own`, the enemy by the tuned
        heuristic, chance sampled, for `decisions` decisions."""
        assert self.rollout_policy is not None
        own.last_moved = -1
        done = 0
        while not s.is_terminal() and done < decisions:
            if s.is_chance_node():
                action = self._sample(s)
            else:
                p = s.current_player()
                policy = own if p == self.player else self.rollout_policy
                action = policy.choose(s, s.legal_actions(), p, self.rng, deep=False)
                done += 1
            s.apply_action(action)
            s.take_messages()

    def _sample(self, s: State) -> int:
        """A chance node's outcome, drawn with its own probabilities."""
        outcomes = s.chance_outcomes()
        r, acc = self.rng.random(), 0.0
        for outcome, p in outcomes:
            acc += p
            if r < acc:
                return outcome
        return outcomes[-1][0]

    @staticmethod
    def _select(visits: list[int], totals: list[float], n: int) -> int:
        for k, v in enumerate(visits):
            if v == 0:
                return k
        log_n = math.log(n)
        return max(
            range(len(visits)),
            key=lambda k: totals[k] / visits[k] + EXPLORATION * math.sqrt(log_n / visits[k]),
        )

    def _rollout(self, s: State) -> None:
        assert self.rollout_policy is not None
        decisions = 0
        while not s.is_terminal() and decisions < ROLLOUT_DECISIONS:
            if s.is_chance_node():
                action = self._sample(s)
            else:
                actions = s.legal_actions()
                action = self.rollout_policy.choose(
                    s, actions, s.current_player(), self.rng, deep=False
                )
                decisions += 1
            s.apply_action(action)
            s.take_messages()
