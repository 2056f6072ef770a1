"""The rule-file fuzzer: mutated copies of the shipped rule files, each checked.

    .venv/bin/python -m tools.fuzz_rules --mutants 10000

Copies the shipped rulesets to a scratch folder and, one mutant at a time,
edits one file of a battle or of the series it imports (`mutate_rules`:
numbers made odd, names swapped, lines deleted, repeated or swapped, text
cut, punctuation and keywords dropped in, bytes flipped) and checks the
battle in-process as `muster check` does. The contract (docs/reliability.md):

- the check passes, or raises `CompileError` whose every error names a file
  of the ruleset and a line of it (1 up to one past its last line);
- nothing else is raised (that would be exit 3, "a bug in Muster");
- no check takes longer than `--slow` seconds.

The regression seeds (`RULE_SEEDS`) run first: fixed edits that once broke
the contract (issue 30). Prints the mutants, their outcomes and every break
once, with the mutant's text kept under the scratch folder.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from compiler.check import check_ruleset
from compiler.load import SHIPPED
from dsl.diagnostics import SEVERITY_ERROR, CompileError
from tools.mutations import mutate_text

# Battles, with the share of mutants each gets: the training battle checks
# fastest and imports the whole series, so most mutants go there.
BATTLES = {"training": 6, "newtown": 2, "monmouth": 2}
ODD_NUMBERS = ("0", "-1", "1", "65535", "4294967296", "1" * 40, "1.5", "0x10", "")
PUNCTUATION = [*"{}()[]:,.\"'#-+*/<>=!|&;", "..", "//", "\\", "\t", "\n"]
KEYWORDS = (
    "import", "ruleset", "side", "unit", "leader", "terrain", "hexside", "map", "table",
    "procedure", "step", "scenario", "when", "if", "else", "override", "patch", "let",
    "roll", "for", "each", "provisional", "true", "false", "none", "rows", "columns",
)  # fmt: skip


class ContractBreak(AssertionError):
    """A mutant the checker mishandled: a crash, an error without its place, or a stall."""


def _numbers(text: str) -> list[re.Match[str]]:
    return list(re.finditer(r"(?<![\w.])\d+(?![\w])", text))


def _words(text: str) -> list[re.Match[str]]:
    return list(re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _replace(text: str, m: re.Match[str], new: str) -> str:
    return text[: m.start()] + new + text[m.end() :]


def odd_number(rng: random.Random, text: str) -> str:
    found = _numbers(text)
    return _replace(text, rng.choice(found), rng.choice(ODD_NUMBERS)) if found else text


def swapped_name(rng: random.Random, text: str) -> str:
    found = _words(text)
    if not found:
        return text
    new = rng.choice(found).group() if rng.random() < 0.8 else rng.choice(KEYWORDS)
    return _replace(text, rng.choice(found), new)


def line_edit(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    how = rng.randrange(3)
    if how == 0:
        del lines[i]
    elif how == 1:
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def cut(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    if rng.random() < 0.5:
        return text[:i]
    return text[:i] + text[i + rng.randrange(1, 40) :]


def dropped_in(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    new = rng.choice(PUNCTUATION) if rng.random() < 0.6 else f" {rng.choice(KEYWORDS)} "
    return text[:i] + new + text[i:]


def flipped_bytes(rng: random.Random, text: str) -> str:
    raw = text.encode("utf-8", "surrogateescape")  # an earlier edit may have flipped bytes
    return mutate_text(rng, raw).decode("utf-8", "surrogateescape")


EDITS: tuple[Callable[[random.Random, str], str], ...] = (
    odd_number,
    odd_number,
    swapped_name,
    swapped_name,
    line_edit,
    line_edit,
    cut,
    dropped_in,
    dropped_in,
    flipped_bytes,
)


def mutate_rules(rng: random.Random, text: str) -> str:
    """One to three random edits of a rule file's text."""
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        text = rng.choice(EDITS)(rng, text)
    return text


def import_of_a_long_name(text: str) -> str:
    return f'import "{"a" * 10_000}.mst"\n' + text


def cut_before_its_ruleset_line(text: str) -> str:
    at = text.find("ruleset ")
    return text[:at] if at > 0 else ""


def rows_beyond_any_map(text: str) -> str:
    return re.sub(r"rows\s+\d+\s*\.\.\s*\d+", "rows 1..4294967296", text, count=1)


# (file of the training battle, edit): each once broke the contract (issue 30).
RULE_SEEDS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("ruleset.mst", import_of_a_long_name),
    ("ruleset.mst", cut_before_its_ruleset_line),
    ("battle.mst", rows_beyond_any_map),
    ("battle.mst", cut_before_its_ruleset_line),
)


@dataclass
class Tally:
    outcomes: Counter = field(default_factory=Counter)
    by_battle: Counter = field(default_factory=Counter)
    breaks: Counter = field(default_factory=Counter)
    first_seen: dict[str, str] = field(default_factory=dict)
    slowest: float = 0.0
    seconds: float = 0.0

    def fail(self, what: str, where: str) -> None:
        self.breaks[what] += 1
        self.first_seen.setdefault(what, where)


