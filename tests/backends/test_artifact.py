"""The generated engine's shape: compact, no copies, named for the rules, imports only `engine/`."""

from __future__ import annotations

import ast
import re
from collections import Counter

import pytest

from compiler.check import compile_ruleset
from compiler.map.board import build_board
from engine.board_data import FILE, BoardDataError, board_from_text, board_text
from tests.conftest import ROOT, SHIPPED_BATTLES

# Lines of each committed `rules.py` at the commit before the redesign (3f287ed).
BEFORE = {"newtown": 17280, "monmouth": 13592, "training": 1169}
STANDARD = {"__future__", "fractions", "typing"}
# A compiled function's first line names the rule-file line it came from.
WHERE = re.compile(r"^def \w+\(.*\):  # '[^']+\.mst:\d+'")


def source(battle: str, file: str = "rules.py") -> str:
    return (ROOT / "generated" / battle / file).read_text(encoding="utf-8")


def functions(battle: str) -> list[ast.FunctionDef]:
    tree = ast.parse(source(battle))
    return [f for f in tree.body if isinstance(f, ast.FunctionDef)]


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_the_artifact_is_at_most_a_third_of_what_it_was(battle):
    for file in ("rules.py", "__init__.py"):
        assert (ROOT / "generated" / battle / file).is_file()
    lines = source(battle).count("\n")
    assert 3 * lines <= BEFORE[battle], f"{battle}: {lines} lines, over {BEFORE[battle] // 3}"


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_no_line_is_longer_than_200_characters(battle):
    for file in ("rules.py", "__init__.py"):
        long = [i for i, line in enumerate(source(battle, file).splitlines(), 1) if len(line) > 200]
        assert not long, f"generated/{battle}/{file}: lines {long[:10]} are over 200 characters"


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_no_function_body_is_written_twice(battle):
    bodies = Counter(tuple(ast.dump(s) for s in f.body) for f in functions(battle))
    assert len(bodies) > 20
    assert [n for n in bodies.values() if n > 1] == []


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_every_function_is_named_for_where_it_comes_from(battle):
    lines = source(battle).splitlines()
    for f in functions(battle):
        assert not re.fullmatch(r"f\d+", f.name)
        assert "__" in f.name, f.name  # define__NAME, PROCEDURE__STEP__ROLE, trigger__NAME__…
        assert WHERE.match(lines[f.lineno - 1]), lines[f.lineno - 1]


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_no_hex_list_is_pasted_into_an_expression(battle):
    """Zones and other sets of hexes are module constants (`ZONE_*`, `HEXES_*`)."""
    pasted = []
    for f in functions(battle):
        for node in ast.walk(f):
            ints = isinstance(node, ast.Tuple) and all(
                isinstance(x, ast.Constant) and type(x.value) is int for x in node.elts
            )
            if ints and len(node.elts) >= 4:
                pasted.append(f"{f.name}: {ast.unparse(node)[:60]}")
    assert pasted == []
    constants = re.findall(r"^(ZONE_\w+|HEXES_\d+) = frozenset\(", source(battle), re.M)
    assert constants and len(constants) == len(set(constants))


