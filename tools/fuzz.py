"""The long fuzzer: random games of every shipped scenario with every check on.

    .venv/bin/python -m tools.fuzz --minutes 30

Plays random games round the shipped battles and their scenarios (from the
committed engines in `generated/`) and, as it goes, checks:

- invariants: `engine.invariants.violations` after every action;
- clone: a clone has the same state hash and, given the same action, stays
  equal to the original;
- save/load: every few actions, `loads(dumps(s)) == s`;
- illegal actions: an action outside `legal_actions()`, a bool, a float or
  a huge int raises `IllegalActionError` and leaves the state as it was;
- edits: a random edit of the current position's save (`tools/mutations.py`)
  is refused with `SaveError` or loads into a state that plays 30 random
  actions; a random edit of a finished game's log is refused with
  `ReplayError` or certifies into a state that plays on.

Prints the actions checked, games, edits, violations and exceptions (each
distinct one once, with where it happened). The figures of a 30-minute run
are in docs/reliability.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from engine import chance
from engine.game import Game
from engine.invariants import violations
from engine.play import ReplayError, certify, chained, parse_log, play_game
from engine.save import SaveError, dumps, loads
from engine.state import IllegalActionError, State
from tools.mutations import LOG_SEEDS, SAVE_SEEDS, mutate_json, mutate_log, mutate_text

BATTLES = ("training", "newtown", "monmouth")
PLAY_ON = 30


class FuzzFailure(AssertionError):
    """A check failed: the engine let bad input through or broke an invariant."""


def _trace(e: BaseException) -> str:
    cause = e.__cause__ or e
    return "".join(traceback.format_exception(cause, limit=-3))[-600:]


def random_step(s: State, rng: random.Random, seed: int) -> None:
    if s.is_chance_node():
        s.apply_action(chance.sample(s, seed))
    else:
        s.apply_action(rng.choice(s.legal_actions()))


def plays_on(s: State, rng: random.Random, actions: int = PLAY_ON) -> None:
    """Play up to `actions` random actions, checking invariants after each."""
    for _ in range(actions):
        if s.is_terminal():
            return
        random_step(s, rng, rng.randrange(1 << 30))
        found = violations(s)
        if found:
            raise FuzzFailure(f"after a loaded position played on: {found[0]}")


def check_save_edit(
    game: Game, data: dict[str, Any], rng: random.Random, keep_check: bool = True
) -> str:
    """One random edit of a save: "refused" (SaveError) or "played"; a
    `FuzzFailure` (or any other exception) is a bug. Without `keep_check`
    the save loses its check first, as a hand-written position: only the
    structural checks stand between the edit and play."""
    return check_save_text(game, edited_save(rng, data, keep_check), rng)


def edited_save(rng: random.Random, data: dict[str, Any], keep_check: bool = True) -> str | bytes:
    """A save's text after one random edit (of its JSON, or of its bytes)."""
    if not keep_check:
        data = {k: v for k, v in data.items() if k != "check"}
    if rng.random() < 0.8:
        return dumps_json(mutate_json(rng, data))
    return mutate_text(rng, dumps_json(data).encode("utf-8", "surrogatepass"))


def check_save_text(game: Game, text: str | bytes, rng: random.Random) -> str:
    """A save's text is "refused" (SaveError) or loads into a sound state
    that plays 30 random actions ("played")."""
    try:
        s = loads(game, text)
    except SaveError:
        return "refused"
    found = violations(s)
    if found:
        raise FuzzFailure(f"a save loaded into an impossible position: {found[0]}")
    resaves(s)
    plays_on(s, rng)
    resaves(s)
    return "played"


def resaves(s: State) -> None:
    """What a loaded position saves loads again, into the same position."""
    try:
        again = loads(s.game, dumps(s))
    except SaveError as e:
        raise FuzzFailure(f"a loaded position saved a save that is refused: {e}") from e
    if again != s:
        raise FuzzFailure("a loaded position saved a save that loads into another")


def check_seeds(game: Game, saves: list[dict[str, Any]], log: list[dict[str, Any]]) -> str:
    """Try every regression seed (`tools/mutations.py`) on each save and on a
    log of `game`: "held", or a `FuzzFailure` naming the seed and the
    outcome it must have."""
    rng = random.Random(0)
    tried = [
        (edit, want, check_save_text(game, edit(save), rng))
        for save in saves
        for edit, want in SAVE_SEEDS
    ]
    tried += [(edit, want, check_log_text(game, edit(log), rng)) for edit, want in LOG_SEEDS]
    for edit, want, got in tried:
        if got != want:
            raise FuzzFailure(f"regression seed {edit.__name__}: {got}, not {want}")
    return "held"