def placed(e: CompileError, root: Path) -> list[str]:
    """The errors of `e` that name no file of the ruleset under `root` or no line
    of it (1 up to one past its last). Lines are counted on disk: a file that is
    not UTF-8 is not among the checker's sources, yet its error has a place."""
    bad = []
    for d in e.diagnostics:
        if d.severity != SEVERITY_ERROR:
            continue
        path = Path(d.span.file)
        inside = path.is_file() and path.resolve().is_relative_to(root.resolve())
        lines = path.read_bytes().count(b"\n") + 1 if inside else -1
        if not 1 <= d.span.line <= lines + 1:
            bad.append(f"{d.span}: {d.message[:80]}")
    return bad


def check_mutant(entry: Path, root: Path, slow: float, tally: Tally) -> str:
    """Check the battle at `entry` as it now stands: "ok", "refused" or a break."""
    started = time.process_time()
    try:
        check_ruleset(entry)
        outcome = "ok"
    except CompileError as e:
        bad = placed(e, root)
        if bad:
            raise ContractBreak(f"an error without its place: {bad[0]}") from e
        outcome = "refused"
    finally:
        took = time.process_time() - started
        tally.seconds += took
        tally.slowest = max(tally.slowest, took)
    if took > slow:
        raise ContractBreak(f"the check took {took:.1f} s")
    return outcome


class Scratch:
    """A copy of the shipped rulesets where one file at a time is mutated."""

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(SHIPPED, root / "rulesets")
        self.files = {
            battle: sorted((root / "rulesets" / battle).glob("*.mst"))
            + sorted((root / "rulesets" / "series").glob("*.mst"))
            for battle in BATTLES
        }

    def entry(self, battle: str) -> Path:
        return self.root / "rulesets" / battle / "ruleset.mst"

    def try_edit(self, path: Path, new: str, run: Callable[[], str], keep: Path) -> str:
        """Write `new` over `path`, run the check, put the file back; a break
        keeps the mutant as `keep`."""
        old = path.read_bytes()
        path.write_bytes(new.encode("utf-8", "surrogateescape"))
        try:
            return run()
        except Exception:
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, keep)
            raise
        finally:
            path.write_bytes(old)


def fuzz(scratch: Scratch, mutants: int, seed: int, slow: float, keep: Path) -> Tally:
    tally = Tally()
    rng = random.Random(seed)
    for i, (name, edit) in enumerate(RULE_SEEDS):
        path = scratch.root / "rulesets" / "training" / name
        new = edit(path.read_text(encoding="utf-8"))
        try_one(scratch, tally, "seeds", i, "training", path, new, slow, keep)
    weights = list(BATTLES.values())
    for i in range(mutants):
        battle = rng.choices(list(BATTLES), weights)[0]
        path = rng.choice(scratch.files[battle])
        new = mutate_rules(rng, path.read_text(encoding="utf-8"))
        try_one(scratch, tally, "mutants", i, battle, path, new, slow, keep)
        tally.by_battle[battle] += 1
    return tally


def try_one(
    scratch: Scratch,
    tally: Tally,
    kind: str,
    i: int,
    battle: str,
    path: Path,
    new: str,
    slow: float,
    keep: Path,
) -> None:
    where = f"{kind} {i}: {battle}, {path.parent.name}/{path.name}"
    run = lambda: check_mutant(scratch.entry(battle), scratch.root, slow, tally)  # noqa: E731
    try:
        outcome = scratch.try_edit(path, new, run, keep / f"{kind}-{i}-{path.name}")
        tally.outcomes[f"{kind} {outcome}"] += 1
    except Exception as e:  # every exception is a break, counted and shown once
        tally.outcomes[f"{kind} broke"] += 1
        cause = "".join(traceback.format_exception(e, limit=-3))[-600:]
        tally.fail(f"{type(e).__name__}: {e}"[:200], f"{where}\n{cause}")


def report(tally: Tally, wall: float) -> str:
    done = sum(tally.outcomes.values())
    out = [
        f"checked {done} rule-file mutants in {wall / 60:.1f} minutes "
        f"({tally.seconds:.0f} s of CPU in the checker, slowest {tally.slowest:.2f} s)",
        *(f"  {k:20} {v}" for k, v in sorted(tally.outcomes.items())),
        "  by battle: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.by_battle.items())),
        f"  contract breaks {sum(tally.breaks.values())}",
    ]
    out += [
        f"    {n}× {what}\n      first: {tally.first_seen[what]}"
        for what, n in tally.breaks.most_common()
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tools.fuzz_rules", description=__doc__.split("\n")[0])
    p.add_argument("--mutants", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--slow", type=float, default=10.0, help="seconds of CPU a check may take")
    p.add_argument("--keep", type=Path, default=Path("fuzz-rules-breaks"))
    args = p.parse_args(argv)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="muster-fuzz-rules-") as tmp:
        tally = fuzz(Scratch(Path(tmp)), args.mutants, args.seed, args.slow, args.keep)
    print(report(tally, time.monotonic() - start))
    return 1 if tally.breaks else 0


if __name__ == "__main__":
    sys.exit(main())
