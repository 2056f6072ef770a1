"""`muster check`: check a ruleset and summarise it, or list its provisional values."""

from __future__ import annotations

import argparse
import sys

from muster.workbench import cmd_watch


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
    library = " (a library: battles import it; it builds and plays nothing by itself)"
    print(f"{rules.title} ({rules.name}): ok{library if rules.library else ''}")
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
