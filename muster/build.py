"""`muster build`: write a ruleset's engine, print-and-play parts and VASSAL module."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


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
