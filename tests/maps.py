"""Hand-made test maps: a `map` declaration on the base TEC of data/maps/common.mst.

Tests write each map in the rule language, a few lines long, and compile it
as a designer's ruleset would be compiled.
"""

from __future__ import annotations

from pathlib import Path

from compiler.build import load_game
from compiler.check import compile_ruleset
from compiler.map.board import build_board
from compiler.map.los import LosModel
from compiler.map.model import MapModel
from engine.game import Game
from engine.rules import BoardSpec

MAPS = Path(__file__).parent / "data" / "maps"
COMMON = MAPS / "common.mst"


def write_map(
    folder: Path, *lines: str, columns: str = "1..9", rows: str = "1..9", shifted: str = "even"
) -> Path:
    """A ruleset file with the base TEC and a map of these lines (default terrain clear)."""
    body = "\n".join(f"    {line}" for line in lines)
    text = (
        f'import "{COMMON}"\n\n'
        'map "Test map" {\n'
        f"    columns {columns}\n    rows {rows}\n    shifted_columns {shifted}\n"
        f"    default clear\n    los_range 4\n{body}\n}}\n"
    )
    path = folder / "map.mst"
    path.write_text(text, encoding="utf-8")
    return path


def model(folder: Path, *lines: str, **grid: str) -> MapModel:
    rules, _sources = compile_ruleset(write_map(folder, *lines, **grid))
    return MapModel(rules)


def board(folder: Path, *lines: str, **grid: str) -> tuple[MapModel, BoardSpec]:
    m = model(folder, *lines, **grid)
    return m, build_board(m.rules, m)


def los_model(folder: Path, *lines: str, **grid: str) -> LosModel:
    return LosModel(model(folder, *lines, **grid))


def game(folder: Path, *lines: str, **grid: str) -> Game:
    return load_game(write_map(folder, *lines, **grid))
