"""Every shell example of README.md and docs/*.md runs, or is checked, here.

As rustdoc tests the examples in its documentation, this file runs the
commands the documentation shows and compares what they print with what the
documentation says they print, so a stale claim fails the tests.

The conventions in the Markdown:

- Every fenced block names its language: ```sh for commands, ```text for what
  they print, ```mst for rule files, ```python, ```json, …. An untagged fence
  fails (`test_every_fence_names_its_language`): no command hides untagged.
- A ```sh block is run by bash (`set -e -o pipefail`) in a fresh temporary
  folder, in which `rulesets/` and `tests/` link to the checkout's and
  `muster` and `python` are this interpreter's, so commands read as typed at
  the project root. Its standard output is compared with the ```text block
  right after it (only blank lines between); a block with none must print
  nothing. In the output, the checkout's absolute path reads as the project
  root would print it: relative.
- In a ```text block, a line `...` stands for any number of lines (none
  too), and `...` within a line for any text on that line (doctest's
  ELLIPSIS).
- ```sh slow: run the same way, but marked `slow` (it takes over ~5 s).
- ```sh no-run: not run (it installs, serves until stopped, or plays for
  hours), but checked like every block before it runs: each `muster` command
  parses with the CLI's own argparse parser and names a ruleset that exists,
  scenarios, sides, units and bots it declares, and input files that exist;
  `pip install -e '.[x]'` names an extra of pyproject.toml, `.venv/bin/X` a
  script the install makes, `python -m M` a module that imports,
  `python -c CODE` code that compiles, `cd DIR` a folder of the checkout.
- The ```mst blocks of docs/language.md are checked by the rule checker
  (tests/test_language_examples.py), each in the battle named by the last
  `<!-- mst-context: PATH -->` comment before it: ```mst for declarations,
  ```mst fragment PROCEDURE for steps of a procedure shown alone, ```mst
  no-check (with `<!-- mst-no-check: REASON -->` before it) for an example
  partial on purpose.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import ROOT

# The module of the `muster` command: its `parser()` and `main()`.
CLI_MODULE = "muster.cli"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "shell"}
FLAGS = {"slow", "no-run"}
# What a run links into its temporary folder: what the examples read.
LINKED = ("rulesets", "tests")
FENCE = re.compile(r"^(\s*)(`{3,})(.*)$")
SEPARATORS = {"&&", "||", "|", ";", "&", "(", ")"}
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def cli_parser() -> argparse.ArgumentParser:
    """The `muster` command's own argparse parser."""
    return importlib.import_module(CLI_MODULE).parser()


@dataclass(frozen=True)
class Fence:
    line: int  # of the opening fence, 1-based
    info: list[str]  # the info string's words: language first
    body: str


@dataclass(frozen=True)
class Block:
    """A shell block, and the output the page says it prints (None: it shows none)."""

    path: str  # relative to the project root
    line: int
    flags: frozenset[str]
    text: str
    expected: str | None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def fences(text: str) -> Iterator[tuple[Fence, bool]]:
    """Each fenced block of a Markdown text, and whether only blank lines
    separate it from the block before."""
    lines = text.splitlines()
    i, last_end = 0, None
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, ticks = i, m.group(2)
        i += 1
        while i < len(lines) and lines[i].strip() != ticks:
            i += 1
        adjacent = last_end is not None and not "".join(lines[last_end + 1 : start]).strip()
        yield Fence(start + 1, m.group(3).split(), "\n".join(lines[start + 1 : i]) + "\n"), adjacent
        last_end = i
        i += 1


def shell_blocks(path: Path) -> list[Block]:
    """The page's shell blocks, each with the ```text block that follows it."""
    found: list[Block] = []
    pending: Fence | None = None
    name = str(path.relative_to(ROOT))
    for fence, adjacent in [*fences(path.read_text(encoding="utf-8")), (None, False)]:
        if pending is not None:
            shown = fence is not None and adjacent and fence.info[:1] == ["text"]
            flags = frozenset(pending.info[1:])
            expected = fence.body if shown else None
            found.append(Block(name, pending.line, flags, pending.body, expected))
            pending = None
        if fence is not None and fence.info[:1] and fence.info[0] in SHELL:
            pending = fence
    return found


def all_blocks() -> list[Block]:
    return [b for path in DOCS for b in shell_blocks(path)]


# ---------------------------------------------------------------- reading commands


def logical_lines(text: str) -> Iterator[str]:
    """The block's commands, a line each: continued lines and open quotes joined."""
    pending = ""
    for line in text.splitlines():
        pending += line + "\n"
        if pending.rstrip().endswith("\\"):
            continue
        try:
            shlex.split(pending, comments=True)
        except ValueError:  # a quote still open: the command goes on
            continue
        yield pending
        pending = ""
    assert not pending.strip(), f"unfinished command: {pending!r}"


