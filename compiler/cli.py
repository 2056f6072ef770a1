"""The `muster` command: check, build, play and replay rulesets.

Every command takes a ruleset path or the name of a shipped battle. Errors in
rule files are printed with their positions and exit with status 1; nothing
prints a Python traceback for bad input.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Any

from compiler.load import PROJECT_ROOT, RulesetNotFound
from compiler.output_folder import BuildRefused
from compiler.outputs import OUTPUTS
from compiler.rule_switches import rule_switches
from compiler.workbench import add_commands, cmd_watch
from dsl.diagnostics import CompileError
from engine.play import ReplayError

# A rulebook or a soak's counts is text of a few megabytes at most: anything
# larger, or no regular file at all (/dev/zero, a pipe), is refused unread.
MAX_TEXT_BYTES = 64 * 1024 * 1024


def _user_text(path: str, what: str) -> str:
    """The UTF-8 text of a file the user named; `ValueError` (status 1) naming it."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"{path}: the {what} is not a regular file")
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_BYTES + 1)
    except OSError as e:
        raise ValueError(f"{path}: cannot read the {what} ({e.strerror or e})") from e
    if len(data) > MAX_TEXT_BYTES:
        raise ValueError(f"{path}: the {what} is larger than {MAX_TEXT_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: the {what} is not UTF-8 text (byte {e.start + 1})") from e


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (games, processes, dots per inch)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


