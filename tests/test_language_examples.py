"""Every ```mst example of docs/language.md goes through the checker, here.

The guide's examples are taken from the rule files that ship (its opening
says so); this test keeps them true as the language changes. Each example is
checked in a *context*: a battle it makes sense in, named by the comment
`<!-- mst-context: PATH -->` (a ruleset folder or file, from the project
root) before it; a context holds for every block after it until the next.
The context is loaded once (its parsed files kept), and each block is then
checked with it, as `muster check` would, by kind of block:

- ```mst — declarations, as a rule file of the context's folder would hold
  them. Each declaration of the block stands in for the context's own of
  that name (the guide shows the shipped rule: it must check in its place);
  an `extend procedure` stands in for the context's patches of the same
  procedure that add or replace the same steps, an `extend LIST NAME` for
  the context's of that list; declarations the context lacks are added.
  An `import` in the block is followed like any other (the guide's own
  `ruleset.mst` of Newtown imports its files).
- ```mst fragment PROCEDURE — steps of a procedure shown alone: each
  `step NAME` is checked as a `replace NAME` patch of that procedure (one
  `extend procedure PROCEDURE { … }` around the block).
- A block of `test NAME { … }` declarations (```mst too) — a language
  test: run by `muster test`'s own runner in the context battle, as
  `muster test` runs a battle's tests (slow: it builds the battle's engine).
- ```mst no-check — not checked, for an example that is partial on purpose
  (a table's rows left out, a declaration's first line shown alone): a
  comment `<!-- mst-no-check: REASON -->` before it says why.

A block that does not check fails with its line in the guide, the lines of
the checker's messages mapped to lines of the guide, and its context.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from compiler.check.driver import compile_loaded
from compiler.load import Loaded, ParseCache, display_name, load, resolve_ruleset
from dsl import ast
from dsl.diagnostics import CompileError, Reporter
from dsl.source import SourceFiles
from muster.language_tests import Runner, collect
from tests.conftest import ROOT
from tests.test_doc_examples import fences

PAGE = ROOT / "docs" / "language.md"
CONTEXT = re.compile(r"<!--\s*mst-context:\s*(\S+)\s*-->")
NO_CHECK = re.compile(r"<!--\s*mst-no-check:\s*(\S.*?)\s*-->")
# The fence words after `mst`: the first says how the block is checked.
MODES = {"no-check", "fragment"}
# Files parsed once for every block: the contexts share the series.
PARSED: ParseCache = {}


@dataclass(frozen=True)
class Example:
    """A ```mst block of the guide, with the context it is checked in."""

    line: int  # of the opening fence, 1-based
    words: tuple[str, ...]  # the fence's words after `mst`
    body: str
    context: str | None  # a ruleset path from the project root
    reason: str | None  # from `<!-- mst-no-check: … -->`

    @property
    def where(self) -> str:
        return f"{PAGE.relative_to(ROOT)}:{self.line}"

    @property
    def mode(self) -> str:
        return self.words[0] if self.words else "declarations"


def examples(text: str) -> list[Example]:
    """The page's ```mst blocks, each with the context and reason written before it."""
    lines = text.splitlines()
    found: list[Example] = []
    context, last = None, 0
    for fence, _adjacent in fences(text):
        before = "\n".join(lines[last : fence.line - 1])
        last = fence.line + fence.body.count("\n")
        contexts = CONTEXT.findall(before)
        context = contexts[-1] if contexts else context
        if fence.info[:1] != ["mst"]:
            continue
        reason = NO_CHECK.search(before)
        words = tuple(fence.info[1:])
        found.append(Example(fence.line, words, fence.body, context, reason and reason.group(1)))
    return found


def page_examples() -> list[Example]:
    return examples(PAGE.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- contexts


@cache
def context_files(context: str) -> tuple[Path, tuple[ast.File, ...]]:
    """A context battle's entry file and its files, parsed once."""
    entry = resolve_ruleset(ROOT / context)
    reporter = Reporter(SourceFiles())
    loaded = load(entry, reporter, PARSED)
    reporter.check()
    return entry, loaded.files


def key(decl: ast.Decl) -> tuple[str, str] | None:
    """What a declaration stands in for: its kind and name (a procedure or a
    phase by its name), an unnamed one by its kind (the map), a list extended;
    None for an import or a patch."""
    if isinstance(decl, ast.Entity):
        return decl.kind, decl.ident
    if isinstance(decl, ast.Procedure):
        return "procedure", decl.name
    if isinstance(decl, ast.Define | ast.Rule):
        return type(decl).__name__, decl.name
    if isinstance(decl, ast.ExtendList):
        return f"extend {decl.kind}", decl.name
    return None


def patched_steps(decl: ast.Extend) -> set[str]:
    return {p.step.name for p in decl.patches if p.step is not None}