def dumps_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def check_log_edit(game: Game, lines: list[dict[str, Any]], rng: random.Random) -> str:
    """One random edit of a log: "refused" (ReplayError) or "played"."""
    return check_log_text(game, mutate_log(rng, lines), rng, partial=rng.random() < 0.5)


def check_log_text(game: Game, data: bytes, rng: random.Random, partial: bool = False) -> str:
    """A log's bytes are "refused" (ReplayError) or certify into a state that
    plays 30 random actions ("played")."""
    try:
        done = certify(game, parse_log("edit.jsonl", data, partial=partial))
    except ReplayError:
        return "refused"
    plays_on(done.state, rng)
    return "played"


def logged_game(game: Game, seed: int) -> list[dict[str, Any]]:
    record = play_game(game, ["random"] * game.num_players(), seed)
    return chained([record.header, *record.moves, record.final])


@dataclass
class Tally:
    actions: int = 0
    games: int = 0
    saves_round_tripped: int = 0
    illegal_refused: int = 0
    save_edits: Counter = field(default_factory=Counter)
    hand_edits: Counter = field(default_factory=Counter)
    log_edits: Counter = field(default_factory=Counter)
    seeds: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    first_seen: dict[str, str] = field(default_factory=dict)
    by_battle: Counter = field(default_factory=Counter)

    def fail(self, what: str, where: str) -> None:
        self.failures[what] += 1
        self.first_seen.setdefault(what, where)


def check_illegal(s: State, rng: random.Random, tally: Tally) -> None:
    legal = set(s.legal_actions())
    before = s.state_hash()
    size = s.game.num_distinct_actions()
    candidates: list[Any] = [True, False, 1.0, -1, size, 10**40, "0", None]
    outside = [a for a in (rng.randrange(size) for _ in range(4)) if a not in legal]
    for bad in [*outside, rng.choice(candidates)]:
        try:
            s.apply_action(bad)
        except IllegalActionError:
            tally.illegal_refused += 1
        else:
            raise FuzzFailure(f"apply_action accepted {bad!r}, not a legal action")
        if s.state_hash() != before:
            raise FuzzFailure(f"a refused action {bad!r} changed the state")


def check_clone(s: State, rng: random.Random) -> None:
    other = s.clone()
    if other.state_hash() != s.state_hash():
        raise FuzzFailure("a clone hashes differently from its original")