def _port(text: str) -> int:
    """An argparse type: a TCP port (0 lets the system choose)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, not {text!r}")
    return value


def _folder(text: str) -> str:
    """An argparse type: a path that is not empty (`--out ""` is no folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, not an empty path")
    return text


def cmd_check(args: argparse.Namespace) -> int:
    if args.watch:
        return cmd_watch(args)
    from compiler.check import check_ruleset
    from compiler.provenance import provisional_values
    from dsl.diagnostics import render

    rules, sources, warnings = check_ruleset(args.ruleset)
    for w in warnings:
        print(render(w, sources), file=sys.stderr)
    provisional = provisional_values(rules)
    if args.provisional:
        for p in provisional:
            print(f"{p.where}: {p.what}: {p.reason}")
        print(f"{len(provisional)} provisional value(s)")
        return 0
    hexes = 0
    if rules.map is not None:
        hexes = (rules.map.columns[1] - rules.map.columns[0] + 1) * (
            rules.map.rows[1] - rules.map.rows[0] + 1
        )
    kinds = [u.kind for u in rules.units]
    print(f"{rules.title} ({rules.name}): ok")
    print(f"  sides       {len(rules.sides)}")
    print(f"  units       {kinds.count('unit')}")
    print(f"  leaders     {kinds.count('leader')}")
    if kinds.count("piece"):
        print(f"  pieces      {kinds.count('piece')}")
    print(f"  markers     {len(rules.markers)}")
    print(f"  hexes       {hexes}")
    print(f"  tables      {len(rules.tables)}")
    print(f"  scenarios   {len(rules.scenarios)}")
    print(f"  procedures  {len(rules.procedures)}")
    print(
        f"  rules       {len(rules.triggers)} triggers, {len(rules.restrictions)} restrictions, "
        f"{len(rules.switches)} switches"
    )
    print(f"  provisional {len(provisional)} values (muster check --provisional lists them)")
    if warnings:
        print(f"  warnings    {len(warnings)} (shown above)")
    return 0


def cmd_coverage(args: argparse.Namespace) -> int:
    from compiler.check import compile_loaded
    from compiler.coverage import cited_in_tests, coverage, executed, sections, under
    from compiler.language_tests import test_files
    from compiler.load import load, resolve_ruleset
    from compiler.provenance import citations
    from dsl.diagnostics import Reporter
    from dsl.source import SourceFiles

    reporter = Reporter(SourceFiles())
    loaded = load(resolve_ruleset(args.ruleset), reporter)
    reporter.check()
    rules = compile_loaded(loaded, reporter)
    text = _user_text(args.rulebook, "rulebook")
    cites = citations(loaded.files)
    names = (
        args.documents.split(",") if args.documents else _document_names(text, rules.name, cites)
    )
    if names is None:
        print(
            f"muster: {args.rulebook} holds {len(sections(text))} documents: "
            "name them in order with --documents a,b",
            file=sys.stderr,
        )
        return 2
    fired = _fired_declarations(rules, args.soak) if args.soak else None
    # The Python tests of the folder, and the battle's tests in the rule language.
    tests = sorted(Path(args.tests).glob("**/*.py")) if args.tests else []
    tests += test_files(resolve_ruleset(args.ruleset))
    tested = cited_in_tests([p.read_text(encoding="utf-8") for p in tests])
    uncited = 0
    for cov in coverage(text, names, cites):
        print(f"§ {cov.document}: {len(cov.rows)} numbered sections")
        silent = untested = 0
        for sec, via, times in cov.rows:
            if via is None:
                mark = "UNCITED"
            elif via == sec.number:
                mark = f"cited {times}×"
            else:
                mark = f"via {via}"
            ran = ""
            if fired is not None:
                decls, hits, total = executed(cov.document, sec.number, fired)
                ran = f"{hits}/{decls} fired ({total})" if decls else "no rule runs it"
                silent += decls > 0 and hits == 0
            names_it = sum(
                n for s, n in tested.get(cov.document, {}).items() if under(sec.number, s)
            )
            untested += names_it == 0
            columns = f"{mark:<12}"
            if fired is not None:
                columns += f" {ran:<22}"
            if args.tests:
                columns += f" {'tested ' + str(names_it) if names_it else 'untested':<10}"
            if args.all or via is None:
                print(f"  {sec.number:<8} {columns} {sec.title[:60]}")
        uncited += len(cov.uncited)
        print(f"  {len(cov.uncited)} uncited")
        if fired is not None:
            print(f"  {silent} cited only by declarations that never fired in the soak")
        if args.tests:
            print(f"  {untested} named by no test")
    return 1 if uncited and args.strict else 0


def _fired_declarations(rules: Any, path: str) -> list[tuple[tuple[tuple[str, str], ...], int]]:
    """Each firing declaration of the rules as (its cites, times it fired in the soak)."""
    import json

    from compiler.soak import declarations

    data = json.loads(_user_text(path, "soak's firing counts"))
    if not isinstance(data, dict) or not isinstance(counts := data.get("counts"), dict):
        raise ValueError(f"{path}: not the firing counts of a soak of {rules.name}")
    if data.get("format") != "muster.soak/1" or data.get("battle") != rules.name:
        raise ValueError(f"{path}: not the firing counts of a soak of {rules.name}")
    return [
        (tuple((c.document, c.section) for c in d.cites), counts.get(f"{d.kind}:{d.name}", 0))
        for d in declarations(rules)
    ]


def _document_names(text: str, battle: str, cites: dict) -> list[str] | None:
    """The documents a rulebook text holds, when the citations tell: a battle's
    rulebook that starts with the series rules is ["series", battle]; a ruleset
    citing only itself (the series) is the text's first document."""
    from compiler.coverage import sections

    count = len(sections(text))
    if count <= 1 or set(cites) <= {battle}:
        return [battle]  # the first document is the ruleset's own
    others = sorted(set(cites) - {battle})
    return [*others, battle] if len(others) == count - 1 else None


def cmd_dump(args: argparse.Namespace) -> int:
    from compiler.backends.engine_codegen import generate
    from compiler.build import load_generated
    from compiler.check import compile_ruleset
    from compiler.dump import dump, dump_code

    rules, _ = compile_ruleset(args.ruleset)
    if args.code is None:
        print(dump(rules))
        return 0
    compiled = load_generated(generate(rules), rules.name).RULES
    try:
        print(dump_code(compiled, args.code))
    except KeyError as e:
        print(f"muster dump: {e.args[0]}", file=sys.stderr)
        return 2
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from compiler.build import build, module_path, shipped_battles

    targets = shipped_battles() if args.ruleset == "shipped" else [args.ruleset]
    if args.out and len(targets) > 1:
        print("muster: --out needs one ruleset", file=sys.stderr)
        return 2
    for target in targets:
        rules, out = build(target, Path(args.out) if args.out else None, args.only)
        print(f"built {rules.name}: {args.only or 'everything'} → {out}")
        module = out / module_path(rules)
        if args.only in (None, "vassal") and module.exists():
            print(f"  VASSAL module {module} ({module.stat().st_size / 1e6:.1f} MB)")
    return 0


def _account_printer(quiet: bool):
    def on_move(state: Any, record: dict[str, Any], messages: list[str]) -> None:
        if quiet:
            return
        for m in messages:
            print(m if m.startswith("—") else f"  {m}")

    return on_move


def cmd_play(args: argparse.Namespace) -> int:
    from compiler.build import load_game
    from engine.bots import BotSpecError, parse_bots
    from engine.play import play_game, write_log

    params: dict[str, Any] = {"rules": rule_switches(args.rule)} if args.rule else {}
    if args.scenario:
        params["scenario"] = args.scenario
    game = load_game(args.ruleset, params)
    try:
        bots = parse_bots(args.bots, game.num_players())
    except BotSpecError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    scenario = f" — {game.scenario.title}" if game.scenario else ""
    print(f"{game.rules.title}{scenario} — seed {args.seed}, bots {', '.join(bots)}")
    record = play_game(game, bots, args.seed, _account_printer(args.quiet))
    if args.log:
        try:
            write_log(record, args.log)
        except OSError as e:
            raise ValueError(f"{args.log}: cannot write the log ({e.strerror or e})") from e
    final = record.final
    print(
        f"\nGame over after {final['moves']} actions: "
        + (f"{final['winner']} wins ({final['level']})" if final["winner"] else "draw")
    )
    print(f"returns {final['returns']}  state {final['hash'][:16]}")
    if args.log:
        print(f"log written to {args.log}")
    return 0


def cmd_soak(args: argparse.Namespace) -> int:
    from compiler.backends.engine_codegen import generate
    from compiler.build import load_generated
    from compiler.check import compile_ruleset
    from compiler.soak import counts_json, declarations, markdown, soak

    rules, _ = compile_ruleset(args.ruleset)
    if rules.library:
        print(f"muster: {rules.name} is a library: soak a battle that imports it", file=sys.stderr)
        return 2
    package = load_generated(generate(rules), rules.name)
    scenarios = [args.scenario] if args.scenario else [sc.name for sc in rules.scenarios]

    def progress(scenario: str, done: int, total: int) -> None:
        if not args.quiet and (done == total or done % 10 == 0):
            print(f"  {scenario}: {done}/{total} games", file=sys.stderr, flush=True)

    report = soak(package, rules.name, scenarios, args.games, args.first_seed, progress)
    text = markdown(report, args.games, declarations(rules))
    if args.report:
        Path(args.report).write_text(text, encoding="utf-8")
    if args.counts:
        Path(args.counts).write_text(counts_json(report, args.games) + "\n", encoding="utf-8")
    if not args.report:
        print(text, end="")
    problems = len(report.problems)
    print(f"muster soak {rules.name}: {problems} problems", file=sys.stderr)
    return 1 if problems else 0


def cmd_replay(args: argparse.Namespace) -> int:
    from compiler.build import load_game
    from compiler.load import SHIPPED
    from engine.play import ReplayError, certify, read_log

    log = read_log(args.log, partial=args.partial)
    name = log.header["ruleset"]
    # The log names its battle; only the user names files to read.
    if args.ruleset is None and not (SHIPPED / name / "ruleset.mst").is_file():
        raise ReplayError(
            f"{args.log}:1: the log's ruleset {name!r} is not a shipped battle: "
            "name its rule files with --ruleset PATH"
        )
    try:
        game = load_game(args.ruleset or name, log.header["params"])
    except ValueError as e:  # an unknown scenario or rule switch in the header
        raise ReplayError(f"{args.log}:1: {e}") from e
    if game.rules.name != name:
        raise ReplayError(f"{args.log}:1: a log of {name!r}, not of {game.rules.name!r}")
    done = certify(game, log)
    got = done.state.state_hash()[:16]
    chance = f"{done.seeded} seeded outcome(s) re-derived from the seed"
    if done.physical:
        chance += f", {done.physical} physical roll(s) taken on the log's word"
    if done.finished:
        print(f"replayed {done.actions} actions ({chance}): final state matches ({got})")
    else:
        over = "the game is over" if done.state.is_terminal() else "a game in progress"
        print(
            f"partial: replayed {done.actions} actions ({chance}); {over}, no end line; state {got}"
        )
    return 0


def _map_model(ruleset: str):
    from compiler.check import compile_ruleset
    from compiler.map_model import MapModel

    return MapModel(compile_ruleset(ruleset)[0])


def cmd_table(args: argparse.Namespace) -> int:
    """`muster table`: the web page to play a battle (the optional `table` extra)."""
    try:
        from table.cli import run_table  # lazy: Starlette and uvicorn are an optional extra
    except ImportError as e:
        print(
            f"muster: the table needs its extra: pip install -e '.[table]' ({e})", file=sys.stderr
        )
        return 2
    return run_table(args)


def cmd_map(args: argparse.Namespace) -> int:
    from compiler.map_commands import hex_label, hex_labels, write_map_image

    model = _map_model(args.ruleset)
    los = (hex_label(model, args.los[0]), hex_label(model, args.los[1])) if args.los else None
    units = hex_labels(model, args.units)
    out = write_map_image(model, Path(args.out), args.dpi, los, units)
    print(f"map → {out}")
    return 0


def cmd_los(args: argparse.Namespace) -> int:
    from compiler.map_commands import hex_label, hex_labels, los_report

    model = _map_model(args.ruleset)
    a, b = hex_label(model, args.a), hex_label(model, args.b)
    print(los_report(model, a, b, hex_labels(model, args.units)))
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from compiler.map_commands import hex_label, path_report

    model = _map_model(args.ruleset)
    print(path_report(model, hex_label(model, args.a), hex_label(model, args.b), args.unit))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from compiler.simulation import cmd_simulate as simulate

    return simulate(args)


def add_simulate_parser(sub: Any) -> None:
    """`muster simulate` (compiler/simulation.py; imported only when it runs)."""
    s = sub.add_parser("simulate", help="play many seeded games with bots: a balance report")
    s.add_argument("ruleset")
    s.add_argument("--scenario", help="the scenario (default: the first declared)")
    s.add_argument("--games", type=_positive, default=100, help="how many games (default 100)")
    s.add_argument(
        "--bots", default="heuristic,heuristic", help="one bot per side, e.g. heuristic,mcts:200"
    )
    s.add_argument(
        "--jobs", type=_positive, default=1, help="processes on this machine (default 1)"
    )
    s.add_argument("--seed", type=int, default=1, help="the run's seed: game i plays seed(K, i)")
    s.add_argument("--swap", action="store_true", help="play each seed twice, sides swapped")
    s.add_argument(
        "--out", type=_folder, help="write the JSON report and PNG plots into this folder"
    )
    s.add_argument("--cluster", help="a Dask scheduler's address (needs the `cluster` extra)")
    s.add_argument("--rule", action="append", default=[], help="switch a rule: name=on|off")
    s.add_argument(
        "--journal",
        type=Path,
        help="keep each game in this file as it finishes; a run cut short resumes from it",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muster", description="Compile and play wargame rulesets.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="check a ruleset and summarise it")
    c.add_argument("ruleset")
    c.add_argument(
        "--provisional", action="store_true", help="list every provisional value and why"
    )
    c.add_argument("--watch", action="store_true", help="re-check on every save (Ctrl-C stops)")
    c.set_defaults(func=cmd_check)
    add_commands(sub)

    cv = sub.add_parser("coverage", help="the rulebook's numbered sections against the citations")
    cv.add_argument("ruleset")
    cv.add_argument("--rulebook", required=True, help="the rulebook as plain text")
    cv.add_argument("--documents", help="names of the documents in the text, in order (a,b)")
    cv.add_argument("--all", action="store_true", help="list cited sections too")
    cv.add_argument("--strict", action="store_true", help="exit 1 when a section is uncited")
    cv.add_argument(
        "--soak", help="firing counts of `muster soak --counts`: an executed column per section"
    )
    cv.add_argument(
        "--tests",
        default=str(PROJECT_ROOT / "tests") if (PROJECT_ROOT / "tests").is_dir() else None,
        help="test folder whose `§ doc N` citations fill the tested column, with the "
        "battle's tests/*.mst (default: tests/)",
    )
    cv.set_defaults(func=cmd_coverage)

    d = sub.add_parser("dump", help="print the checked IR as JSON (see docs/ir.md)")
    d.add_argument("ruleset")
    d.add_argument(
        "--code",
        metavar="PROCEDURE",
        help="print a procedure's compiled instructions with their rule-file lines instead",
    )
    d.set_defaults(func=cmd_dump)

    b = sub.add_parser(
        "build", help="build a ruleset's engine package and print-and-play components"
    )
    b.add_argument("ruleset", help="a ruleset, or `shipped` for every shipped battle")
    b.add_argument("--out", type=_folder, help="output folder (default generated/<name>)")
    b.add_argument("--only", choices=OUTPUTS, help="build only this output (default: all)")
    b.set_defaults(func=cmd_build)

    pl = sub.add_parser("play", help="play one game with bots and print its account")
    pl.add_argument("ruleset")
    pl.add_argument(
        "--bots",
        default="random,random",
        help="one bot per side: random, heuristic, mcts[:ITERATIONS|:SECONDSs]",
    )
    pl.add_argument("--seed", type=int, default=1)
    pl.add_argument("--log", help="write the game's JSONL log here")
    pl.add_argument("--rule", action="append", default=[], help="switch a rule: name=on|off")
    pl.add_argument("--scenario", help="the scenario to play (default: the first declared)")
    pl.add_argument("--quiet", action="store_true", help="print only the result")
    pl.set_defaults(func=cmd_play)

    tb = sub.add_parser(
        "table", help="a local web page to play the battle against a bot or a friend"
    )
    tb.add_argument("ruleset")
    tb.add_argument("--scenario")
    tb.add_argument("--side", help="the side you play (a side's name, or both for hot seat)")
    tb.add_argument(
        "--bot", help="the bot that plays the other side (default: heuristic if built, else random)"
    )
    tb.add_argument("--seed", type=int, default=1, help="the dice (as muster play --seed)")
    tb.add_argument("--port", type=_port, default=8765)
    tb.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (this machine only by default)",
    )
    tb.add_argument("--load", help="resume a saved position (the engine's JSON)")
    tb.add_argument("--replay", help="open a play log in the replay viewer")
    tb.set_defaults(func=cmd_table)

    mp = sub.add_parser("map", help="draw the map as a PNG at print resolution")
    mp.add_argument("ruleset")
    mp.add_argument("-o", "--out", default="map.png", help="the PNG to write (default map.png)")
    mp.add_argument("--dpi", type=_positive, default=300, help="dots per inch (default 300)")
    mp.add_argument("--los", nargs=2, metavar=("A", "B"), help="overlay the line of sight A→B")
    mp.add_argument("--units", help="hexes holding combat units, e.g. 0304,0506")
    mp.set_defaults(func=cmd_map)

    for name, func, what in (
        ("los", cmd_los, "is the line of sight from hex A to hex B clear, and why"),
        ("path", cmd_path, "the cheapest path for a unit from hex A to hex B"),
    ):
        q = sub.add_parser(name, help=what)
        q.add_argument("ruleset")
        q.add_argument("a")
        q.add_argument("b")
        if name == "los":
            q.add_argument("--units", help="hexes holding combat units, e.g. 0304,0506")
        else:
            q.add_argument("--unit", required=True, help="the unit's name in the rule files")
        q.set_defaults(func=func)

    add_simulate_parser(sub)

    sk = sub.add_parser(
        "soak", help="play many games of every scenario, checking invariants and what fired"
    )
    sk.add_argument("ruleset")
    sk.add_argument("--games", type=_positive, default=200, help="games per scenario (default 200)")
    sk.add_argument("--scenario", help="soak only this scenario")
    sk.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    sk.add_argument("--report", help="write the Markdown report here (default: stdout)")
    sk.add_argument("--counts", help="write the firing counts as JSON (for muster coverage --soak)")
    sk.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sk.set_defaults(func=cmd_soak)

    r = sub.add_parser("replay", help="replay a JSONL log and verify its final state")
    r.add_argument("log")
    r.add_argument(
        "--ruleset", help="the ruleset's rule files (default: the shipped battle the log names)"
    )
    r.add_argument(
        "--partial", action="store_true", help="replay a game in progress (no end line yet)"
    )
    r.set_defaults(func=cmd_replay)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except RulesetNotFound as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    except ReplayError as e:
        print(f"muster: replay failed: {e}", file=sys.stderr)
        return 1
    except BuildRefused as e:
        print(f"muster: build refused, nothing changed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("muster: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `muster dump … | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError) as e:
        print(f"muster: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug in Muster, not in the rule files
        if os.environ.get("MUSTER_DEBUG"):
            raise
        print(
            f"muster: internal error ({type(e).__name__}: {e}); "
            "please report it, with MUSTER_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":
    sys.exit(main())
