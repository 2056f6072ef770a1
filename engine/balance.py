"""A balance report: what many games of one scenario say, with 95 % intervals.

Shares carry Wilson score intervals (they stay inside [0, 1] and behave at
small counts and at shares near 0 or 1, where the normal approximation does
not). Everything is computed from the games sorted by index, so the same
games give byte-identical tables and JSON whoever played them.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)


def _share(count: int, n: int) -> dict[str, float | int]:
    low, high = wilson(count, n)
    return {
        "count": count,
        "share": round(count / n, 4) if n else 0.0,
        "low": round(low, 4),
        "high": round(high, 4),
    }


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "mean": round(statistics.fmean(values), 3),
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
    }


def summarise(
    games: list[dict[str, Any]], meta: dict[str, Any], sides: list[str], levels: list[str]
) -> dict[str, Any]:
    """The report of a run: outcome shares, bots' win shares, lengths, values, deciding rules."""
    games = sorted(games, key=lambda g: g["index"])
    n = len(games)
    tracked = sorted(games[0]["final"]) if games else []
    return {
        **meta,
        "games": n,
        "outcomes": _outcomes(games, sides, levels),
        "sides": _side_wins(games, sides),
        "bots": _bot_wins(games),
        "bot_sides": _bot_side_wins(games, sides),
        "moves": _spread([g["moves"] for g in games]),
        "turns": _spread([g["turns"] for g in games]),
        "final": {var: _final_spread(games, var, sides) for var in tracked},
        "over_turns": {var: _over_turns(games, var, sides) for var in tracked},
        "decided_by": _decided_by(games),
    }


def _outcomes(games: list[dict[str, Any]], sides: list[str], levels: list[str]) -> dict:
    """The share of games each side won at each level, and of draws."""
    n = len(games)
    outcomes = {}
    for side in sides:
        for level in levels:
            count = sum(1 for g in games if g["winner"] == side and g["level"] == level)
            outcomes[f"{side} {level}"] = _share(count, n)
    outcomes["draw"] = _share(sum(1 for g in games if g["winner"] is None), n)
    return outcomes


def _side_wins(games: list[dict[str, Any]], sides: list[str]) -> dict[str, dict[str, Any]]:
    """Each side's share of wins, at any level."""
    n = len(games)
    return {side: _share(sum(1 for g in games if g["winner"] == side), n) for side in sides}


def _final_spread(games: list[dict[str, Any]], var: str, sides: list[str]) -> dict:
    """The spread of a tracked value at the end of the games, per side."""
    return {side: _spread([g["final"][var][side] for g in games]) for side in sides}


def _bot_wins(games: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each bot's share of wins among the games it played (for either side)."""
    bots: dict[str, dict[str, Any]] = {}
    for spec in sorted({b for g in games for b in g["bots"].values()}):
        played = [g for g in games if spec in g["bots"].values()]
        won = sum(1 for g in played if g["winner"] is not None and g["bots"][g["winner"]] == spec)
        bots[spec] = _share(won, len(played))
    return bots


def _bot_side_wins(games: list[dict[str, Any]], sides: list[str]) -> dict[str, dict[str, Any]]:
    """Where two different bots play, each bot's share of wins as each side, among
    the games it played that side: a bot that wins only the side the scenario
    favours shows it here, in its row for the other side."""
    specs = sorted({b for g in games for b in g["bots"].values()})
    if len(specs) < 2:
        return {}
    rows: dict[str, dict[str, Any]] = {}
    for spec in specs:
        for side in sides:
            played = [g for g in games if g["bots"].get(side) == spec]
            if played:
                won = sum(1 for g in played if g["winner"] == side)
                rows[f"{spec} as {side}"] = _share(won, len(played))
    return rows


def _over_turns(games: list[dict[str, Any]], var: str, sides: list[str]) -> dict[str, list]:
    """A tracked value's mean at the end of each turn, per side, over the games
    that lasted that long."""
    longest = max((len(g["by_turn"]) for g in games), default=0)
    return {side: [_mean_at(games, t, var, side) for t in range(longest)] for side in sides}


def _mean_at(games: list[dict[str, Any]], t: int, var: str, side: str) -> float:
    """A side's mean value at the end of turn `t` over the games that reached it."""
    return round(
        statistics.fmean(g["by_turn"][t][var][side] for g in games if t < len(g["by_turn"])), 3
    )


def _decided_by(games: list[dict[str, Any]]) -> dict[str, int]:
    """How many games each rule decided, the most frequent first."""
    decided: dict[str, int] = {}
    for g in games:
        decided[g["decided_by"]] = decided.get(g["decided_by"], 0) + 1
    return dict(sorted(decided.items(), key=lambda kv: (-kv[1], kv[0])))


def table(report: dict[str, Any]) -> str:
    """The report as text, for the terminal and for docs/balance.md."""
    n = report["games"]
    lines = [
        f"{report['battle']} — {report['scenario']}: {n} games, bots {report['bots_given']}"
        + (" (each seed both ways)" if report.get("swap") else "")
        + f", seed {report['seed']}",
        "",
        f"{'outcome':32} {'games':>6} {'share':>7}   95 % interval",
    ]
    lines += [_share_line(name, o) for name, o in report["outcomes"].items()]
    lines.append("")
    rows_by_title = (
        ("side", report["sides"]),
        ("bot", report["bots"]),
        ("bot", report.get("bot_sides", {})),
    )
    for title, rows in rows_by_title:
        lines += [_share_line(f"{title} {name} wins", o) for name, o in rows.items()]
    lines += _length_lines(report)
    lines += [_final_line(var, per_side) for var, per_side in report["final"].items()]
    lines += ["", "decided by:"]
    for why, count in report["decided_by"].items():
        lines.append(f"  {count:5d}  {why}")
    return "\n".join(lines) + "\n"


def _length_lines(report: dict[str, Any]) -> list[str]:
    """The mean length of a game in actions (and its range) and in turns."""
    m, t = report["moves"], report["turns"]
    if not m:
        return []
    return [
        "",
        f"game length: {m['mean']} actions on average ({m['min']}–{m['max']}), {t['mean']} turns",
    ]


def _final_line(var: str, per_side: dict[str, dict[str, float]]) -> str:
    """A tracked value at the end of the games: each side's mean and range."""
    parts = [f"{side} {v['mean']} ({v['min']}–{v['max']})" for side, v in per_side.items() if v]
    return f"final {var}: " + ", ".join(parts)


def _share_line(name: str, o: dict[str, Any]) -> str:
    """A count of games, its share and the share's 95 % interval."""
    return f"{name:32} {o['count']:6d} {o['share']:7.1%}   {o['low']:.1%} – {o['high']:.1%}"


def write_json(report: dict[str, Any], path: Path) -> None:
    """The report as built (side and level order kept: it is deterministic)."""
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
