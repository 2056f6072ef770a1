"""`muster table`: compile the battle, open the table, serve it until Ctrl-C."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import uvicorn

from dsl.diagnostics import CompileError
from table.games import TableError
from table.server import build_replay, load_state, make_app, open_table


class BadLogLine(ValueError):
    """A line of a log named with --replay that is not JSON (file:line in the message)."""


def _log_lines(path: str) -> list[object]:
    """The JSON lines of a log, each read on its own so an error names its line."""
    lines = []
    try:
        whole = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise BadLogLine(f"{path}: not UTF-8 text (byte {e.start + 1})") from e
    for n, text in enumerate(whole.splitlines(), 1):
        if text.strip():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as e:
                raise BadLogLine(f"{path}:{n}:{e.colno}: not JSON: {e.msg}") from e
    return lines


def run_table(args: argparse.Namespace) -> int:
    try:
        table = open_table(args.ruleset, args.scenario, args.side, args.bot, args.seed)
        start = ""
        if args.load:
            saved = json.loads(Path(args.load).read_text(encoding="utf-8"))
            try:
                tg = load_state(table, saved, args.side)
            except TableError as e:  # the file the user named is no save: bad input
                print(f"muster: {args.load}: {e}", file=sys.stderr)
                return 1
            tg.run_on()
            start = f"?game={tg.id}&side={args.side or table.defaults['side']}"
        if args.replay:
            table.replays["start"] = build_replay(table, _log_lines(args.replay))
            start = "?replay=start"
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except TableError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a save or log the user named that cannot be read: bad input
        print(f"muster: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    except json.JSONDecodeError as e:
        print(f"muster: {args.load}:{e.lineno}:{e.colno}: not JSON: {e.msg}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as e:
        print(f"muster: {args.load}: not UTF-8 text (byte {e.start + 1})", file=sys.stderr)
        return 1
    except BadLogLine as e:
        print(f"muster: {e}", file=sys.stderr)
        return 1
    address = f"http://{args.host}:{args.port}/{start}"
    print(f"{table.rules.title}: the table is at {address}", flush=True)
    print("Press Ctrl-C to stop it.", flush=True)
    uvicorn.run(make_app(table), host=args.host, port=args.port, log_level="warning")
    return 0