def stands_in(new: ast.Decl, old: ast.Decl) -> bool:
    """Whether a declaration of the block stands in for one of the context."""
    if isinstance(new, ast.Extend) and isinstance(old, ast.Extend):
        return new.procedure == old.procedure and bool(patched_steps(new) & patched_steps(old))
    return key(old) is not None and key(new) == key(old)


def replaced(
    decls: tuple[ast.Decl, ...], block: list[ast.Decl], placed: set[int]
) -> tuple[ast.Decl, ...]:
    """The context's declarations with the block's in place of those they stand
    in for (in rule switches too, so that they keep their switch and order);
    `placed` collects the block's declarations placed so."""
    out: list[ast.Decl] = []
    for d in decls:
        standing = [i for i, b in enumerate(block) if stands_in(b, d)]
        if standing:
            out += [block[i] for i in standing if i not in placed]
            placed.update(standing)
        elif isinstance(d, ast.Rule):
            out.append(dataclasses.replace(d, decls=replaced(d.decls, block, placed)))
        else:
            out.append(d)
    return tuple(out)


# ---------------------------------------------------------------- checking


def wrapped(example: Example) -> tuple[str, int]:
    """The text to check and the line of the guide its first line is."""
    if example.mode != "fragment":
        return example.body, example.line + 1
    procedure = example.words[1]
    steps = re.sub(r"^(\s*)step (\w+)", r"\1replace \2 step \2", example.body, flags=re.M)
    return f"extend procedure {procedure} {{\n{steps}}}\n", example.line


def guide_lines(message: str, name: str, first: int) -> str:
    """The checker's messages with the block's file:line read as the guide's lines."""
    where = re.compile(rf"{re.escape(name)}:(\d+)")
    return where.sub(lambda m: f"{PAGE.relative_to(ROOT)}:{first + int(m.group(1)) - 1}", message)


def check_example(example: Example, tmp: Path) -> None:
    """The block checks in its context; AssertionError with the checker's messages."""
    assert example.context, f"{example.where}: no <!-- mst-context: PATH --> before it"
    entry, files = context_files(example.context)
    text, first = wrapped(example)
    path = entry.parent / f"language.md-{example.line}.mst"
    sources = SourceFiles()
    reporter = Reporter(sources)
    try:
        loaded = load(path, reporter, PARSED, overlay={path: text})
        reporter.check()
        block = loaded.files[-1]
        if any(isinstance(d, ast.Entity) and d.kind == "test" for d in block.decls):
            run_tests(example, entry, files, tmp)
            return
        placed: set[int] = set()
        merged = [
            dataclasses.replace(f, decls=replaced(f.decls, list(block.decls), placed))
            for f in files
        ]
        known = {f.path for f in files}
        merged += [f for f in loaded.files[:-1] if f.path not in known]
        rest = tuple(d for i, d in enumerate(block.decls) if i not in placed)
        merged.append(dataclasses.replace(block, decls=rest))
        compile_loaded(Loaded(entry, tuple(merged), entry.parent), reporter)
    except CompileError as e:
        message = guide_lines(str(e), display_name(path), first)
        raise AssertionError(
            f"{example.where}: the example does not check in {example.context}:\n{message}"
        ) from None


def run_tests(example: Example, entry: Path, files: tuple[ast.File, ...], tmp: Path) -> None:
    """A block of language tests, collected (its names checked) and run in the
    context battle by `muster test`'s own code; raises `CompileError` or
    AssertionError with the first failure."""
    reporter = Reporter(SourceFiles())
    rules = compile_loaded(Loaded(entry, files, entry.parent), reporter)
    path = tmp / f"language.md-{example.line}.mst"
    path.write_text(example.body, encoding="utf-8")
    tests = collect([path], rules, reporter)
    name = display_name(path)
    try:
        reporter.check()
    except CompileError as e:
        raise AssertionError(guide_lines(str(e), name, example.line + 1)) from None
    runner = Runner(rules)
    failures = [o.failure for o in map(runner.run, tests) if o.failure]
    assert not failures, guide_lines("\n".join(failures), name, example.line + 1)


# ---------------------------------------------------------------- the tests


def is_test(example: Example) -> bool:
    return re.match(r"\s*test\b", example.body) is not None


def example_params() -> list:
    """The guide's examples; a language test is slow (it builds its battle's engine)."""
    return [
        pytest.param(e, id=f"line {e.line}", marks=[pytest.mark.slow] if is_test(e) else [])
        for e in page_examples()
    ]


@pytest.mark.parametrize("example", example_params())
def test_example_checks(example: Example, tmp_path: Path) -> None:
    assert set(example.words[:1]) <= MODES, f"{example.where}: unknown fence words {example.words}"
    assert (example.mode == "fragment") == (len(example.words) == 2), (
        f"{example.where}: `mst fragment PROCEDURE`, the procedure and no other word"
    )
    if example.mode == "no-check":
        assert example.reason, f"{example.where}: no-check, but no <!-- mst-no-check: REASON -->"
        return
    check_example(example, tmp_path)
