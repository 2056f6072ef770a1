"""Find and read the files of a ruleset, following imports.

A ruleset is a directory whose entry file is `ruleset.mst` (or a single
`.mst` file). `import "file.mst"` reads a file relative to the importer;
`import series` reads the ruleset directory `series` beside the importing
ruleset's directory (rulesets live side by side under `rulesets/`). Files
come back in dependency order, each once, so that later files can override
or patch what earlier ones declared.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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
        return _entry_of(p)
    if p.is_file():
        return p.resolve()
    shipped = SHIPPED / str(arg)
    if "/" not in str(arg) and shipped.is_dir():
        return resolve_ruleset(shipped)
    raise RulesetNotFound(f"no ruleset at {arg!r} (a directory, a .mst file or a shipped battle)")


def _entry_of(folder: Path) -> Path:
    """A ruleset directory's entry file: `ruleset.mst`, or its only `.mst` file."""
    entry = folder / ENTRY
    if entry.is_file():
        return entry.resolve()
    files = sorted(folder.glob("*.mst"))
    if len(files) == 1:
        return files[0].resolve()
    raise RulesetNotFound(f"{folder} has no {ENTRY}")


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
    loader = _Loader(reporter, cache, overlay)
    loader.visit(entry, None)
    return Loaded(entry, tuple(loader.order), entry.parent)


class _Loader:
    """A depth-first walk of the imports: each file once, after the files it imports."""

    def __init__(
        self, reporter: Reporter, cache: ParseCache | None, overlay: dict[Path, str] | None
    ) -> None:
        self.reporter = reporter
        self.cache = cache
        self.overlay = overlay or {}
        self.order: list[ast.File] = []
        self.done: set[Path] = set()
        self.active: list[Path] = []  # the files being read, the importer before the imported

    def visit(self, path: Path, span: Span | None) -> None:
        """Read a file and, first, what it imports; `span` is the import that names it."""
        if path in self.done:
            return
        if path in self.active:
            self._report_cycle(path, span)
            return
        parsed = self._parse(path, span)
        if parsed is None:
            return
        self.active.append(path)
        for decl in parsed.decls:
            if isinstance(decl, ast.Import):
                self._visit_import(path, decl)
        self.active.pop()
        self.done.add(path)
        self.order.append(parsed)

    def _report_cycle(self, path: Path, span: Span | None) -> None:
        if span is not None:
            cycle = " → ".join(display_name(p) for p in [*self.active, path])
            self.reporter.error(span, IMPORT, f"import cycle: {cycle}")

    def _parse(self, path: Path, span: Span | None) -> ast.File | None:
        """A file's syntax tree: from the cache when its text has not changed.

        A file that cannot be read is reported at the import that names it (the
        entry file at its start) and left for a later import to try again; one
        whose text cannot be decoded or parsed is done with.
        """
        name = display_name(path)
        try:
            text = self._text(path, name)
        except OSError as e:
            where = span or Span(name, 1, 1, 1, 1)
            self.reporter.error(where, IMPORT, f"cannot read {name}: {e.strerror or e}")
            return None
        parsed = self._parsed(path, name, text) if text is not None else None
        if parsed is None:
            self.done.add(path)
        return parsed

    def _text(self, path: Path, name: str) -> str | None:
        """The text of a file (the editor's buffer first); None when it is not text."""
        if path in self.overlay:
            return self.overlay[path]
        return decode_source(path.read_bytes(), name, self.reporter)

    def _parsed(self, path: Path, name: str, text: str) -> ast.File | None:
        hit = self.cache.get(path) if self.cache is not None else None
        if hit is not None and hit[0] == text:
            self.reporter.sources.add(name, text)
            return hit[1]
        parsed = _parse_once(text, name, self.reporter)
        if self.cache is not None and parsed is not None:
            self.cache[path] = (text, parsed)
        return parsed

    def _visit_import(self, importer: Path, decl: ast.Import) -> None:
        what = f"{'file' if decl.is_path else 'ruleset'} {_clipped(decl.target)!r}"
        try:
            target = _import_target(importer, decl)
        except (OSError, RuntimeError) as e:  # a name too long, a loop of symbolic links
            reason = getattr(e, "strerror", None) or str(e)
            self.reporter.error(decl.span, IMPORT, f"cannot look up {what}: {reason}")
            return
        if target is None:
            self.reporter.error(
                decl.span,
                IMPORT,
                f"cannot find {what}",
                "a file import is relative to the importing file; a ruleset import "
                "names a directory beside this ruleset's directory",
            )
            return
        self.visit(target, decl.span)


# The syntax trees of the files this process parsed last, by the name diagnostics
# give the file and its text: the same text under the same name parses to the
# same (immutable) tree, so a process that checks rulesets again and again (the
# tests, `muster test shipped`, a build of every battle, each importing the
# series) parses each file once. Parsing is most of a check's time.
# (The language server checks on a thread of its own: the trees kept are looked up
# and added under a lock, the parsing itself is not.)
_PARSED: OrderedDict[tuple[str, str], ast.File] = OrderedDict()
_PARSED_KEPT = 256  # files: every shipped ruleset's several times over
_PARSED_LOCK = threading.Lock()


def _parse_once(text: str, name: str, reporter: Reporter) -> ast.File | None:
    """`parse_text`, or the tree of the same text under the same name parsed before (a
    file that parses reports nothing: only its text is noted for diagnostics)."""
    key = (name, text)
    with _PARSED_LOCK:
        found = _PARSED.get(key)
        if found is not None:
            _PARSED.move_to_end(key)
    if found is not None:
        reporter.sources.add(name, text)
        return found
    parsed = parse_text(text, name, reporter)
    if parsed is not None:
        with _PARSED_LOCK:
            _PARSED[key] = parsed
            if len(_PARSED) > _PARSED_KEPT:
                _PARSED.popitem(last=False)
    return parsed


def _clipped(name: str, limit: int = 80) -> str:
    """An imported name as messages show it: a name of thousands of characters cut short."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _import_target(importer: Path, decl: ast.Import) -> Path | None:
    """The file an import names, or None when there is none; raises OSError when
    the name cannot be looked up at all (longer than the system allows)."""
    if decl.is_path:
        p = (importer.parent / decl.target).resolve()
        return p if p.is_file() else None
    # A ruleset by name: a sibling of the importing ruleset's directory, or shipped.
    for base in (importer.parent.parent, SHIPPED):
        candidate = base / decl.target / ENTRY
        if candidate.is_file():
            return candidate.resolve()
    return None