def fuzz_game(game: Game, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    s = game.new_initial_state()
    name = game.rules.name + (f"/{game.scenario.name}" if game.scenario else "")
    while not s.is_terminal():
        where = f"{name} seed {seed} move {s.move_number}"
        try:
            found = violations(s)
            if found:
                raise FuzzFailure(found[0])
            if rng.random() < 0.1:
                check_clone(s, rng)
            if rng.random() < 0.05:
                check_illegal(s, rng, tally)
            if rng.random() < 0.05:
                if loads(game, dumps(s)) != s:
                    raise FuzzFailure("a saved and loaded state differs from the original")
                tally.saves_round_tripped += 1
            if rng.random() < 0.02:
                saved = json.loads(dumps(s))
                for keep, outcomes in ((True, tally.save_edits), (False, tally.hand_edits)):
                    edit(tally, partial(check_save_edit, game, saved, rng, keep), outcomes, where)
            random_step(s, rng, seed)
            tally.actions += 1
            tally.by_battle[name] += 1
        except Exception as e:  # every exception is a finding, counted and shown once
            tally.fail(
                f"{type(e).__name__}: {e}"[:200], where + "\n" + traceback.format_exc(limit=3)
            )
            return
    tally.games += 1
    if rng.random() < 0.3:
        lines = logged_game(game, seed)
        for _ in range(5):
            edit(tally, lambda: check_log_edit(game, lines, rng), tally.log_edits, name)


def edit(tally: Tally, check: Any, outcomes: Counter, where: str) -> None:
    """Run one edit check, counting its outcome or its failure."""
    try:
        outcomes[check()] += 1
    except Exception as e:
        outcomes["failed"] += 1
        tally.fail(f"edit: {type(e).__name__}: {e}"[:200], f"{where}\n{_trace(e)}")


def edits_only(games: list[Game], n: int, seed: int, tally: Tally) -> None:
    """`n` edits of each kind, of saves from every point of a game per
    scenario and of that game's log."""
    rng = random.Random(seed)
    material = []
    for game in games:
        lines = logged_game(game, seed)
        s = game.new_initial_state()
        saves = []
        play = random.Random(seed)
        while not s.is_terminal():
            saves.append(json.loads(dumps(s)))
            random_step(s, play, seed)
        material.append((game, saves, lines))
    for game, saves, lines in material:
        edit(tally, partial(check_seeds, game, saves, lines), tally.seeds, game.rules.name)
    for i in range(n):
        game, saves, lines = material[i % len(material)]
        saved = rng.choice(saves)
        where = f"{game.rules.name} edit {i}"
        edit(tally, partial(check_save_edit, game, saved, rng), tally.save_edits, where)
        edit(tally, partial(check_save_edit, game, saved, rng, False), tally.hand_edits, where)
        edit(tally, partial(check_log_edit, game, lines, rng), tally.log_edits, where)


def games_to_play(battles: list[str]) -> list[Game]:
    games = []
    for battle in battles:
        pkg = importlib.import_module(f"generated.{battle}")
        first = pkg.load_game()
        names = [sc.name for sc in first.rules.scenarios]
        games += [pkg.load_game({"scenario": n}) for n in names] if names else [first]
    return games


def report(tally: Tally, seconds: float) -> str:
    out = [
        f"fuzzed for {seconds / 60:.1f} minutes",
        f"  actions checked      {tally.actions} ({tally.actions / max(seconds, 1e-9):.0f}/s)",
        f"  games finished       {tally.games}",
        f"  saves round-tripped  {tally.saves_round_tripped}",
        f"  illegal refused      {tally.illegal_refused}",
        f"  save edits           {sum(tally.save_edits.values())} "
        f"({tally.save_edits['refused']} refused, {tally.save_edits['played']} loaded and played, "
        f"{tally.save_edits['failed']} failed)",
        f"  ...without check     {sum(tally.hand_edits.values())} "
        f"({tally.hand_edits['refused']} refused, {tally.hand_edits['played']} loaded and played, "
        f"{tally.hand_edits['failed']} failed)",
        f"  log edits            {sum(tally.log_edits.values())} "
        f"({tally.log_edits['refused']} refused, {tally.log_edits['played']} certified and played, "
        f"{tally.log_edits['failed']} failed)",
        f"  regression seeds     held for {tally.seeds['held']} games "
        f"({tally.seeds['failed']} failed)",
        f"  violations and exceptions {sum(tally.failures.values())}",
    ]
    out += [
        f"    {n}× {what}\n      first: {tally.first_seen[what]}"
        for what, n in tally.failures.most_common()
    ]
    out.append(
        "  actions by game: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.by_battle.items()))
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tools.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=1.0)
    p.add_argument(
        "--actions",
        type=int,
        default=0,
        help="stop after the game in which this many actions have been checked, "
        "however long it takes (instead of --minutes)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--battles", default=",".join(BATTLES))
    p.add_argument(
        "--edits",
        type=int,
        default=0,
        help="instead of playing: this many edits each of saves (with and without their "
        "check) and logs, of positions and games of the battles",
    )
    args = p.parse_args(argv)
    games = games_to_play(args.battles.split(","))
    tally = Tally()
    start = time.monotonic()
    if args.edits:
        edits_only(games, args.edits, args.seed, tally)
        print(report(tally, time.monotonic() - start))
        return 1 if tally.failures else 0
    for game in games:  # the regression seeds first, on the start of a game and its log
        lines = logged_game(game, args.seed)
        saves = [json.loads(dumps(game.new_initial_state()))]
        edit(tally, partial(check_seeds, game, saves, lines), tally.seeds, game.rules.name)
    deadline = start + args.minutes * 60
    seed = args.seed
    while tally.actions < args.actions if args.actions else time.monotonic() < deadline:
        fuzz_game(games[seed % len(games)], seed, tally)
        seed += 1
    print(report(tally, time.monotonic() - start))
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
