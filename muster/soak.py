"""`muster soak`: many games of every scenario, checked as they play, counting what fired.

A soak plays each scenario of a battle with random, eager and heuristic
bots (`engine/bots/`) in turn, seed after seed — the heuristic bot makes for
the battle's objectives, so that the success paths of its victory rules fire
too — and after every action checks the
invariants any position of the series must keep:

- one location per unit: a unit on the map stands in one hex of the map, a
  unit off it (not entered, eliminated, captured, out of play) in none;
- step counts: a unit has lost fewer steps than it has;
- Army Morale: while the game goes on, no army's morale is 0 or less (16.3
  ends the game there), and where it ended on that, the other side won;
- stacking: at the start of each game turn (after every player turn's
  movement, overstacking penalty and entry, 7.1, 7.3, 9.61) every hex is
  within the battle's own `stack_ok`.

Every exception and every broken invariant is recorded with its scenario,
seed and move, and the game goes on to the next seed. With a
`engine.firing.Firing` attached, the soak also counts each declaration that
fired; `declarations()` maps those counts back to the rule files' lines and
citations, for the report and for `muster coverage`'s executed column.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import ir
from compiler.backends.engine_codegen import define_name
from engine import chance
from engine.bots import make_bot
from engine.errors import BadInput
from engine.firing import BRANCHING, Firing, branch_name
from engine.game import Game
from engine.rules import Rules
from engine.sources import rule_line, rule_place_of
from engine.state import ON_MAP, State
from muster.rule_switches import rule_switches

BOTS = ("random", "eager", "heuristic")
NO_REASON = "**no reason given**"
DETAIL = 160  # most characters of a broken invariant's detail in the report
MESSAGE = 100  # most characters of an exception's message, before the rule's place


@dataclass(frozen=True, slots=True)
class Declaration:
    """Something of the rules that can fire, with where it is written and what it cites."""

    kind: str  # step, modifier, result, table, trigger, restriction
    name: str  # the firing key's name (engine/firing.py)
    where: str  # file:line
    cites: tuple[ir.Cite, ...]
    rule: str  # the rule switch it belongs to, "" for always


def declarations(rules: ir.Ruleset, engine: Rules | None = None) -> list[Declaration]:
    """Every declaration a soak can see fire, in the order of the IR; with the
    battle's compiled `engine` rules, every arm of every conditional and every
    row and column of every table as well (issue 27: a dead branch inside a
    step that fires thousands of times)."""
    out = _whole_declarations(rules)
    if engine is not None:
        out += _branches(rules, engine) + _table_parts(rules)
    return out


def _whole_declarations(rules: ir.Ruleset) -> list[Declaration]:
    """The steps, modifiers, results, tables, triggers and restrictions."""

    def where(span: Any) -> str:
        return f"{span.file}:{span.line}" if span is not None and span.line else "?"

    out: list[Declaration] = []
    for proc in rules.procedures:
        if not proc.steps:
            out.append(Declaration("step", f"{proc.name}.", where(proc.span), proc.prov.cites, ""))
        seen: set[str] = set()
        for step in proc.steps:
            if step.rule == "!" or step.name in seen:
                continue
            seen.add(step.name)
            cites = tuple(dict.fromkeys(step.prov.cites or proc.prov.cites))
            rule = step.rule.lstrip("!")
            name = f"{proc.name}.{step.name}"
            out.append(Declaration("step", name, where(step.span), cites, rule))
    for mods in rules.modifiers:
        for i, m in enumerate(mods.modifiers):
            cites = m.prov.cites or mods.prov.cites
            out.append(Declaration("modifier", f"{mods.name}#{i}", where(m.span), cites, ""))
    for r in rules.results:
        out.append(Declaration("result", r.name, where(r.span), r.prov.cites, ""))
    for t in rules.tables:
        out.append(Declaration("table", t.name, where(t.span), t.prov.cites, ""))
    for t in rules.triggers:
        out.append(Declaration("trigger", t.name, where(t.span), t.prov.cites, t.rule))
    for x in rules.restrictions:
        out.append(Declaration("restriction", x.name, where(x.span), x.prov.cites, x.rule))
    return out


def _branches(rules: ir.Ruleset, engine: Rules) -> list[Declaration]:
    """Both arms of every conditional instruction (an `if`, a loop's test, a
    rule switch's step), where the rule files write it, citing its step."""
    steps = {
        (p.name, st.name): (st.prov.cites or p.prov.cites, st.rule.lstrip("!"))
        for p in rules.procedures
        for st in p.steps
    }
    out = []
    for name, spec in engine.procedures.items():
        starts = sorted((pc, step) for step, pc in spec.steps.items())
        for pc, instr in enumerate(spec.code):
            if instr.opcode not in BRANCHING:
                continue
            step = next((st for start, st in reversed(starts) if start <= pc), "")
            cites, rule = steps.get((name, step), ((), ""))
            # (by its line, as the other declarations and the reasons files name it)
            where = rule_line(spec.lines[pc]) if pc < len(spec.lines) else "?"
            for taken in (True, False):
                key = branch_name(name, pc, taken)
                out.append(Declaration("branch", key, where, cites, rule))
    return out


def _table_parts(rules: ir.Ruleset) -> list[Declaration]:
    """Every row and every column of every table, where the rule files write it."""
    out = []
    for t in rules.tables:
        for i, row in enumerate(t.rows):
            where = f"{row.span.file}:{row.span.line}"
            out.append(Declaration("table_row", f"{t.name}#{i}", where, t.prov.cites, ""))
        if len(t.columns) > 1:
            where = f"{t.span.file}:{t.span.line}"
            for i in range(len(t.columns)):
                out.append(Declaration("table_column", f"{t.name}#{i}", where, t.prov.cites, ""))
    return out


@dataclass(slots=True)
class Problem:
    scenario: str
    seed: int
    bots: str
    move: int
    what: str  # "exception" or the invariant broken
    detail: str


@dataclass(slots=True)
class ScenarioRun:
    scenario: str
    games: int = 0
    moves: int = 0
    turns: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    morale_low: dict[str, int] = field(default_factory=dict)  # lowest Army Morale seen, per side


@dataclass(slots=True)
class SoakReport:
    battle: str
    runs: list[ScenarioRun]
    problems: list[Problem]
    firing: Counter[tuple[str, str]]
    switches: dict[str, bool]  # each rule switch: on in some scenario soaked
    rules: dict[str, bool] = field(default_factory=dict)  # the switches chosen (`--rule`)
    first_seed: int = 1


class Invariants:
    """The checks made after every action of a soaked game."""

    def __init__(self, game: Game, stack_ok: Any) -> None:
        self.game = game
        self.stack_ok = stack_ok  # the battle's `stack_ok(s, units)`, or None
        self.n_hexes = len(game.rules.board.labels)
        self.morale = "army_morale" if "army_morale" in game.variable_scopes else ""

    def broken(self, s: State, turn_began: bool) -> list[tuple[str, str]]:
        rules = self.game.rules
        out: list[tuple[str, str]] = []
        for u, spec in enumerate(rules.units):
            on_map = s.unit_status[u] == ON_MAP
            if on_map != (0 <= s.unit_hex[u] < self.n_hexes):
                out.append(("one location per unit", f"{spec.name}: {s.unit_hex[u]}"))
            if spec.strengths and not 0 <= s.unit_loss[u] < len(spec.strengths):
                out.append(("step counts", f"{spec.name} lost {s.unit_loss[u]} steps"))
        if self.morale:
            for side, value in enumerate(s.vars[self.morale]):
                name = rules.sides[side].name
                if value <= 0 and not s.terminal:
                    out.append(("army morale", f"{name} at {value} and the game goes on"))
                if value <= 0 and s.terminal and s.winner == side:
                    out.append(("army morale", f"{name} at {value} wins"))
        if turn_began and self.stack_ok is not None:
            for h, units in s.units_by_hex().items():
                if not self.stack_ok(s, units):
                    names = ", ".join(rules.units[u].name for u in units)
                    out.append(("stacking", f"{rules.board.labels[h]}: {names}"))
        return out


def play_checked(
    game: Game, bots: tuple[str, str], seed: int, invariants: Invariants, run: ScenarioRun
) -> list[tuple[int, str, str]]:
    """Play one game to its end, checking the invariants after every action."""
    s = game.new_initial_state()
    players = [make_bot(name, p, seed) for p, name in enumerate(bots)]
    limit = game.max_game_length()
    problems: list[tuple[int, str, str]] = []
    turn = s.vars["turn"]
    morale = invariants.morale
    try:
        while not s.is_terminal():
            if s.move_number >= limit:
                problems.append((s.move_number, "game length", f"over {limit} actions"))
                break
            if s.is_chance_node():
                action = chance.sample(s, seed)
            else:
                action = players[s.current_player()].step(s)
            s.apply_action(action)
            s.take_messages()
            began = s.vars["turn"] != turn
            turn = s.vars["turn"]
            for what, detail in invariants.broken(s, began):
                problems.append((s.move_number, what, detail))
            if morale:
                for side, value in enumerate(s.vars[morale]):
                    name = game.rules.sides[side].name
                    run.morale_low[name] = min(run.morale_low.get(name, value), value)
            if len(problems) > 20:
                break
    except Exception as e:  # a bug in the engine or the rules: record it and go on
        # The rule the engine was running, if any: "procedure P at FILE:LINE:COLUMN".
        place = rule_place_of(e)
        where = f" ({place})" if place else ""
        message = str(e)
        message = message if len(message) <= MESSAGE else message[: MESSAGE - 1] + "…"
        problems.append((s.move_number, "exception", f"{type(e).__name__}: {message}{where}"))
    run.games += 1
    run.moves += s.move_number
    run.turns += s.vars["turn"] - game.first_turn + 1
    if s.is_terminal():
        winner = game.rules.sides[s.winner].name if s.winner >= 0 else "draw"
        run.outcomes[f"{winner} ({s.level})" if s.winner >= 0 else winner] += 1
    else:
        run.outcomes["unfinished"] += 1
    return problems


def soak(
    package: Any,
    battle: str,
    scenarios: list[str],
    games: int,
    first_seed: int = 1,
    progress: Any = None,
    rules: dict[str, bool] | None = None,
) -> SoakReport:
    """Play `games` games of each scenario (none: the battle's default game), with the
    rule switches `rules` chosen (as `muster play --rule` chooses them)."""
    firing_total: Counter[tuple[str, str]] = Counter()
    runs: list[ScenarioRun] = []
    problems: list[Problem] = []
    switches: dict[str, bool] = {}
    stack_ok = getattr(package.rules, define_name("stack_ok"), None)
    for scenario in scenarios or [""]:
        params: dict[str, Any] = {"scenario": scenario} if scenario else {}
        if rules:
            params["rules"] = rules
        game = package.load_game(params)
        game.firing = Firing(game.rules)
        for name, on in game.switch_on.items():
            switches[name] = switches.get(name, False) or on
        invariants = Invariants(game, stack_ok)
        run = ScenarioRun(scenario or "(default)")
        start = time.perf_counter()
        for i in range(games):
            seed = first_seed + i
            bots = (BOTS[i % len(BOTS)], BOTS[i % len(BOTS)])
            for move, what, detail in play_checked(game, bots, seed, invariants, run):
                problems.append(Problem(run.scenario, seed, ",".join(bots), move, what, detail))
            if progress is not None:
                progress(run.scenario, i + 1, games)
        run.seconds = time.perf_counter() - start
        runs.append(run)
        firing_total.update(game.firing.counts)
    return SoakReport(battle, runs, problems, firing_total, switches, dict(rules or {}), first_seed)


def reason_key(d: Declaration) -> str:
    """How a reasons file names a declaration: a branch by where the rule files
    write its test and which arm (its instruction index shifts with any edit),
    any other by its kind and name."""
    if d.kind == "branch":
        return f"branch {d.where} {d.name.rsplit(':', 1)[1]}"
    return f"{d.kind} {d.name}"


def read_reasons(path: Path) -> dict[str, str]:
    """A reasons file: `KEY: why it never fires in a soak`, one per line (`#`
    starts a comment); KEY as `reason_key` writes it."""
    out: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, why = line.partition(": ")
        if not sep or not why.strip():
            raise BadInput(f"{path}:{n}: expected `KEY: reason`, got {line[:60]!r}")
        out[key.strip()] = why.strip()
    return out


def never_fired(
    report: SoakReport,
    decls: list[Declaration],
    tested: dict[tuple[str, str], str] | None = None,
    reasons: dict[str, str] | None = None,
) -> list[tuple[Declaration, str]]:
    """The declarations no soaked game fired, each with its reason: its rule is
    off, a test of the battle makes it fire (a rarity shown by hand), or the
    reasons file says why; else "no reason given"."""
    tested, reasons = tested or {}, reasons or {}
    out = []
    for d in decls:
        if report.firing[(d.kind, d.name)]:
            continue
        if d.rule and not report.switches.get(d.rule, True):
            reason = f"its rule `{d.rule}` is off in every scenario soaked"
        elif (d.kind, d.name) in tested:
            reason = f"a rarity: the test `{tested[(d.kind, d.name)]}` makes it fire"
        elif reason_key(d) in reasons:
            reason = reasons[reason_key(d)]
        else:
            reason = NO_REASON
        out.append((d, reason))
    return out


def counts_json(report: SoakReport, games: int) -> str:
    """The firing counts as JSON, for `muster coverage --soak`."""
    counts = {f"{kind}:{name}": n for (kind, name), n in sorted(report.firing.items())}
    return json.dumps(
        {
            "format": "muster.soak/1",
            "battle": report.battle,
            "games_per_scenario": games,
            "scenarios": [r.scenario for r in report.runs],
            "counts": counts,
        },
        indent=1,
        ensure_ascii=False,
    )


def _cites(cites: tuple[ir.Cite, ...]) -> str:
    by_doc: dict[str, list[str]] = {}
    for c in cites:
        by_doc.setdefault(c.document, []).append(c.section)
    return "; ".join(f"§ {doc} {', '.join(secs)}" for doc, secs in by_doc.items()) or "—"


def soak_command(report: SoakReport, games: int) -> str:
    """The command that makes the report."""
    words = [f"muster soak {report.battle} --games {games}"]
    if report.first_seed != 1:
        words.append(f"--first-seed {report.first_seed}")
    words += [f"--rule {name}={'on' if on else 'off'}" for name, on in report.rules.items()]
    return " ".join(words)


def rules_chosen(rules: dict[str, bool]) -> str:
    """The rule switches chosen for the soak, in words (none: the scenarios' own)."""
    if not rules:
        return ""
    return ", " + ", ".join(f"{name} {'on' if on else 'off'}" for name, on in rules.items())


def markdown(
    report: SoakReport,
    games: int,
    decls: list[Declaration],
    tested: dict[tuple[str, str], str] | None = None,
    reasons: dict[str, str] | None = None,
) -> str:
    """The soak report: games, outcomes, problems, and what never fired, as Markdown."""
    lines = [
        f"# Soak: {report.battle}",
        "",
        f"`{soak_command(report, games)}`: {games} games per scenario, seeds"
        f" {report.first_seed}–{report.first_seed + games - 1}"
        f"{rules_chosen(report.rules)}; the games take random bots, eager bots (which rarely"
        " pass) and heuristic bots (which make for the battle's objectives) in turn, starting with"
        " random.",
        "Invariants checked after every action: one location per unit, step counts,"
        " Army Morale bounds (16.3), and stacking (7.1) at the start of every game turn.",
        "",
        "| scenario | games | actions (mean) | turns (mean) | lowest Army Morale | outcomes |"
        " seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report.runs:
        low = ", ".join(f"{side} {v}" for side, v in sorted(r.morale_low.items())) or "—"
        outcomes = ", ".join(f"{k} {n}" for k, n in r.outcomes.most_common())
        g = max(r.games, 1)
        lines.append(
            f"| {r.scenario} | {r.games} | {r.moves / g:.0f} | {r.turns / g:.1f} | {low} |"
            f" {outcomes} | {r.seconds:.0f} |"
        )
    kinds = Counter(p.what for p in report.problems)
    lines += [
        "",
        f"**Exceptions: {kinds['exception']}. Broken invariants: "
        f"{sum(n for k, n in kinds.items() if k != 'exception')}.**",
        "",
    ]
    if report.problems:
        lines += ["| scenario | seed | bots | move | what | detail |", "|---|---|---|---|---|---|"]
        for p in report.problems[:200]:
            # (an exception's message is cut already: the rule's place is kept whole)
            detail = p.detail.replace("|", "\\|")
            detail = detail if p.what == "exception" else detail[:DETAIL]
            lines.append(f"| {p.scenario} | {p.seed} | {p.bots} | {p.move} | {p.what} | {detail} |")
        lines.append("")
    silent = never_fired(report, decls, tested, reasons)
    fired = len(decls) - len(silent)
    rare = sum(r.startswith("a rarity") for _d, r in silent)
    unexplained = sum(r == NO_REASON for _d, r in silent)
    known = {reason_key(d) for d in decls}
    stale = sorted(k for k in (reasons or {}) if k not in known)
    lines += [
        f"## Declarations that fired: {fired} of {len(decls)}",
        "",
        "Counted: procedure steps entered, modifiers that changed a roll, results applied,"
        " tables read, triggers run, movement restrictions that bound, and inside the steps"
        " each arm of a conditional taken (`branch`: `procedure@instruction:then` or"
        " `:else`, an `if`, a loop's test or a rule switch's step) and each row and column"
        " of a table read (engine/firing.py).",
        "",
        f"### Never fired ({len(silent)})",
        "",
        f"Each with its reason: {rare} are rarities that a test of the battle makes fire"
        " (`muster test`, counted as the soak counts), the others are explained in the"
        " reasons file (`muster soak --reasons`) or are off by their rule switch;"
        f" {unexplained} without a reason.",
        "",
        *(
            [
                f"Reasons that name no declaration of these rules ({len(stale)}): "
                + ", ".join(f"`{k}`" for k in stale)
                + ".",
                "",
            ]
            if stale
            else []
        ),
        "| kind | declaration | where | cites | reason |",
        "|---|---|---|---|---|",
    ]
    for d, reason in silent:
        lines.append(f"| {d.kind} | `{d.name}` | {d.where} | {_cites(d.cites)} | {reason} |")
    return "\n".join(lines) + "\n"


def cmd_soak(args: argparse.Namespace) -> int:
    from compiler.backends.engine_codegen import generate
    from compiler.build import load_generated
    from compiler.check import compile_ruleset
    from muster.language_tests import fired_in_tests

    rules, _ = compile_ruleset(args.ruleset)
    if rules.library:
        print(f"muster: {rules.name} is a library: soak a battle that imports it", file=sys.stderr)
        return 2
    package = load_generated(generate(rules), rules.name)
    scenarios = [args.scenario] if args.scenario else [sc.name for sc in rules.scenarios]

    def progress(scenario: str, done: int, total: int) -> None:
        if not args.quiet and (done == total or done % 10 == 0):
            print(f"  {scenario}: {done}/{total} games", file=sys.stderr, flush=True)

    reasons = read_reasons(Path(args.reasons)) if args.reasons else {}
    chosen = rule_switches(args.rule) if args.rule else None
    report = soak(package, rules.name, scenarios, args.games, args.first_seed, progress, chosen)
    tested = fired_in_tests(rules, args.ruleset)
    decls = declarations(rules, package.load_game().rules)
    text = markdown(report, args.games, decls, tested, reasons)
    if args.report:
        Path(args.report).write_text(text, encoding="utf-8")
    if args.counts:
        Path(args.counts).write_text(counts_json(report, args.games) + "\n", encoding="utf-8")
    if not args.report:
        print(text, end="")
    problems = len(report.problems)
    print(f"muster soak {rules.name}: {problems} problems", file=sys.stderr)
    return 1 if problems else 0
