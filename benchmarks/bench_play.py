"""Speed of play: random games, measured here and against an older commit.

For each scenario it plays seeded random games to the end and prints games
per second, actions per second, the mean length of a game and the cost per
action of the operations search bots lean on (`legal_actions`, `clone`,
`apply_action`). Figures, not assertions.

With `--against REV` (default: the commit before the engine redesign) the
same seeds are also played by that commit's engine: the script checks it out
in a temporary `git worktree`, runs itself there as a worker (that tree's
`engine/` and committed `generated/` on the path, nothing of this tree's),
and prints the ratios of games and of actions per second and whether every
seed played the same game. The two trees play in turns, `--rounds` times
(2), and each keeps its fastest round: the load of a shared machine comes
and goes. "The same game" is compared by a fingerprint of
the actions played and of the final position (units, variables, winner)
without the rules hash, which differs between any two builds of the
generated code.

When the two trees' rule files differ (rule fixes landed since REV), their
games may differ too, legitimately: the script says so, and the speed-up to
read is then the one in actions per second, which a longer or shorter game
does not move, beside the two mean game lengths. A game whose course the
fixes did not touch still plays the same actions to the same winner, while
its final position holds what the new rule files added (variables): the
script counts those apart ("same actions and winner"). That the engine's own shortcuts
change no game is shown in this tree: `--reference` (on by default) plays
the same seeds again with nothing remembered between decisions
(`MUSTER_REMEMBER=0`, engine/incremental.py) and compares the fingerprints.

    python benchmarks/bench_play.py                      # Lee's Advance and the campaign
    python benchmarks/bench_play.py --games 3 --all      # every shipped scenario
    python benchmarks/bench_play.py --against none       # this tree only

The worker uses only what every version of the engine offers
(`generated.NAME.load_game`, `engine.chance`, `engine.save.to_json`).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "3f287ed"
DEFAULT_SCENARIOS = ("monmouth/lees_advance", "monmouth/campaign")


def fingerprint(actions: list[int], final: dict) -> str:
    """What makes two games the same: the actions and where everything ended up."""
    position = {k: v for k, v in final.items() if k not in ("rules_hash", "stack")}
    text = json.dumps([actions, position], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def course(actions: list[int], final: dict) -> str:
    """What two engines agree on when only the rule files' new state differs:
    the actions played and who won, at what level."""
    text = json.dumps([actions, final.get("winner"), final.get("level")])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play(game, seed: int) -> dict:
    """One random game: its length, its actions and final save (to fingerprint once
    the clock is stopped) and seconds in each operation."""
    from engine import chance
    from engine.save import to_json

    s = game.new_initial_state()
    rng = random.Random(seed)
    actions: list[int] = []
    t_legal = t_clone = t_apply = 0.0
    while not s.is_terminal():
        if s.is_chance_node():
            action = chance.sample(s, seed)
        else:
            t = time.perf_counter()
            legal = s.legal_actions()
            t_legal += time.perf_counter() - t
            action = rng.choice(legal)
        t = time.perf_counter()
        s.clone()
        t_clone += time.perf_counter() - t
        t = time.perf_counter()
        s.apply_action(action)
        t_apply += time.perf_counter() - t
        actions.append(action)
    return {
        "moves": s.move_number,
        "legal": t_legal,
        "clone": t_clone,
        "apply": t_apply,
        "actions": actions,
        "final": to_json(s),  # (the save is the engine's work, timed with the game)
    }


def worker(scenarios: list[str], games: int) -> None:
    """Play the scenarios in this process's tree; one JSON line per scenario."""
    for item in scenarios:
        battle, _, scenario = item.partition("/")
        pkg = importlib.import_module(f"generated.{battle}")
        game = pkg.load_game({"scenario": scenario} if scenario else {})
        # The whole by CPU time (the machine may be shared), each operation by the
        # wall clock: reading the CPU clock costs microseconds, the wall clock not.
        # The fingerprints (JSON and SHA-256 of each game, some 0.7 ms: a sixtieth
        # of a game of Lee's Advance now) are the benchmark's check, not play, and
        # are taken once the clock is stopped.
        start = time.process_time()
        results = [play(game, seed) for seed in range(games)]
        total = time.process_time() - start
        for r in results:
            r["hash"] = fingerprint(r["actions"], r["final"])
            r["course"] = course(r["actions"], r["final"])
        record = {
            "scenario": item,
            "engine": str(Path(importlib.import_module("engine").__file__).parent.parent),
            "games": games,
            "seconds": total,
            "moves": sum(r["moves"] for r in results),
            "legal": sum(r["legal"] for r in results),
            "clone": sum(r["clone"] for r in results),
            "apply": sum(r["apply"] for r in results),
            "hashes": [r["hash"] for r in results],
            "courses": [r["course"] for r in results],
        }
        print(json.dumps(record), flush=True)


