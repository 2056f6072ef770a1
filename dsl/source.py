"""Source files and spans: where in the rule files a thing was written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file; lines and columns are 1-based, as Lark gives them."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


class SourceFiles:
    """The text of every file read in a compile, kept to draw carets under errors."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    @property
    def names(self) -> tuple[str, ...]:
        """The files read, in the order they were read."""
        return tuple(self._texts)

    def add(self, name: str, text: str) -> None:
        self._texts[name] = text

    def read(self, path: Path, name: str) -> str:
        text = path.read_text(encoding="utf-8")
        self.add(name, text)
        return text

    def line(self, name: str, line: int) -> str | None:
        text = self._texts.get(name)
        if text is None or line < 1:
            return None
        lines = text.splitlines()
        return lines[line - 1] if line <= len(lines) else None
