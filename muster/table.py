"""`muster table`: compile the battle, open the table, serve it until Ctrl-C."""

from __future__ import annotations

import argparse
import json
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn

from dsl.diagnostics import CompileError
from engine.errors import BadInput
from table.games import TableError
from table.guard import addresses, is_loopback
from table.server import build_replay, load_state, make_app, open_table


class BadLogLine(BadInput):
    """A save or log named with --load or --replay that is not JSON (its file,
    and its line where there is one, in the message)."""


def _text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise BadLogLine(f"{path}: not UTF-8 text (byte {e.start + 1})") from e


def _json(text: str, path: str, line: int | None = None) -> object:
    """One JSON document (the whole file, or its `line`); any failure (not
    JSON, nested too deeply, a number of thousands of digits) names its place."""
    where = path if line is None else f"{path}:{line}"
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        place = f"{path}:{line or e.lineno}:{e.colno}"
        raise BadLogLine(f"{place}: not JSON: {e.msg}") from e
    except RecursionError as e:
        raise BadLogLine(f"{where}: not JSON (nested too deeply)") from e
    except ValueError as e:
        raise BadLogLine(f"{where}: not JSON ({e})"[:200]) from e


def _log_lines(path: str) -> list[object]:
    """The JSON lines of a log, each read on its own so an error names its line."""
    lines = _text(path).splitlines()
    return [_json(text, path, n) for n, text in enumerate(lines, 1) if text.strip()]


def _opening(table: Any, args: argparse.Namespace) -> str:
    """The page's query that opens the save or log the user named (or none);
    a file that is no save or log of this battle is bad input, named."""
    start = ""
    if args.load:
        saved = _json(_text(args.load), args.load)
        try:
            tg, side = load_state(table, saved, args.side)
        except TableError as e:
            raise BadLogLine(f"{args.load}: {e}") from e
        tg.run_on()
        # The seat goes to whoever opens this address first: the person at the terminal.
        start = table.take_seats(tg, side)
    if args.replay:
        try:
            table.replays["start"] = build_replay(table, _log_lines(args.replay))
        except TableError as e:
            raise BadLogLine(f"{args.replay}: {e}") from e
        start = "?replay=start"
    return start


def run_table(args: argparse.Namespace) -> int:
    try:
        table = open_table(args.ruleset, args.scenario, args.side, args.bot, args.seed)
        start = _opening(table, args)
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except TableError as e:  # a side, bot or scenario the table does not have
        print(f"muster: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a save or log the user named that cannot be read: bad input
        if e.filename not in (args.load, args.replay) or not e.filename:
            raise  # a file of Muster's own: `muster.cli` reports a fault
        print(f"muster: {e.filename}: {e.strerror or e}", file=sys.stderr)
        return 1
    except BadLogLine as e:
        print(f"muster: {e}", file=sys.stderr)
        return 1
    shown = f"[{args.host}]" if ":" in args.host else args.host
    if not is_loopback(args.host):
        print(
            f"muster: the table listens on {args.host}, on a network: anyone who can reach "
            f"this machine on port {args.port} can open its page and start games (each "
            "seat still needs its own invitation). It answers to this machine's names "
            "and to those given with --allow-host.",
            file=sys.stderr,
            flush=True,
        )
        shown = socket.gethostname() if args.host in ("0.0.0.0", "::") else shown
    hosts = addresses(args.host, args.port, args.allow_host or ())
    address = f"http://{shown}:{args.port}/{start}"
    print(f"{table.rules.title}: the table is at {address}", flush=True)
    print("Press Ctrl-C to stop it.", flush=True)
    uvicorn.run(make_app(table, hosts), host=args.host, port=args.port, log_level="warning")
    return 0