def tokens(line: str) -> list[str]:
    """A command line's words and operators (`|`, `&&`, `>`, `()`, …)."""
    lex = shlex.shlex(line.replace("\\\n", " "), posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    return list(lex)


@dataclass
class Script:
    """What a block's commands so far have made: files written, shell functions, folder."""

    here: Path = ROOT
    written: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)


def simple_commands(words: list[str], script: Script) -> Iterator[list[str]]:
    """The simple commands of a tokenised line, without redirections; records a
    function a line defines (`name() { … }`) and the files `>` writes."""
    i, command = 0, []
    while i < len(words):
        word = words[i]
        if words[i + 1 : i + 2] == ["()"]:  # shlex reads `()` as one word
            script.functions.add(word)
            i += 2
            continue
        if word in (">", ">>"):
            script.written.add(words[i + 1])
            i += 2
            continue
        if word in SEPARATORS:
            if command:
                yield command
            command = []
        elif word not in ("{", "}"):
            command.append(word)
        i += 1
    if command:
        yield command


# ---------------------------------------------------------------- checking commands


def shared_dir() -> Path | None:
    """`shared/` beside the checkout or a folder above it; None in a plain clone."""
    for base in ROOT.parents:
        if (base / "shared").is_dir():
            return base / "shared"
    return None


def check_input(path: str, script: Script) -> None:
    """A file a command reads: made earlier in the block, or in the checkout;
    `../shared/…` only where `shared/` is present."""
    if path in script.written:
        return
    if path.startswith("../shared/"):
        shared = shared_dir()
        assert shared is None or (shared / path.removeprefix("../shared/")).is_file(), path
        return
    assert (script.here / path).exists(), f"{path}: no such file"


def ruleset_files(ruleset: str) -> list[Path]:
    """The rule files a ruleset argument names, with the series it imports."""
    folder = ROOT / ruleset if ("/" in ruleset or ruleset.endswith(".mst")) else None
    folder = folder or ROOT / "rulesets" / ruleset
    assert folder.exists(), f"no ruleset at {ruleset!r}"
    if folder.is_file():
        return [folder]
    assert (folder / "ruleset.mst").is_file(), f"{ruleset}: no ruleset.mst"
    return [*folder.rglob("*.mst"), *(ROOT / "rulesets" / "series").glob("*.mst")]


def check_declared(ruleset: str, kinds: str, name: str) -> None:
    """The ruleset (or the series it imports) declares `name` as one of `kinds`."""
    pattern = re.compile(rf"^\s*(?:override\s+)?(?:{kinds})\s+{re.escape(name)}\b", re.M)
    texts = (p.read_text(encoding="utf-8") for p in ruleset_files(ruleset))
    assert any(pattern.search(t) for t in texts), f"{ruleset} declares no {kinds} {name!r}"


def check_bots(text: str) -> None:
    from engine.bots.registry import check_spec

    for spec in text.split(","):
        check_spec(spec.strip())


# The files each command reads and writes, by the parser's attribute names.
READS = {"replay": ("log",), "coverage": ("rulebook", "soak"), "table": ("load", "replay")}
WRITES = ("log", "out", "report", "counts", "journal")
DECLARED = {"scenario": "scenario", "side": "side", "unit": "unit|leader|piece"}


