"""Diagnostics: every error with its span, collected and reported together.

Modelled on mypy's error collector: passes report into a `Reporter` and keep
going; the compiler stops only between passes, when errors were reported.
Error codes are named constants so tests assert the code, not the wording.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.source import SourceFiles, Span


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    description: str


SYNTAX = ErrorCode("syntax", "The text does not follow the grammar of the rule language")
UNKNOWN_NAME = ErrorCode("unknown-name", "A name that no declaration defines")
DUPLICATE = ErrorCode("duplicate", "A name declared twice without `override`")
BAD_IDENT = ErrorCode("bad-identifier", "An identifier with characters the language forbids")
BAD_VALUE = ErrorCode("bad-value", "A property value of the wrong kind or out of range")
MISSING = ErrorCode("missing", "A required property or declaration is absent")
UNKNOWN_PROPERTY = ErrorCode("unknown-property", "A property this kind of declaration lacks")
TYPE = ErrorCode("type", "An expression of the wrong type")
BAD_HEX = ErrorCode("bad-hex", "A hex label outside the map or malformed")
IMPORT = ErrorCode("import", "An import that cannot be resolved")
PATCH = ErrorCode("patch", "A procedure patch that names no step")
PROVENANCE = ErrorCode("provenance", "A citation or provisional mark that is malformed")
TABLE = ErrorCode("table", "A die-roll table with gaps, overlaps or ragged rows")

# Warnings: what is probably a slip. `muster check` shows them; they stop nothing.
NO_MORALE = ErrorCode("no-morale", "A combat unit declared without a morale rating")
SLOPE_ELEVATION = ErrorCode(
    "slope-elevation", "A slope whose up-slope hex is lower than the hex below it"
)
UNUSED = ErrorCode("unused", "A value declared in the battle's own files and never used")
UNREACHABLE = ErrorCode(
    "unreachable", "A victory condition that needs a turn after the scenario's last"
)
ENTRY_NOT_READ = ErrorCode(
    "entry-not-read",
    "A unit's `enters` that a scenario with its own set-up and no reinforcements never reads",
)

SEVERITY_ERROR = "error"
SEVERITY_WARNING = "warning"
SEVERITY_NOTE = "note"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    span: Span
    code: ErrorCode
    message: str
    severity: str = SEVERITY_ERROR
    notes: tuple[str, ...] = field(default=())

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.file, self.span.line, self.span.column, self.message)


class CompileError(Exception):
    """Raised between passes when errors were reported; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic], sources: SourceFiles) -> None:
        self.diagnostics = diagnostics
        self.sources = sources
        super().__init__(render_all(diagnostics, sources))


class Reporter:
    """Collects diagnostics; `check()` raises once if any error was reported."""

    def __init__(self, sources: SourceFiles) -> None:
        self.sources = sources
        self._diagnostics: list[Diagnostic] = []

    def error(self, span: Span, code: ErrorCode, message: str, *notes: str) -> None:
        self._diagnostics.append(Diagnostic(span, code, message, SEVERITY_ERROR, notes))

    def warning(self, span: Span, code: ErrorCode, message: str, *notes: str) -> None:
        """Something that is probably a slip; reported, but the compile goes on."""
        self._diagnostics.append(Diagnostic(span, code, message, SEVERITY_WARNING, notes))

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == SEVERITY_WARNING]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        unique = {(d.sort_key(), d.code.code): d for d in self._diagnostics}
        return [unique[k] for k in sorted(unique)]

    def has_errors(self) -> bool:
        return any(d.severity == SEVERITY_ERROR for d in self._diagnostics)

    def check(self) -> None:
        if self.has_errors():
            raise CompileError(self.diagnostics, self.sources)


def render(d: Diagnostic, sources: SourceFiles) -> str:
    """`file:line:col: error: message [code]`, then the source line and a caret."""
    out = [f"{d.span}: {d.severity}: {d.message}  [{d.code.code}]"]
    text = sources.line(d.span.file, d.span.line)
    if text is not None:
        out.append("    " + text.expandtabs())
        prefix = text[: max(d.span.column - 1, 0)].expandtabs()
        out.append("    " + " " * len(prefix) + "^" + "~" * (_width(d.span) - 1))
    out.extend(f"    note: {n}" for n in d.notes)
    return "\n".join(out)


def _width(span: Span) -> int:
    """How many characters the caret line underlines: the span on its first line, at least one."""
    if span.end_line == span.line and span.end_column > span.column:
        return span.end_column - span.column
    return 1


def render_all(diagnostics: list[Diagnostic], sources: SourceFiles) -> str:
    body = "\n".join(render(d, sources) for d in diagnostics)
    n = sum(1 for d in diagnostics if d.severity == SEVERITY_ERROR)
    w = sum(1 for d in diagnostics if d.severity == SEVERITY_WARNING)
    warned = f" and {_counted(w, 'warning')}" if w else ""
    return f"{body}\nFound {_counted(n, 'error')}{warned}."


def _counted(n: int, noun: str) -> str:
    """`1 error`, `2 errors`."""
    return f"{n} {noun}{'s' if n != 1 else ''}"


def did_you_mean(name: str, candidates: list[str] | set[str]) -> str | None:
    """The closest candidate name, for "did you mean" notes."""
    import difflib

    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return close[0] if close else None


def hint_note(hint: str | None) -> list[str]:
    """The "did you mean" note for a hint from `did_you_mean`, or none."""
    return [f"did you mean {hint!r}?"] if hint else []
