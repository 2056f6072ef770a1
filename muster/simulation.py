"""`muster simulate`: many seeded games of a scenario and their balance report.

The games run on this machine's processes (`--jobs`) or on a Dask cluster
(`--cluster ADDRESS`); engine/simulate.py plays them, engine/balance.py
counts. The ruleset is compiled once, in this process, to the generated
package's source text; the workers get that text and load it (`game_from`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from itertools import islice
from pathlib import Path
from typing import Any

from tqdm import tqdm

from compiler.backends.engine_codegen import generate
from compiler.build import load_generated, with_local_charts
from compiler.check import compile_ruleset
from engine.balance import summarise, table, write_json
from engine.bots import BotSpecError, parse_bots
from engine.errors import BadInput
from engine.game import Game
from engine.simulate import (
    GameFactory,
    GameTask,
    game_of,
    play_task,
    run_local,
    task_at,
    tracked_values,
)
from muster.balance_plots import write_plots
from muster.journal import JournalError, RunShape, engine_hash, journal_writer, read_journal
from muster.rule_switches import rule_switches


def game_from(package: tuple[tuple[str, str], ...], name: str, params_json: str) -> Game:
    """The game a worker plays: the generated package (its files' text, by
    name), loaded with these parameters, as `load_game` does once compiled."""
    return with_local_charts(load_generated(dict(package), name), json.loads(params_json))


def game_factory(ruleset: str, params: dict[str, Any]) -> GameFactory:
    """How the workers make the game: the ruleset compiled here, once."""
    rules, _sources = compile_ruleset(ruleset)
    package = tuple(sorted(generate(rules).items()))
    return GameFactory(game_from, (package, rules.name, json.dumps(params, sort_keys=True)))


def run_cluster(
    factory: GameFactory, todo: Iterable[GameTask], address: Any
) -> Iterator[dict[str, Any]]:
    """Play the tasks on a Dask distributed cluster (its scheduler's address, or
    a `LocalCluster`); yields as games finish, a few games per worker queued at a
    time. Dask is the optional `cluster` extra."""
    try:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed
    except ImportError as e:
        raise RuntimeError("--cluster needs Dask: pip install -e '.[cluster]'") from e
    waiting = iter(todo)
    with Client(address) as client:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        first = [
            client.submit(play_task, factory, t, pure=False) for t in islice(waiting, 4 * workers)
        ]
        running = dask_completed(first)
        for future in running:
            yield future.result()
            for task in islice(waiting, 1):
                running.add(client.submit(play_task, factory, task, pure=False))


def simulate(
    ruleset: str,
    params: dict[str, Any],
    games: int,
    bots: str,
    seed: int,
    jobs: int = 1,
    swap: bool = False,
    cluster: Any = None,
    progress: bool = False,
    journal: Path | None = None,
) -> dict[str, Any]:
    """Play the games and return the report (engine/balance.py's `summarise`).
    With a `journal`, games it already holds for this run are not played
    again, and each new game is added to it as it finishes (muster/journal.py)."""
    factory = game_factory(ruleset, params)
    game = game_of(factory)
    sides = [side.name for side in game.rules.sides]
    specs = parse_bots(bots, len(sides))
    run = {
        "rules_hash": game.rules_hash,
        "engine_hash": engine_hash(),
        "params": params,
        "bots": list(specs),
        "seed": seed,
        "swap": swap,
    }
    shape = RunShape(
        seed,
        (specs[0], specs[1]),
        swap,
        tuple(sides),
        tracked_values(game),
        tuple(game.rules.victory_levels),
    )
    journalled = read_journal(journal, run, shape) if journal else {}
    kept = {i: record for i, record in journalled.items() if i < games}
    todo = (task_at(seed, i, (specs[0], specs[1]), swap) for i in range(games) if i not in kept)
    results = run_cluster(factory, todo, cluster) if cluster else run_local(factory, todo, jobs)
    done = list(kept.values())
    if kept and progress:
        print(f"{journal}: {len(kept)} of the {games} games already played", file=sys.stderr)
    with ExitStack() as stack:
        keep = stack.enter_context(journal_writer(journal, run, journalled)) if journal else None
        bar = stack.enter_context(
            tqdm(total=games, initial=len(done), unit="game", disable=not progress, file=sys.stderr)
        )
        for record in results:
            if keep:
                keep(record)
            done.append(record)
            bar.update(1)
    return summarise(done, _meta(game, specs, seed, swap), sides, list(game.rules.victory_levels))


def _meta(game: Game, specs: list[str], seed: int, swap: bool) -> dict[str, Any]:
    """What a report says of its run."""
    return {
        "battle": game.rules.name,
        "scenario": game.scenario.name if game.scenario else "",
        "bots_given": ",".join(specs),
        "seed": seed,
        "swap": swap,
        "rules_hash": game.rules_hash,
    }


def cmd_simulate(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {}
    if args.scenario:
        params["scenario"] = args.scenario
    if args.rule:
        params["rules"] = rule_switches(args.rule)
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        # Refused before the games are played, not after.
        raise BadInput(f"{args.out}: the report's folder is an existing file")
    resumed = bool(args.journal and args.journal.exists())
    started = time.monotonic()
    try:
        report = simulate(
            args.ruleset,
            params,
            args.games,
            args.bots,
            args.seed,
            jobs=args.jobs,
            swap=args.swap,
            cluster=args.cluster,
            progress=not args.quiet,
            journal=args.journal,
        )
    except BotSpecError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    except JournalError as e:  # the journal is input: refused as bad input
        print(f"muster: {e}", file=sys.stderr)
        return 1
    elapsed = time.monotonic() - started
    print(table(report), end="")
    rate = "some may be the journal's" if resumed else f"{report['games'] / elapsed:.2f} games/s"
    print(f"\n{report['games']} games in {elapsed:.1f} s ({rate})")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"{report['battle']}_{report['scenario'] or 'game'}"
        write_json(report, out / f"{stem}.json")
        written = write_plots(report, out, stem)
        print(
            f"report written to {out / (stem + '.json')} and {', '.join(str(p) for p in written)}"
        )
    return 0
