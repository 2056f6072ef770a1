"""Write docs/balance.md: heuristic against heuristic in every scenario.

    nice .venv/bin/python benchmarks/balance.py --games 400 --jobs 2

plays `--games` games of every scenario of the shipped battles with
`muster simulate`'s machinery (each seed both ways, `--swap`), writes the
JSON reports and PNG plots under docs/balance/ and the tables, with what
they suggest, into docs/balance.md. A long run: it is not part of the tests.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from compiler.build import import_shipped
from compiler.simulation import simulate
from engine.balance import table, write_json, write_plots

ROOT = Path(__file__).resolve().parent.parent
BATTLES = ("monmouth", "newtown")


def finding(report: dict) -> str:
    """One sentence on what the shares suggest."""
    sides = report["sides"]
    draw = report["outcomes"]["draw"]
    for side, o in sides.items():
        if o["low"] >= 0.6:
            return (
                f"**{side} wins {o['share']:.0%} of games** (95 % interval "
                f"{o['low']:.0%}–{o['high']:.0%}): with both bots alike, "
                f"the scenario favours {side}."
            )
    if draw["low"] >= 0.5:
        return (
            f"Most games are drawn ({draw['share']:.0%}): neither bot reaches a victory "
            "condition, so the table says more about the bots than the scenario."
        )
    return "Neither side is clearly favoured at this number of games."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1778)
    ap.add_argument("--bots", default="heuristic,heuristic")
    ap.add_argument("--only", help="battle:scenario to run (default: all)")
    args = ap.parse_args()
    out = ROOT / "docs" / "balance"
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    for battle in BATTLES:
        game = import_shipped(battle).load_game()
        for sc in game.rules.scenarios:
            if args.only and args.only != f"{battle}:{sc.name}":
                continue
            started = time.monotonic()
            report = simulate(
                battle,
                {"scenario": sc.name},
                args.games,
                args.bots,
                args.seed,
                jobs=args.jobs,
                swap=True,
                progress=True,
            )
            elapsed = time.monotonic() - started
            stem = f"{battle}_{sc.name}"
            write_json(report, out / f"{stem}.json")
            write_plots(report, out, stem)
            sections.append(
                f"## {game.rules.title}: {sc.title}\n\n```\n{table(report)}```\n\n"
                f"{finding(report)} ({elapsed / 60:.0f} min on {args.jobs} processes.)\n\n"
                f"![outcomes](balance/{stem}_outcomes.png)\n"
                f"![over turns](balance/{stem}_over_turns.png)\n"
            )
            print(f"{stem}: done in {elapsed:.0f} s", flush=True)
    head = (ROOT / "docs" / "balance_intro.md").read_text(encoding="utf-8")
    (ROOT / "docs" / "balance.md").write_text(head + "\n" + "\n".join(sections), encoding="utf-8")


if __name__ == "__main__":
    main()
