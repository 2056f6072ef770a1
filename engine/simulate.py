"""Many seeded games of one scenario, on this machine's cores or a Dask cluster.

Game i of a run with seed K plays with seed `game_seed(K, i)` — derived from
K and i only, never from which worker ran it or when — and with `--swap`
every odd game repeats the even one's seed with the bots' sides swapped. So
`--jobs 1`, `--jobs 4` and a cluster play the very same games, and since
results are gathered by index the report is byte-identical whatever ran it.

Workers get a `GameFactory`: a picklable function and arguments that make
the `Game` (muster/simulation.py's: the generated package's source, compiled
once by the parent, loaded with the params), called once per worker process
— and not even that where the worker is forked from a parent that made the
game already (`game_of`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from itertools import islice
from typing import Any

from engine import chance
from engine.bots import make_bot
from engine.game import Game
from engine.state import State

# Games waiting in the queue per process: enough to keep every process busy.
QUEUED = 2


@dataclass(frozen=True, slots=True)
class GameFactory:
    """How a worker makes the game: `make(*args)` (a module-level function)."""

    make: Callable[..., Game]
    args: tuple[Any, ...]

    def __call__(self) -> Game:
        return self.make(*self.args)


@dataclass(frozen=True, slots=True)
class GameTask:
    index: int
    seed: int
    bots: tuple[str, ...]  # one spec per side, in side order
    swapped: bool


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: from the run's seed and the index only."""
    digest = hashlib.sha256(f"muster.simulate:{run_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def task_at(run_seed: int, index: int, bots: tuple[str, str], swap: bool) -> GameTask:
    """Game `index` of a run; with `swap`, pairs of games on one seed, sides swapped."""
    if swap:
        seed, swapped = game_seed(run_seed, index // 2), index % 2 == 1
    else:
        seed, swapped = game_seed(run_seed, index), False
    return GameTask(index, seed, (bots[1], bots[0]) if swapped else bots, swapped)


def tasks(run_seed: int, games: int, bots: tuple[str, str], swap: bool) -> list[GameTask]:
    """The games of a run, in order."""
    return [task_at(run_seed, i, bots, swap) for i in range(games)]


_GAMES: dict[GameFactory, Game] = {}


def game_of(factory: GameFactory) -> Game:
    """The factory's game, made once per process."""
    if factory not in _GAMES:
        _GAMES[factory] = factory()
    return _GAMES[factory]


def play_task(factory: GameFactory, task: GameTask) -> dict[str, Any]:
    """Play one game; its summary as plain data (what a report needs)."""
    game = game_of(factory)
    rules = game.rules
    s = game.new_initial_state()
    players = [make_bot(spec, p, task.seed) for p, spec in enumerate(task.bots)]
    tracked = tracked_values(game)
    by_turn = [_snapshot(s, tracked)]
    turn = s.vars["turn"]
    last_message = ""
    limit = game.max_game_length()
    while not s.is_terminal():
        if s.move_number >= limit:
            raise RuntimeError(f"game {task.index} longer than max_game_length ({limit})")
        if s.is_chance_node():
            action = chance.sample(s, task.seed)
        else:
            action = players[s.current_player()].step(s)
        s.apply_action(action)
        messages = s.take_messages()
        if messages:
            last_message = messages[-1]
        if s.vars["turn"] != turn:
            turn = s.vars["turn"]
            by_turn.append(_snapshot(s, tracked))
    by_turn.append(_snapshot(s, tracked))
    return {
        "index": task.index,
        "seed": task.seed,
        "bots": {rules.sides[p].name: spec for p, spec in enumerate(task.bots)},
        "swapped": task.swapped,
        "winner": rules.sides[s.winner].name if s.winner >= 0 else None,
        "level": s.level or None,
        "decided_by": _deciding_rule(last_message),
        "moves": s.move_number,
        "turns": s.vars["turn"] - game.first_turn + 1,
        "final": _snapshot(s, tracked),
        "by_turn": by_turn,
    }


def _deciding_rule(last_message: str) -> str:
    """The rule that ended the game, from the account's last line ("RULE: what happened")."""
    return last_message.rsplit(": ", 1)[0] if ": " in last_message else last_message


def tracked_values(game: Game) -> tuple[str, ...]:
    """The per-side values a report follows: VP and the announced variables
    (those the play account reports every change of, such as Army Morale)."""
    announced = [v.name for v in game.rules.variables if v.scope == "side" and v.announce]
    return ("vp", *announced)


def _snapshot(s: State, tracked: tuple[str, ...]) -> dict[str, dict[str, float]]:
    sides = s.game.rules.sides
    return {
        var: {side.name: float(s.vars[var][i]) for i, side in enumerate(sides)} for var in tracked
    }


def run_local(
    factory: GameFactory, todo: Iterable[GameTask], jobs: int
) -> Iterator[dict[str, Any]]:
    """Play the tasks on `jobs` processes (1: in this one); yields as games finish.
    Only a few games per process wait in the queue at any time, so a run of a
    billion games starts as fast and as small as a run of ten."""
    if jobs <= 1:
        for task in todo:
            yield play_task(factory, task)
        return
    waiting = iter(todo)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        running = {pool.submit(play_task, factory, t) for t in islice(waiting, QUEUED * jobs)}
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                running |= {pool.submit(play_task, factory, t) for t in islice(waiting, 1)}
