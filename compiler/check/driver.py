"""The checker's driver: load a ruleset, run the passes in order, build the IR.

Errors are collected; `CompileError` is raised between passes when there are any.
"""

from __future__ import annotations

from pathlib import Path

from compiler import ir
from compiler.check.assemble import assemble
from compiler.check.bodies import check_bodies
from compiler.check.collect import collect
from compiler.check.declare import declare
from compiler.check.header import read_header
from compiler.check.kinds import build_kinds
from compiler.check.patch import patched_procedures
from compiler.check.slips import find_slips
from compiler.check.tools import Tools
from compiler.load import Loaded, load, resolve_ruleset
from compiler.map.checks import check_model
from dsl import ast
from dsl.diagnostics import Diagnostic, Reporter
from dsl.source import SourceFiles


def compile_ruleset(arg: str | Path) -> tuple[ir.Ruleset, SourceFiles]:
    """Load, check and build the IR of a ruleset; raises `CompileError`."""
    rules, sources, _warnings = check_ruleset(arg)
    return rules, sources


def check_ruleset(arg: str | Path) -> tuple[ir.Ruleset, SourceFiles, list[Diagnostic]]:
    """`compile_ruleset`, with the warnings (probable slips) it found."""
    sources = SourceFiles()
    reporter = Reporter(sources)
    loaded = load(resolve_ruleset(arg), reporter)
    reporter.check()
    return compile_loaded(loaded, reporter), sources, reporter.warnings


def compile_loaded(loaded: Loaded, reporter: Reporter) -> ir.Ruleset:
    """Check files already loaded (and looked at: coverage, local charts) into the IR;
    probable slips are left in `reporter` as warnings."""
    ruleset = check_files(loaded.files, loaded.entry, reporter)
    reporter.check()
    check_model(ruleset, reporter)
    reporter.check()
    # What the build draws must be drawable, as muster check says. (Imported here: the
    # drawing modules read the checker's counter looks, and importing any of them
    # runs this package's __init__, and so this module.)
    from compiler.backends.print_and_play.mix import check_counters

    check_counters(ruleset, reporter)
    reporter.check()
    find_slips(ruleset, loaded.entry.parent, reporter)
    return ruleset


def check_files(files: tuple[ast.File, ...], entry: Path, reporter: Reporter) -> ir.Ruleset:
    """Run the passes in order, each on what the ones before it built."""
    tools = Tools.new(reporter)
    decls = collect(files, reporter, tools.names)
    reporter.check()
    header = read_header(decls, reporter, files[-1].path if files else str(entry))
    parts = build_kinds(tools, decls, header)
    procs = patched_procedures(decls, reporter)
    declared = declare(tools, decls, procs)
    bodies = check_bodies(tools, decls, parts, procs, declared)
    return assemble(tools, entry, decls, header, parts, procs, declared, bodies)
