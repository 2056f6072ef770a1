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


def run_table(args: argparse.Namespace) -> int:
    try:
        table = open_table(args.ruleset, args.scenario, args.side, args.bot, args.seed)
        start = ""
        if args.load:
            saved = json.loads(Path(args.load).read_text(encoding="utf-8"))
            tg = load_state(table, saved, args.side)
            tg.run_on()
            start = f"?game={tg.id}&side={args.side or table.defaults['side']}"
        if args.replay:
            text = Path(args.replay).read_text(encoding="utf-8")
            lines = [json.loads(x) for x in text.splitlines() if x.strip()]
            table.replays["start"] = build_replay(table, lines)
            start = "?replay=start"
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except TableError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError) as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    address = f"http://{args.host}:{args.port}/{start}"
    print(f"{table.rules.title}: the table is at {address}", flush=True)
    print("Press Ctrl-C to stop it.", flush=True)
    uvicorn.run(make_app(table), host=args.host, port=args.port, log_level="warning")
    return 0
