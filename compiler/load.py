"""Find and read the files of a ruleset, following imports.

A ruleset is a directory whose entry file is `ruleset.mst` (or a single
`.mst` file). `import "file.mst"` reads a file relative to the importer;
`import series` reads the ruleset directory `series` beside the importing
ruleset's directory (rulesets live side by side under `rulesets/`). Files
come back in dependency order, each once, so that later files can override
or patch what earlier ones declared.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dsl import ast
from dsl.diagnostics import IMPORT, Reporter
from dsl.parse import decode_source, parse_text
from dsl.source import Span

ENTRY = "ruleset.mst"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHIPPED = PROJECT_ROOT / "rulesets"


class RulesetNotFound(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Loaded:
    entry: Path
    files: tuple[ast.File, ...]
    root: Path  # directory that names shown in diagnostics are relative to


def resolve_ruleset(arg: str | Path) -> Path:
    """A path to a ruleset directory or file, or the name of a shipped battle."""
    p = Path(arg)
    if p.is_dir():
        entry = p / ENTRY
        if entry.is_file():
            return entry.resolve()
        files = sorted(p.glob("*.mst"))
        if len(files) == 1:
            return files[0].resolve()
        raise RulesetNotFound(f"{p} has no {ENTRY}")
    if p.is_file():
        return p.resolve()
    shipped = SHIPPED / str(arg)
    if "/" not in str(arg) and shipped.is_dir():
        return resolve_ruleset(shipped)
    raise RulesetNotFound(f"no ruleset at {arg!r} (a directory, a .mst file or a shipped battle)")


def display_name(path: Path) -> str:
    """Paths in diagnostics: relative to the working directory when possible."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


ParseCache = dict[Path, tuple[str, ast.File]]
"""Files already parsed, by path, with the text they were parsed from.

`muster check --watch` and the language server keep one across re-checks so
that only a file whose text changed is parsed again (the syntax tree is
immutable, so sharing it between checks is safe).
"""


def load(
    entry: Path,
    reporter: Reporter,
    cache: ParseCache | None = None,
    overlay: dict[Path, str] | None = None,
) -> Loaded:
    """Read `entry` and what it imports, in dependency order.

    `overlay` gives the text of files being edited (the editor's unsaved
    buffers), read in place of the disk.
    """
    order: list[ast.File] = []
    done: set[Path] = set()
    active: list[Path] = []

    def visit(path: Path, span: Span | None) -> None:
        if path in done:
            return
        if path in active:
            cycle = " → ".join(display_name(p) for p in [*active, path])
            if span is not None:
                reporter.error(span, IMPORT, f"import cycle: {cycle}")
            return
        name = display_name(path)
        if overlay is not None and path in overlay:
            text: str | None = overlay[path]
        else:
            try:
                data = path.read_bytes()
            except OSError as e:
                if span is not None:
                    reporter.error(span, IMPORT, f"cannot read {name}: {e.strerror}")
                return
            text = decode_source(data, name, reporter)
        hit = cache.get(path) if cache is not None else None
        if text is None:
            parsed: ast.File | None = None
        elif hit is not None and hit[0] == text:
            reporter.sources.add(name, text)
            parsed = hit[1]
        else:
            parsed = parse_text(text, name, reporter)
            if cache is not None and parsed is not None:
                cache[path] = (text, parsed)
        if parsed is None:
            done.add(path)
            return
        active.append(path)
        for decl in parsed.decls:
            if isinstance(decl, ast.Import):
                target = _import_target(path, decl)
                if target is None:
                    reporter.error(
                        decl.span,
                        IMPORT,
                        f"cannot find {'file' if decl.is_path else 'ruleset'} {decl.target!r}",
                        "a file import is relative to the importing file; a ruleset import "
                        "names a directory beside this ruleset's directory",
                    )
                    continue
                visit(target, decl.span)
        active.pop()
        done.add(path)
        order.append(parsed)

    visit(entry, None)
    return Loaded(entry, tuple(order), entry.parent)


def _import_target(importer: Path, decl: ast.Import) -> Path | None:
    if decl.is_path:
        p = (importer.parent / decl.target).resolve()
        return p if p.is_file() else None
    # A ruleset by name: a sibling of the importing ruleset's directory, or shipped.
    for base in (importer.parent.parent, SHIPPED):
        candidate = base / decl.target / ENTRY
        if candidate.is_file():
            return candidate.resolve()
    return None