def run_worker(
    tree: Path, scenarios: list[str], games: int, extra_env: dict[str, str] | None = None
) -> list[dict]:
    """Run this script as a worker with `tree`'s packages (and only those) importable."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", **(extra_env or {})}
    args = [sys.executable, str(Path(__file__).resolve()), "--worker", "--games", str(games)]
    out = subprocess.run(
        [*args, *scenarios], cwd=tree, env=env, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        sys.exit(f"the worker in {tree} failed:\n{out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def report(label: str, r: dict) -> None:
    moves = max(r["moves"], 1)
    print(
        f"  {label:>9}: {r['games'] / r['seconds']:8.3f} games/s   "
        f"{r['moves'] / r['seconds']:8.0f} actions/s   "
        f"{r['moves'] / r['games']:6.0f} actions a game   per action: "
        f"legal_actions {1e6 * r['legal'] / moves:7.1f} µs   "
        f"clone {1e6 * r['clone'] / moves:5.1f} µs   apply {1e6 * r['apply'] / moves:7.1f} µs"
    )


def fastest(best: list[dict], run: list[dict]) -> list[dict]:
    """Per scenario, the faster of the best run so far and a new run of the same games."""
    if not best:
        return run
    return [a if a["seconds"] <= b["seconds"] else b for a, b in zip(best, run, strict=True)]


def same_rules(rev: str) -> bool:
    """Whether this tree's rule files are those of commit `rev` (committed or not)."""
    out = subprocess.run(
        ["git", "-C", str(ROOT), "diff", "--quiet", rev, "--", "rulesets"], check=False
    )
    return out.returncode == 0


def every_scenario() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from compiler.build import shipped_battles

    found = []
    for battle in shipped_battles():
        pkg = importlib.import_module(f"generated.{battle}")
        found += [f"{battle}/{sc.name}" for sc in pkg.RULES.scenarios] or [battle]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", help="BATTLE/SCENARIO (default: %(default)s)")
    parser.add_argument("--games", type=int, default=3, help="seeds per scenario (0, 1, …)")
    parser.add_argument("--all", action="store_true", help="every shipped scenario")
    parser.add_argument("--against", default=BASELINE, help="a commit to compare with, or none")
    parser.add_argument(
        "--no-reference",
        dest="reference",
        action="store_false",
        help="skip replaying this tree's seeds with nothing remembered between decisions",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="play each tree this many times, in turns, and keep each one's fastest round "
        "(the load of a shared machine comes and goes)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    scenarios = opts.scenarios or (every_scenario() if opts.all else list(DEFAULT_SCENARIOS))
    if opts.worker:
        worker(scenarios, opts.games)
        return
    reference = (
        run_worker(ROOT, scenarios, opts.games, {"MUSTER_REMEMBER": "0"}) if opts.reference else []
    )
    here: list[dict] = []
    there: list[dict] = []
    if opts.against != "none":
        with tempfile.TemporaryDirectory(prefix="muster-baseline-") as tmp:
            tree = Path(tmp) / "tree"
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "worktree",
                    "add",
                    "--detach",
                    "-q",
                    str(tree),
                    opts.against,
                ],
                check=True,
            )
            try:
                for _ in range(opts.rounds):
                    here = fastest(here, run_worker(ROOT, scenarios, opts.games))
                    there = fastest(there, run_worker(tree, scenarios, opts.games))
            finally:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True
                )
    else:
        for _ in range(opts.rounds):
            here = fastest(here, run_worker(ROOT, scenarios, opts.games))
    if there and not same_rules(opts.against):
        print(
            f"The rule files changed since {opts.against} (`git diff --stat "
            f"{opts.against} -- rulesets`): the two trees play different games from the "
            "same seeds, so compare actions per second, beside the game lengths.\n"
        )
    for i, r in enumerate(here):
        print(f"{r['scenario']}: {r['games']} games")
        report("this tree", r)
        if reference:
            ref = reference[i]
            report("reference", ref)
            same = sum(x == y for x, y in zip(r["hashes"], ref["hashes"], strict=True))
            print(
                f"  reference (nothing remembered between decisions) played the same "
                f"games: {same} of {r['games']}"
            )
        if there:
            b = there[i]
            report(opts.against, b)
            games = (r["games"] / r["seconds"]) / (b["games"] / b["seconds"])
            actions = (r["moves"] / r["seconds"]) / (b["moves"] / b["seconds"])
            same = sum(x == y for x, y in zip(r["hashes"], b["hashes"], strict=True))
            courses = sum(x == y for x, y in zip(r["courses"], b["courses"], strict=True))
            print(
                f"  speed-up ×{games:.2f} in games/s, ×{actions:.2f} in actions/s; "
                f"as {opts.against}: same games {same} of {r['games']}, "
                f"same actions and winner {courses} of {r['games']}"
            )


if __name__ == "__main__":
    main()