def test_a_zone_read_in_a_rule_is_its_constant():
    """Newtown's herd is driven along a zone: the define names it, as a set and as a list."""
    text = source("newtown")
    herd = text[text.index("def define__herd_goal") :].split("\n\n", 1)[0]
    assert re.search(r" in (ZONE_\w+|HEXES_\d+)\)", herd)
    assert re.search(r"(ZONE_\w+|HEXES_\d+)_LIST", herd)


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_generated_packages_import_only_the_engine(battle):
    for file in ("rules.py", "__init__.py"):
        for node in ast.walk(ast.parse(source(battle, file))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top == "engine" or top in STANDARD, f"{battle}/{file} imports {name}"


def test_the_header_says_what_is_where():
    head = source("training").split("\nfrom ", 1)[0]
    for part in ("UNIT_*", "ZONE_*", "define__NAME", "RULES", "board.json", "--code PROCEDURE"):
        assert part in head
    # The idiom of the code: the state, the bindings, queries and effects, parameters, members.
    for part in ("`s` the game state", "`b`", "`q`, `e`", "`a_NAME`", "`e0`", "SIDE__*", "`Label`"):
        assert part in head


# ---------------------------------------------------------------- the board file


def test_the_board_file_gives_back_the_board_the_map_model_built():
    rules = compile_ruleset(ROOT / "rulesets" / "training")[0]
    board = build_board(rules)
    text = board_text(board)
    assert board_from_text(text, board.title, board.places, board.zones) == board
    # One line per hex after the head: a one-hex edit changes lines a reviewer can read.
    hexes = text.split('"hexes": [\n', 1)[1].splitlines()[:-1]
    assert len(hexes) == len(board.labels)
    for line, label in zip(hexes, board.labels, strict=True):
        assert line.lstrip().startswith(f'["{label}",')


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_each_committed_board_file_reads_as_its_package_board(battle):
    import importlib

    pkg = importlib.import_module(f"generated.{battle}")
    board = pkg.RULES.board
    assert board_text(board) == source(battle, FILE)
    assert board.labels[0] == f"{board.grid[0]:02d}{board.grid[2]:02d}"


def test_a_board_file_of_another_format_is_refused():
    text = source("training", FILE).replace("muster.board/1", "muster.board/0")
    with pytest.raises(BoardDataError, match="rebuild"):
        board_from_text(text, "", {}, {})
    rows = source("training", FILE).replace('["0101",', '["0199",')
    with pytest.raises(BoardDataError, match="not its grid's"):
        board_from_text(rows, "", {}, {})


# ---------------------------------------------------------------- names kept


# Expressions that hold a unit, side, hex, status or terrain number.
INDEXED = re.compile(
    r"s\.unit_status\[.*\]|UNIT_SIDE\[.*\]|q\.(side|terrain|hex_of)\(.*\)"
    r"|b\['(unit|side|hex|u)'\]|a_(u|unit|side|hex)"
)
JUMPS = {
    "Jump": "target",
    "JumpIfNot": "target",
    "JumpUnlessSwitch": "target",
    "JumpIfEmpty": "end",
}


def _bare_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _negated_int(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and _bare_int(node.operand)


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_units_sides_and_statuses_are_compared_by_name(battle):
    """`u != UNIT__RED_GUARD`, `s.unit_status[u] == ON_MAP`: never a bare number."""
    found = []
    for f in functions(battle):
        for node in ast.walk(f):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                texts = [ast.unparse(x) for x in sides]
                numbers = [_bare_int(x) or _negated_int(x) for x in sides]
                if any(numbers) and any(INDEXED.fullmatch(t) for t in texts):
                    found.append(f"{f.name}: {ast.unparse(node)[:80]}")
            indexed = isinstance(node, ast.Subscript) and _bare_int(node.slice)
            if indexed and re.search(r"unit_status|unit_loss|^UNIT_", ast.unparse(node.value)):
                found.append(f"{f.name}: {ast.unparse(node)[:80]}")
    assert found == []


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_records_name_their_fields_and_jumps_name_labels(battle):
    tree = ast.parse(source(battle))
    records = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id[0].isupper()
    ]
    assert [ast.unparse(n)[:60] for n in records if len(n.args) > 3] == []
    jumps = [n for n in records if n.func.id in JUMPS]
    labels = {n.args[0].value for n in records if n.func.id == "Label"}
    assert jumps and labels
    for jump in jumps:
        target = jump.args[-1] if jump.args[-1:] and not jump.keywords else None
        target = target or next(k.value for k in jump.keywords if k.arg == JUMPS[jump.func.id])
        assert isinstance(target, ast.Constant) and target.value in labels, ast.unparse(jump)


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_each_named_number_is_written_once(battle):
    text = source(battle)
    names = re.findall(r"^([A-Z]+__\w+) = -?\d+$", text, re.M)
    assert names and len(names) == len(set(names))
    assert "UNIT_MOVEMENT = tuple(u.movement for u in UNITS)" in text  # not a second copy


@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_a_rule_is_found_by_its_section(battle):
    """A define's § is on its `def` line, a step's on the line where the step begins."""
    text = source(battle)
    code, sources = text.split("\n    sources={", 1)
    cited = re.findall(r"'define:(\w+)': \('(?:[^'\\]|\\.)*', '(§ [^']+)'", sources)
    assert cited or battle == "training"
    for name, cite in cited:
        line = re.search(rf"^(def define__{name}\(|define__{name} = ).*$", code, re.M)
        assert line and line.group(0).endswith(cite), name
    if battle == "monmouth":
        found = [line for line in code.splitlines() if line.endswith("§ series 16.1")]
        assert any("Label('step:adjust')" in line for line in found)
