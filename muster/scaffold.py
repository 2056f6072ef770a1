"""`muster new NAME`: a new battle's folder that imports the series and checks clean.

The files come from the templates in `muster/new_battle/` (`$name` and
`$title` filled in): a ruleset, two sides with a unit and a leader each, a
small map, a turn track, victory conditions, a scenario, a first language
test in `tests/`, and `brief.txt`, the battle's own numbered sections that
the rule files cite (`§ NAME 1.2`).
Comments marked TODO point at what to fill in. Nothing is written when the
folder exists already, or when the name or title could not be written into
a rule file as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from engine.errors import BadInput

TEMPLATES = Path(__file__).with_name("new_battle")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class ScaffoldError(BadInput):
    """A battle that cannot be scaffolded as asked (reported without a traceback)."""


@dataclass(frozen=True, slots=True)
class Scaffold:
    folder: Path
    files: tuple[Path, ...]


def default_folder(name: str, cwd: Path) -> Path:
    """`rulesets/NAME` when the working directory holds rulesets, else `NAME`."""
    return cwd / "rulesets" / name if (cwd / "rulesets").is_dir() else cwd / name


def new_battle(name: str, folder: Path, title: str | None = None) -> Scaffold:
    """Write the scaffold of battle `name` into `folder` (which must not exist)."""
    if not NAME.match(name):
        raise ScaffoldError(
            f"{name!r} is not a battle name: lower-case letters, digits and '_', "
            "starting with a letter"
        )
    if name == "series":
        raise ScaffoldError("'series' is the series rules' own name; choose another")
    title = title or name.replace("_", " ").title()
    if any(c in title for c in '"\\\n\r'):
        raise ScaffoldError('a title cannot hold `"`, `\\` or a line break')
    if folder.exists():
        raise ScaffoldError(f"{folder} exists already; choose another folder or name")
    folder.mkdir(parents=True)
    written = []
    for template in sorted(TEMPLATES.rglob("*.tmpl")):
        target = folder / template.relative_to(TEMPLATES).with_suffix("")
        target.parent.mkdir(exist_ok=True)
        text = Template(template.read_text(encoding="utf-8")).substitute(name=name, title=title)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return Scaffold(folder, tuple(written))