def parse_muster(args: list[str]) -> argparse.Namespace:
    """The arguments as `muster` reads them; AssertionError with argparse's complaint."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return cli_parser().parse_args(args)
    except SystemExit:
        raise AssertionError(err.getvalue().strip().splitlines()[-1]) from None


def check_muster_files(ns: argparse.Namespace, script: Script) -> None:
    """The files a command reads exist (or an earlier command wrote them); note those
    it writes."""
    reads = READS.get(ns.command, ())
    for attr in reads:
        if getattr(ns, attr, None):
            check_input(getattr(ns, attr), script)
    for attr in WRITES:
        if attr not in reads and isinstance(getattr(ns, attr, None), str):
            script.written.add(getattr(ns, attr))


def check_muster_names(ns: argparse.Namespace) -> None:
    """The ruleset exists and declares the scenario, side and unit named; the bots exist."""
    ruleset = getattr(ns, "ruleset", None)
    if ruleset and ruleset != "shipped":
        ruleset_files(ruleset)
        for attr, kinds in DECLARED.items():
            value = getattr(ns, attr, None)
            if value and value != "both":
                check_declared(ruleset, kinds, value)
    for attr in ("bots", "bot"):
        if isinstance(getattr(ns, attr, None), str):
            check_bots(getattr(ns, attr))


def check_muster(args: list[str], script: Script) -> None:
    """A `muster` command: parsed by the real parser, its names and files exist."""
    ns = parse_muster(args)
    check_muster_files(ns, script)
    check_muster_names(ns)


def check_pip(args: list[str], script: Script) -> None:
    """`pip install -e .` or `-e '.[extra]'`: this project, with extras it declares."""
    assert args[:2] == ["install", "-e"], f"pip {shlex.join(args)}: the docs install -e only"
    extras = PYPROJECT["project"]["optional-dependencies"]
    for arg in args[2:]:
        m = re.fullmatch(r"\.(?:\[([\w,]+)\])?", arg)
        assert m, f"pip install {arg}: not this project"
        for extra in filter(None, (m.group(1) or "").split(",")):
            assert extra in extras, f"pyproject.toml has no extra {extra!r}"


def check_python(args: list[str], script: Script) -> None:
    """`python -m MODULE` imports; `python -c CODE` compiles; `python FILE.py --opt`
    runs a script of the checkout that reads that option."""
    if args[:1] == ["-m"]:
        assert importlib.util.find_spec(args[1]) is not None, f"no module {args[1]}"
    elif args[:1] == ["-c"]:
        compile(args[1], "<python -c>", "exec")
    elif args[:1] and args[0].endswith(".py"):
        path = script.here / args[0]
        assert path.is_file(), f"{args[0]}: no such script"
        source = path.read_text(encoding="utf-8")
        for option in {a.split("=")[0] for a in args[1:] if a.startswith("--")}:
            assert f'"{option}"' in source, f"{args[0]} reads no option {option}"
    else:
        raise AssertionError(f"python {shlex.join(args)}: only -m, -c and scripts are checked")


def check_nice(args: list[str], script: Script) -> None:
    """`nice COMMAND`: the command it runs."""
    check_command(args, script)


def check_cd(args: list[str], script: Script) -> None:
    script.here = script.here / args[0]
    assert script.here.is_dir(), f"cd {args[0]}: no such folder"


def check_npm(args: list[str], script: Script) -> None:
    assert (script.here / "package.json").is_file(), f"{script.here}: no package.json"


def check_code(args: list[str], script: Script) -> None:
    """`code --install-extension X.vsix`: the name `vsce package` gives the extension here."""
    package = json.loads((script.here / "package.json").read_text(encoding="utf-8"))
    assert args == ["--install-extension", f"{package['name']}-{package['version']}.vsix"], args


def check_nothing(args: list[str], script: Script) -> None:
    """A standard tool whose arguments say nothing about the project."""


CHECKS: dict[str, Callable[[list[str], Script], None]] = {
    "muster": check_muster,
    "pip": check_pip,
    "python": check_python,
    "python3": check_python,
    "cd": check_cd,
    "npm": check_npm,
    "npx": check_npm,
    "code": check_code,
    "nice": check_nice,
    "head": check_nothing,
    "less": check_nothing,
}
SCRIPTS = {"pip", "python", "python3", *PYPROJECT["project"]["scripts"]}


def check_command(argv: list[str], script: Script) -> None:
    program = argv[0]
    if program.startswith(".venv/bin/"):
        program = program.removeprefix(".venv/bin/")
        assert program in SCRIPTS, f"{argv[0]}: the install makes no such script"
    if program in script.functions:
        return
    assert program in CHECKS, f"{program}: the docs' test does not know this command"
    if program in ("python", "python3") and argv[1:3] == ["-m", "venv"]:
        return
    CHECKS[program](argv[1:], script)


def check_block(block: Block) -> None:
    """Every command of the block is checked; raises AssertionError naming the first wrong."""
    assert block.flags <= FLAGS, f"{block.where}: unknown fence words {set(block.flags - FLAGS)}"
    assert not (block.flags >= FLAGS), f"{block.where}: slow or no-run, not both"
    assert not ("no-run" in block.flags and block.expected), (
        f"{block.where}: a no-run block shows output no test compares"
    )
    script = Script()
    for line in logical_lines(block.text):
        for argv in simple_commands(tokens(line), script):
            try:
                check_command(argv, script)
            except (AssertionError, ValueError) as e:
                raise AssertionError(f"{block.where}: {shlex.join(argv)[:120]}: {e}") from None


# ---------------------------------------------------------------- running blocks


def run(text: str, folder: Path) -> str:
    """Run shell commands as typed at the project root; their standard output."""
    bin_dir, work = folder / "bin", folder / "work"
    bin_dir.mkdir()
    work.mkdir()
    shims = {"muster": f"-m {CLI_MODULE}", "python": "", "python3": ""}
    for name, args in shims.items():
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {args} "$@"\n')
        shim.chmod(0o755)
    for name in LINKED:
        (work / name).symlink_to(ROOT / name)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        ["bash", "-c", "set -e -o pipefail\n" + text],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"exit status {done.returncode}:\n{done.stderr[-3000:]}"
    out = done.stdout.replace(f"{work}/", "").replace(f"{ROOT}/", "")
    return "\n".join(line.rstrip() for line in out.splitlines()).rstrip("\n")


def pattern(expected: str) -> re.Pattern[str]:
    """The expected output as a regular expression: `...` lines and `...` in lines."""
    parts = []
    for line in expected.rstrip("\n").splitlines():
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(re.escape(line.rstrip()).replace(r"\.\.\.", "[^\n]*") + "\n")
    return re.compile("".join(parts))


def compare(expected: str | None, actual: str, where: str) -> None:
    want = (expected or "").rstrip("\n")
    got = actual + "\n" if actual else ""
    matched = pattern(want).fullmatch(got) if want else not got
    if matched:
        return
    diff = "\n".join(
        difflib.unified_diff(want.splitlines(), actual.splitlines(), "the docs", "the run", n=2)
    )
    raise AssertionError(f"{where}: the output is not what the docs show:\n{diff}")


# ---------------------------------------------------------------- the tests


def block_params() -> list:
    return [
        pytest.param(b, id=b.where, marks=[pytest.mark.slow] if "slow" in b.flags else [])
        for b in all_blocks()
    ]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_fence_names_its_language(path):
    untagged = [f.line for f, _ in fences(path.read_text(encoding="utf-8")) if not f.info]
    assert not untagged, (
        f"{path.relative_to(ROOT)}: fences at lines {untagged} name no language "
        "(sh, sh no-run, sh slow, text, mst, python, …)"
    )


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_command_hides_in_an_indented_block(path):
    """An indented code block is neither run nor checked: commands go in ```sh."""
    outside = re.sub(r"^(\s*)```.*?^\1```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    hidden = [
        line.strip()
        for line in re.findall(r"\n\n( {4,}\S[^\n]*)", outside)
        if line.split()[0] in {*CHECKS, "$"} or line.lstrip().startswith(".venv/")
    ]
    assert not hidden, f"{path.relative_to(ROOT)}: commands in indented blocks: {hidden}"


def test_the_docs_have_shell_blocks_to_run_and_to_check():
    blocks = all_blocks()
    assert any("no-run" in b.flags for b in blocks)
    assert sum("no-run" not in b.flags for b in blocks) >= 10


@pytest.mark.parametrize("block", block_params())
def test_shell_block(block, tmp_path):
    check_block(block)
    if "no-run" not in block.flags:
        compare(block.expected, run(block.text, tmp_path), block.where)


# ---------------------------------------------------------------- the test can fail


def test_a_misspelt_flag_fails():
    block = Block("x.md", 1, frozenset({"no-run"}), "muster play training --seeed 1\n", None)
    with pytest.raises(AssertionError, match="unrecognized arguments: --seeed"):
        check_block(block)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("muster check trainin\n", "no ruleset at 'trainin'"),
        ("muster play training --scenario skirmsh\n", "no scenario 'skirmsh'"),
        ("muster play training --bots random,eagre\n", "unknown bot 'eagre'"),
        ("muster replay nowhere.jsonl\n", "nowhere.jsonl: no such file"),
        ("pip install -e '.[tables]'\n", "no extra 'tables'"),
        ("python -m tests.no_such_module\n", "no module"),
        ("rm -rf build\n", "rm: the docs' test does not know"),
        ("nice python benchmarks/balance.py --gamez 4\n", "reads no option --gamez"),
    ],
)
def test_a_wrong_command_fails(text, message):
    block = Block("x.md", 1, frozenset({"no-run"}), text, None)
    with pytest.raises(AssertionError, match=message):
        check_block(block)


def test_a_file_made_earlier_in_the_block_may_be_read():
    text = "muster play training --log game.jsonl\nmuster replay game.jsonl\n"
    check_block(Block("x.md", 1, frozenset({"no-run"}), text, None))


def test_a_wrong_output_fails(tmp_path):
    text = "muster los training 0302 0802 --units 0503\n"
    with pytest.raises(AssertionError, match="not what the docs show"):
        compare("0302 → 0802, range 5: blocked\n...\n", run(text, tmp_path), "x.md:1")


def test_ellipsis_stands_for_lines_and_for_text_in_a_line():
    compare("a\n...\nd ... f\n", "a\nb\nc\nd e f", "x")
    compare("a\n...\nb\n", "a\nb", "x")
    with pytest.raises(AssertionError):
        compare("a\n...\nd\n", "a\nb\nc", "x")
    with pytest.raises(AssertionError):
        compare(None, "printed", "x")


def test_an_untagged_fence_and_an_unknown_fence_word_are_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```\nmuster check training\n```\n\n```sh norun\nmuster lsp\n```\n")
    assert [f.info for f, _ in fences(page.read_text())] == [[], ["sh", "norun"]]
    block = Block("page.md", 5, frozenset({"norun"}), "muster lsp\n", None)
    with pytest.raises(AssertionError, match="unknown fence words"):
        check_block(block)
