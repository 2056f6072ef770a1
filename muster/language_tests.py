"""Tests written in the rule language: `test` declarations run by `muster test BATTLE`.

A battle's tests live in `rulesets/<battle>/tests/*.mst`, apart from its
rules (a test is not part of the game). Each `test` sets up a position in a
few lines, then acts and states what must hold, in order:

    test guard_steps "The guard steps toward the ford" § battle 2.1 {
        scenario skirmish                       # the game to play (default: the first)
        set turn 2                              # a variable; `set vp red 3` for one side's
        at 0404 the_guard                       # units on the map; the others are off it
        during movement_phase move side red     # where play stands (outermost first)
        act "0404 → 0403"                       # a legal action, by (part of) its text
        expect the_guard at 0403                # where a unit is
        expect not_legal "0403 → 0302"          # what may not be done now
    }

Position lines (`scenario`, `rule NAME on|off`, `start`, `set`, `at`,
`reduced`, `bag BAG MARKER…` (what a bag or hand holds; `none` for nothing),
`combat ATTACKER… against DEFENDER…` (a designated close combat, bound as
`combat 0`, `combat 1`, … in the order written), `during`) come first: without
`start` the board is empty but for the units placed with `at`, and with no
`during` play stands nowhere (an expectation reads the position as it is);
`start` begins from the scenario's opening instead. Each `during` frame but
the last stands just after its step's call of the procedure written next
(`during game turns`, `during game_turn end_of_turn`: the turn ends, the next
begins). Then, in order:
`act "text"` (the one legal action whose description is or contains the
text), `dice N …` (die rolls, one per chance node; a marker's name for the
marker drawn from a bag), and `expect …`:

- `expect VARIABLE [INDEX] VALUE` — a variable's value (`changed_terrain NAME…`:
  the terrain changes made, `NAME at PLACE` for one with places; `set
  changed_terrain NAME…` makes them);
- `expect DEFINE(ARG …) VALUE …` — what a `define` of the battle gives here
  (its arguments and value written as in a position: units, hexes and sides
  by name; a list of units or hexes as its names, in any order, or `none`);
- `expect legal "text"` / `expect not_legal "text"` — among the legal actions;
- `expect UNIT at HEX`, `expect UNIT steps_lost N`, `expect UNIT STATUS`
  (`eliminated`, `not_entered`, `map`, …);
- `expect drm LIST "label" AMOUNT [NAME VALUE …]` / `expect no_drm LIST "label" …`
  — a modifier of a DRM list with the bindings it is looked at with;
- `expect message "text"` — a line of the play log since the position was set;
- `expect bag BAG MARKER…` — what a bag holds (in any order; `none`: nothing);
- `expect column TABLE BINDING COLUMN` — the column of a table that a binding
  of play in progress points at: `expect column close_combat_table odds 1:2`;
- `expect roll` / `expect no_roll` — whether the game waits for a die roll
  (a rifle fire that misses rolls no damage);
- `expect winner SIDE`, `expect terminal`.

Names are checked against the battle before anything runs, each mistake with
its file:line:col; a failing expectation is reported at its line with what
the game holds instead.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from compiler import ir
from compiler.backends.engine_codegen import define_name, generate
from compiler.build import load_generated
from compiler.check import compile_ruleset
from compiler.check.maps import grid_of
from compiler.load import display_name, resolve_ruleset
from dsl import ast
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, Reporter, did_you_mean, hint_note
from dsl.parse import decode_source, parse_text
from dsl.source import SourceFiles
from engine import instructions as ins
from engine.describe import automatic_choices, marker_title
from engine.firing import Firing
from engine.information import HIDDEN, account_line, hidden_names
from engine.nodes import RULE_FAULTS
from engine.save import from_json, to_json
from engine.sources import rule_place_of
from engine.state import STATUS_NAMES, State
from engine.tables import modifiers_of
from engine.terrain_state import CHANGED_TERRAIN, made_entry

POSITION = ("scenario", "rule", "start", "set", "at", "reduced", "bag", "combat", "during")
PLAY = ("act", "dice", "expect")


@dataclass(frozen=True, slots=True)
class LanguageTest:
    name: str
    title: str
    file: str
    line: int
    decl: ast.Entity


@dataclass
class Outcome:
    test: LanguageTest
    failure: str | None = None  # "file:line: what went wrong"
    seconds: float = 0.0


@dataclass
class Run:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failure is not None]


class TestFailure(Exception):
    """An expectation that does not hold, or a line the game cannot do."""

    def __init__(self, line: ast.Line, message: str) -> None:
        super().__init__(f"{line.span.file}:{line.span.line}: {message}")


def test_folder(entry: Path) -> Path:
    return entry.parent / "tests"


def test_files(entry: Path) -> list[Path]:
    """A battle's test files: `tests/*.mst` in its folder."""
    return sorted(test_folder(entry).glob("*.mst"))


def _parsed(path: Path, reporter: Reporter) -> ast.File | None:
    """A test file's syntax tree; bytes that are not UTF-8 are reported at the first bad one."""
    name = display_name(path)
    text = decode_source(path.read_bytes(), name, reporter)
    return parse_text(text, name, reporter) if text is not None else None


def collect(files: list[Path], rules: ir.Ruleset, reporter: Reporter) -> list[LanguageTest]:
    """The `test` declarations of the files, their names checked against the battle."""
    tests: list[LanguageTest] = []
    seen: dict[str, str] = {}
    names = _Names(rules)
    for path in files:
        parsed = _parsed(path, reporter)
        if parsed is None:
            continue
        for decl in parsed.decls:
            if not isinstance(decl, ast.Entity) or decl.kind != "test" or not decl.name:
                reporter.error(decl.span, BAD_VALUE, "a test file holds `test NAME { … }` only")
                continue
            if decl.name in seen:
                reporter.error(
                    decl.name_span,
                    BAD_VALUE,
                    f"test {decl.name!r} is already declared",
                    f"the first is at {seen[decl.name]}",
                )
                continue
            seen[decl.name] = str(decl.span)
            names.check(decl, reporter)
            title = decl.title or decl.name
            tests.append(LanguageTest(decl.name, title, decl.span.file, decl.span.line, decl))
    return tests


class _Names:
    """What a test may name: the battle's units, sides, hexes, variables, lists, …"""

    def __init__(self, rules: ir.Ruleset) -> None:
        self.rules = rules
        self.units = {u.name for u in rules.units}
        self.sides = {s.name for s in rules.sides}
        self.variables = {v.name for v in rules.variables} | {"turn", "phasing", "vp"}
        if rules.terrain_changes:
            self.variables.add(CHANGED_TERRAIN)
        self.scenarios = {s.name for s in rules.scenarios}
        self.switches = {s.name for s in rules.switches}
        self.modifiers = {m.name for m in rules.modifiers}
        self.defines = {d.name: d for d in rules.defines}
        self.bags = {b.name for b in rules.bags}
        self.tables = {t.name for t in rules.tables}
        self.markers = {m.name for m in rules.markers} | {"none"}
        self.procedures = {p.name: {s.name for s in p.steps} for p in rules.procedures}
        grid = grid_of(rules.map) if rules.map else None
        self.hexes = {grid.label(c, r) for c, r in grid.offsets()} if grid else set()

    def check(self, decl: ast.Entity, r: Reporter) -> None:
        playing: ast.Line | None = None  # the first line that plays
        for line in decl.body.lines:
            if not isinstance(line, ast.Line) or line.key is None:
                r.error(line.span, BAD_VALUE, "a test line starts with what it does")
                continue
            key = line.key
            if key not in POSITION + PLAY:
                r.error(
                    line.span,
                    UNKNOWN_NAME,
                    f"a test has no line {key!r}",
                    *hint_note(did_you_mean(key, set(POSITION + PLAY))),
                    f"position: {', '.join(POSITION)}; then: {', '.join(PLAY)}",
                )
                continue
            if key in PLAY:
                playing = playing or line
            elif playing:
                r.error(
                    line.span,
                    BAD_VALUE,
                    f"`{key}` sets up the position: put it before `{playing.key}` "
                    f"(line {playing.span.line}), the first line that plays",
                )
            words = [_word(v) for v in line.values[1:]]
            if key == "scenario":
                self._known(r, line, words[:1], self.scenarios, "scenario")
            elif key == "rule":
                self._known(r, line, words[:1], self.switches, "rule")
            elif key == "set":
                self._known(r, line, words[:1], self.variables, "variable")
            elif key in ("at", "reduced"):
                if key == "at":
                    self._known(r, line, words[:1], self.hexes, "hex on the map")
                self._known(r, line, words[1:] if key == "at" else words, self.units, "unit")
            elif key == "combat":
                if "against" not in words or words[0] == "against" or words[-1] == "against":
                    r.error(line.span, BAD_VALUE, "write `combat ATTACKER… against DEFENDER…`")
                named = [w for w in words if w not in ("against", "diverted")]
                self._known(r, line, named, self.units, "unit")
            elif key == "bag":
                self._known(r, line, words[:1], self.bags, "bag")
                self._known(r, line, words[1:] or ["none"], self.markers, "marker")
            elif key == "during":
                proc = words[0] if words else ""
                self._known(r, line, [proc], set(self.procedures), "procedure")
                if proc in self.procedures and len(words) > 1:
                    self._known(r, line, words[1:2], self.procedures[proc], f"step of {proc}")
            elif key == "dice":
                drawn = [w for w in words if not w.lstrip("-").isdigit()]
                if drawn:
                    self._known(r, line, drawn, self.markers, "marker")
            elif key == "expect" and len(line.values) > 1 and isinstance(line.values[1], ast.Call):
                self._expect_define(r, line, line.values[1])
            elif key == "expect":
                self._expect(r, line, words)

    def _expect(self, r: Reporter, line: ast.Line, words: list[str]) -> None:
        if not words:
            r.error(line.span, BAD_VALUE, "write what to expect: `expect lee_relieved yes`")
            return
        head = words[0]
        if head in ("drm", "no_drm"):
            self._known(r, line, words[1:2], self.modifiers, "modifier list")
        elif head == "bag":
            self._known(r, line, words[1:2], self.bags, "bag")
            self._known(r, line, words[2:] or ["none"], self.markers, "marker")
        elif head == "column":
            self._known(r, line, words[1:2], self.tables, "table")
            if len(words) != 4:
                r.error(line.span, BAD_VALUE, "write `expect column TABLE BINDING COLUMN`")
        elif head in ("legal", "not_legal", "message", "terminal", "roll", "no_roll"):
            return
        elif head == "winner":
            self._known(r, line, words[1:2], self.sides, "side")
        elif head in self.sides and head not in self.variables:
            self._expect_sight(r, line, words)
        elif head not in self.units and head not in self.variables:
            r.error(
                line.span,
                UNKNOWN_NAME,
                f"nothing named {head!r} to expect of",
                *hint_note(did_you_mean(head, self.units | self.variables)),
            )

    def _expect_sight(self, r: Reporter, line: ast.Line, words: list[str]) -> None:
        """`expect SIDE sees|not_sees THING`: THING a unit, a hex, a marker, a variable,
        `message "text"` or a binding of the play in progress."""
        usage = (
            f"write `expect {words[0]} sees UNIT` (or not_sees): a unit, a hex, a marker, "
            "a variable (`VARIABLE INDEX`: one side's, unit's or hex's value of it), "
            'a binding, or `message "text"`'
        )
        if words[2:3] == ["message"]:
            wanted = {4}
        else:
            wanted = {3, 4} if set(words[2:3]) & self.variables else {3}
        if len(words) not in wanted or words[1] not in SIGHT:
            r.error(line.span, BAD_VALUE, usage)

    def _expect_define(self, r: Reporter, line: ast.Line, call: ast.Call) -> None:
        define = self.defines.get(call.func)
        if define is None:
            r.error(
                call.span,
                UNKNOWN_NAME,
                f"no define {call.func!r}",
                *hint_note(did_you_mean(call.func, set(self.defines))),
            )
            return
        if len(call.args) != len(define.params) or call.keywords:
            shape = ", ".join(f"{n}: {t}" for n, t in define.params)
            r.error(call.span, BAD_VALUE, f"{call.func} takes ({shape})")
            return
        for arg, (_name, kind) in zip(call.args, define.params, strict=True):
            known = {"unit": self.units, "hex": self.hexes, "side": self.sides}.get(kind)
            if known is not None:
                self._known(
                    r, line, [_word(arg)], known, "hex on the map" if kind == "hex" else kind
                )
        if len(line.values) < 3:
            r.error(line.span, BAD_VALUE, f"write the value {call.func}(…) must give")

    def _known(self, r: Reporter, line: ast.Line, words: list[str], known: set, what: str) -> None:
        if not words:
            r.error(line.span, BAD_VALUE, f"`{line.key}` needs a {what}")
        for w in words:
            if w not in known:
                r.error(
                    line.span,
                    UNKNOWN_NAME,
                    f"no {what} {w!r}",
                    *hint_note(did_you_mean(w, known)),
                )


def _word(v: ast.Expr) -> str:
    if isinstance(v, ast.Name):
        return v.id
    if isinstance(v, ast.Number):
        return v.text
    if isinstance(v, ast.String):
        return v.value
    if isinstance(v, ast.Odds):
        return f"{v.attack}:{v.defend}"
    if isinstance(v, ast.Unary) and isinstance(v.operand, ast.Number) and v.op == "-":
        return f"-{v.operand.text}"
    if isinstance(v, ast.Slash):  # a hexside, `0503/0602`
        return "/".join(_word(p) for p in v.parts)
    return ""


def _after_call(game: Any, outer: dict[str, Any], procedure: str) -> int | None:
    """Where a `during` frame stands while the procedure of the frame written
    after it runs: just after the step's (first) call of it, so that when the
    inner procedure returns the step goes on from there (`during game turns`,
    `during game_turn end_of_turn`: the turn ends and the next begins) rather
    than starting the step again. None when the step does not call it itself
    (frames between were left out): the frame then resumes at its step's start."""
    spec = game.rules.procedures[outer["procedure"]]
    if outer["step"] not in spec.steps:
        return None
    start = spec.steps[outer["step"]]
    end = min((pc for pc in spec.steps.values() if pc > start), default=len(spec.code))
    for pc in range(start, end):
        instruction = spec.code[pc]
        if isinstance(instruction, ins.Call) and instruction.procedure == procedure:
            return pc + 1
    return None


def _rules_fail(e: Exception) -> str:
    """A rule that fails in play (a table with no row for a value, a division by
    zero, …), as the test's failure: the error and the rule the engine notes it at
    (file:line:column)."""
    place = rule_place_of(e)
    return f"the rules fail here: {e}" + (f" (in the rules, {place})" if place else "")


def _waiting(s: State) -> str:
    """What the game waits for, in words: the game's end, or whose decision and its choices."""
    if s.is_terminal():
        return "the game is over"
    node = s.current_node()
    side = s.game.rules.sides[node.player].title
    shown = "; ".join(s.action_to_string(a) for a in s.legal_actions()[:12])
    return f"the game waits for the {side} player ({node.prompt or 'a decision'}): {shown}"


def _changes(words: list[str]) -> list[str]:
    """`set changed_terrain bridge_blown pontoon at 0503/0602 …` (or `none`): the terrain
    changes made, one with places at the place after `at` (saved as `pontoon@0503/0602`)."""
    out: list[str] = []
    rest = iter(words)
    for w in rest:
        if w == "at" and out:
            out[-1] = made_entry(out[-1], next(rest, ""))
        elif w != "none":
            out.append(w)
    return out


def _value(word: str) -> Any:
    """A written value as the save format holds it: a number, yes/no, none, or a name."""
    if word == "none":
        return None
    if word in ("yes", "true"):
        return True
    if word in ("no", "false"):
        return False
    if word.lstrip("+-").isdigit() and not (len(word) == 4 and word.isdigit()):
        return int(word)
    return word


class Runner:
    """Runs the tests of one battle, one compiled game per scenario and switches."""

    def __init__(self, rules: ir.Ruleset, count_firing: bool = False) -> None:
        self.rules = rules
        self.package = load_generated(generate(rules), rules.name)
        self.games: dict[str, Any] = {}
        # With `count_firing`, what each test made fire (engine/firing.py), by
        # test name: `muster soak` names the test that makes a rarity fire.
        self.count_firing = count_firing
        self.fired: dict[str, Counter[tuple[str, str]]] = {}
        self._firing: Firing | None = None

    def game(self, scenario: str | None, switches: dict[str, bool]) -> Any:
        key = json.dumps([scenario, sorted(switches.items())])
        if key not in self.games:
            params: dict[str, Any] = {"rules": switches} if switches else {}
            if scenario:
                params["scenario"] = scenario
            self.games[key] = self.package.load_game(params)
        game = self.games[key]
        if self.count_firing:
            self._firing = self._firing or Firing(game.rules)
            game.firing = self._firing
        return game

    def run(self, test: LanguageTest) -> Outcome:
        start = time.perf_counter()
        self._firing = None
        try:
            self._run(test.decl)
            failure = None
        except TestFailure as e:
            failure = str(e)
        if self._firing is not None:
            self.fired[test.name] = self._firing.counts
        return Outcome(test, failure, time.perf_counter() - start)

    def _run(self, decl: ast.Entity) -> None:
        lines = [ln for ln in decl.body.lines if isinstance(ln, ast.Line)]
        setup = [ln for ln in lines if ln.key in POSITION]
        play = [ln for ln in lines if ln.key in PLAY]
        scenario = next((_word(ln.values[1]) for ln in setup if ln.key == "scenario"), None)
        switches = {
            _word(ln.values[1]): _word(ln.values[2]) == "on" for ln in setup if ln.key == "rule"
        }
        game = self.game(scenario, switches)
        s = self.position(game, setup)
        messages: list[str] = []
        for line in play:
            try:
                self.play(s, line, messages)
            except RULE_FAULTS as e:
                raise TestFailure(line, _rules_fail(e)) from e

    def play(self, s: State, line: ast.Line, messages: list[str]) -> None:
        words = [_word(v) for v in line.values[1:]]
        if line.key == "act":
            self.act(s, line, words, messages)
        elif line.key == "dice":
            for w in words:
                self.roll(s, line, w, messages)
        elif len(line.values) > 1 and isinstance(line.values[1], ast.Call):
            self.expect_define(s, line, line.values[1], words[1:])
        else:
            self.expect(s, line, words, messages)

    def position(self, game: Any, setup: list[ast.Line]) -> State:
        """The position the setup lines describe: from an empty board (every unit
        off the map, the variables at their initial values), or with `start`
        from the scenario's opening, changed as the lines say."""
        start = any(ln.key == "start" for ln in setup)
        data = to_json(game.new_initial_state() if start else State(game))
        data.pop("rules_hash", None)
        frames: list[dict[str, Any]] = []
        for line in setup:
            words = [_word(v) for v in line.values[1:]]
            if line.key == "set":
                name, *rest = words
                if name == CHANGED_TERRAIN:
                    data["vars"][name] = _changes(rest)
                elif len(rest) == 2:
                    current = data["vars"].get(name)
                    if not isinstance(current, dict):
                        raise TestFailure(line, f"{name!r} has one value, not one per {rest[0]}")
                    current[rest[0]] = _value(rest[1])
                elif len(rest) == 1:
                    data["vars"][name] = _value(rest[0])
                else:
                    raise TestFailure(
                        line, "write `set VARIABLE VALUE` or `set VARIABLE SIDE VALUE`"
                    )
            elif line.key == "at":
                for unit in words[1:]:
                    data["units"][unit] = {"hex": words[0], "status": "map", "steps_lost": 0}
            elif line.key == "reduced":
                for unit in words:
                    data["units"][unit]["steps_lost"] = 1
            elif line.key == "bag":
                data["bags"][words[0]] = [m for m in words[1:] if m != "none"]
            elif line.key == "combat":
                data["combats"].append(self.combat(data, words))
            elif line.key == "during":
                proc, step, *pairs = [*words, ""][: max(2, len(words))]
                bindings = {pairs[i]: _value(pairs[i + 1]) for i in range(0, len(pairs) - 1, 2)}
                frames.append({"procedure": proc, "step": step, "bindings": bindings})
        if frames and frames[0]["procedure"] != "game":
            last = next(p for p in self.rules.procedures if p.name == "game").steps[-1].name
            frames.insert(0, {"procedure": "game", "step": last})
        for outer, inner in pairwise(frames):
            after = _after_call(game, outer, inner["procedure"])
            if after is not None:
                outer["pc"] = after
        if frames or not start:
            data["stack"] = frames
            data["terminal"] = not frames
        try:
            return from_json(game, data)
        except (ValueError, KeyError) as e:
            raise TestFailure(setup[-1] if setup else ast.Line(()), f"bad position: {e}") from e

    def combat(self, data: dict[str, Any], words: list[str]) -> dict[str, Any]:
        """A designated close combat as the save format holds it: the attackers
        and defenders named, fought from and into the hexes they stand in."""
        diverted = words[-1] == "diverted"
        words = words[:-1] if diverted else words
        cut = words.index("against")
        attackers, defenders = words[:cut], words[cut + 1 :]
        side = next(u.side for u in self.rules.units if u.name == attackers[0])

        def hexes(units: list[str]) -> list[str]:
            return sorted({data["units"][u]["hex"] for u in units})

        return {
            "side": side,
            "attackers": attackers,
            "defenders": defenders,
            "attack_hexes": hexes(attackers),
            "defense_hexes": hexes(defenders),
            "resolved": False,
            "diverted": diverted,
        }

    def act(self, s: State, line: ast.Line, words: list[str], messages: list[str]) -> None:
        if s.is_chance_node():
            raise TestFailure(line, "the game waits for a die roll here: write `dice N` first")
        text = words[0] if words else ""
        legal = {a: s.action_to_string(a) for a in s.legal_actions()}
        exact = [a for a, d in legal.items() if d == text]
        near = [a for a, d in legal.items() if text in d]
        chosen = exact or near
        if s.is_terminal():
            raise TestFailure(line, f"the game is over: nothing to act ({text!r})")
        if len(chosen) != 1:
            what = "no legal action is" if not chosen else f"{len(chosen)} legal actions are"
            shown = "; ".join(list(legal.values())[:12])
            made = "; ".join(automatic_choices(s))
            made = f" (made without asking, as the only option: {made})" if made else ""
            raise TestFailure(line, f"{what} {text!r}: the legal actions are {shown}{made}")
        s.apply_action(chosen[0])
        messages += s.take_messages()

    def roll(self, s: State, line: ast.Line, word: str, messages: list[str]) -> None:
        if not s.is_chance_node():
            raise TestFailure(line, f"no die is rolled here (dice {word}): {_waiting(s)}")
        outcomes = [a for a, _p in s.chance_outcomes()]
        tokens = s.game.tokens
        face = tokens.index(word) if word in tokens else _value(word)
        if face not in outcomes:
            raise TestFailure(line, f"the die cannot show {word} here")
        s.apply_action(face)
        messages += s.take_messages()

    def expect(self, s: State, line: ast.Line, words: list[str], messages: list[str]) -> None:
        head, rest = words[0], words[1:]
        game = s.game
        if head in ("legal", "not_legal"):
            texts = [s.action_to_string(a) for a in s.legal_actions()]
            found = any(rest[0] in t for t in texts)
            if found != (head == "legal"):
                shown = "; ".join(texts[:12]) or "none"
                raise TestFailure(line, f"expected {head} {rest[0]!r}; the legal actions: {shown}")
        elif head == "message":
            if not any(rest[0] in m for m in messages):
                raise TestFailure(line, f"no message {rest[0]!r}; the log: {messages[-8:]}")
        elif head == "terminal":
            if not s.is_terminal():
                raise TestFailure(line, "the game is not over")
        elif head in ("roll", "no_roll"):
            if s.is_chance_node() != (head == "roll"):
                shown = "; ".join(s.action_to_string(a) for a in s.legal_actions()[:12])
                waits = "a die roll waits" if s.is_chance_node() else "no die roll waits"
                raise TestFailure(line, f"{waits} here; the legal actions: {shown or 'none'}")
        elif head in game.side_by_name and rest[:1] and rest[0] in SIGHT:
            self.expect_sight(s, line, head, rest, messages)
        elif head == "winner":
            got = to_json(s)["winner"]
            if got != rest[0]:
                raise TestFailure(line, f"expected winner {rest[0]}, got {got}")
        elif head in ("drm", "no_drm"):
            self.expect_drm(s, line, head, rest)
        elif head == "column":
            self.expect_column(s, line, *rest)
        elif head == "bag":
            got = sorted(to_json(s)["bags"][rest[0]])
            if got != sorted(m for m in rest[1:] if m != "none"):
                raise TestFailure(line, f"bag {rest[0]} holds {' '.join(got) or 'nothing'}")
        elif head in game.unit_by_name:
            self.expect_unit(s, line, head, rest)
        else:
            got = to_json(s)["vars"].get(head)
            if head == CHANGED_TERRAIN:
                want = _changes(rest)
            elif len(rest) == 2 and isinstance(got, dict):
                got, want = got.get(rest[0]), _value(rest[1])
            else:
                want = _value(rest[0]) if rest else None
            if got != want:
                raise TestFailure(line, f"expected {' '.join(words)}, got {got!r}")

    def expect_sight(
        self, s: State, line: ast.Line, side: str, rest: list[str], messages: list[str]
    ) -> None:
        """What a side's observation (`State.observation`, what every surface is built
        from) shows: a unit, a hex's units, a marker, a variable, a binding, a message."""
        verb, thing = rest[0], rest[1]
        player = s.game.side_by_name[side]
        seen = s.observation(player)
        if thing == "message":
            hidden = _hidden_words(s, player)
            read = [account_line(m, player) for m in messages]
            sees = any(rest[2] in m and not any(w in m for w in hidden) for m in read)
            what = f"the message {rest[2]!r}"
        elif len(rest) == 3:
            saved, true = seen["vars"][thing], to_json(s)["vars"][thing]
            if not isinstance(true, dict) or rest[2] not in true:
                raise TestFailure(line, f"{thing} has no value for {rest[2]!r}")
            sees = isinstance(saved, dict) and saved[rest[2]] == true[rest[2]]
            what = f"the variable {thing} of {rest[2]}"
        else:
            sees, what = _sees(s, seen, player, thing, line)
        if sees != (verb == "sees"):
            told = "sees" if sees else "does not see"
            raise TestFailure(line, f"{s.game.rules.sides[player].title} {told} {what}")

    def expect_column(self, s: State, line: ast.Line, table: str, name: str, want: str) -> None:
        """The table column a binding of the play in progress holds (the odds of a combat)."""
        frame = next((f for f in reversed(s.stack) if name in f.b), None)
        if frame is None:
            raise TestFailure(line, f"nothing in play binds {name!r} here")
        columns = s.game.tables[s.game.rules.table_index(table)].columns
        got = columns[frame.b[name]]
        shown = f"{got[0]}:{got[1]}" if isinstance(got, tuple) else str(got)
        if shown != want:
            raise TestFailure(line, f"expected {table} column {want}, {name} is {shown}")

    def expect_unit(self, s: State, line: ast.Line, unit: str, rest: list[str]) -> None:
        saved = to_json(s)["units"][unit]
        if rest[:1] == ["at"]:
            if saved["hex"] != rest[1]:
                raise TestFailure(line, f"expected {unit} at {rest[1]}, it is at {saved['hex']}")
        elif rest[:1] == ["steps_lost"]:
            if saved["steps_lost"] != _value(rest[1]):
                raise TestFailure(line, f"{unit} has lost {saved['steps_lost']} steps")
        elif rest and rest[0] in STATUS_NAMES:
            if saved["status"] != rest[0]:
                raise TestFailure(line, f"expected {unit} {rest[0]}, it is {saved['status']}")
        else:
            raise TestFailure(line, f"write `expect {unit} at HEX`, `steps_lost N` or a status")

    def expect_drm(self, s: State, line: ast.Line, head: str, rest: list[str]) -> None:
        game = s.game
        name, label, *more = rest
        amount = _value(more[0]) if head == "drm" and more else None
        pairs = more[1:] if head == "drm" else more
        bindings = {pairs[i]: self.binding(game, pairs[i + 1]) for i in range(0, len(pairs) - 1, 2)}
        try:
            found = dict(modifiers_of(s, name, bindings))
        except KeyError as e:  # the list reads a name the line does not bind
            unbound = e.args[0] if e.args else None
            if not isinstance(unbound, str) or unbound in bindings:
                raise
            amount_word = f" {more[0]}" if head == "drm" and more else ""
            raise TestFailure(
                line,
                f"the list {name} reads {unbound!r}: bind it on the line, "
                f'`expect {head} {name} "{label}"{amount_word} {unbound} VALUE`',
            ) from e
        if head == "no_drm":
            if label in found:
                raise TestFailure(line, f"{label!r} applies ({found[label]:+d})")
        elif found.get(label) != amount:
            raise TestFailure(line, f"expected {label!r} {amount}, the list gives {found}")

    def expect_define(self, s: State, line: ast.Line, call: ast.Call, want: list[str]) -> None:
        """A define's value here, read back as names: `movement_allowance(the_guard) 6`."""
        game = s.game
        define = next(d for d in self.rules.defines if d.name == call.func)
        args = [self.binding(game, _word(a)) for a in call.args]
        compiled = getattr(self.package.rules, define_name(call.func))
        got = self.readable(game, compiled(s, *args), define)
        if isinstance(got, list):
            expected: Any = [] if want == ["none"] else sorted(want)
        else:
            expected = _value(want[0])
        if got != expected:
            shown = " ".join(got) if isinstance(got, list) else got
            raise TestFailure(line, f"expected {call.func}(…) {' '.join(want)}, it gives {shown}")

    def readable(self, game: Any, value: Any, define: ir.Define) -> Any:
        """An engine value as a test writes it: entities by name, lists sorted."""
        names = {
            "unit": list(game.unit_by_name),
            "side": list(game.side_by_name),
            "hex": list(game.hex_by_label),
        }
        kind = define.body.type
        single = kind.rstrip("s") if kind in ("units", "hexes", "sides") else kind
        single = "hex" if kind == "hexes" else single
        if single in names and not isinstance(value, bool):
            if isinstance(value, int):
                return names[single][value]
            return sorted(names[single][v] for v in value)
        return value

    def binding(self, game: Any, word: str) -> Any:
        """A written binding as the engine holds it: a unit, side or hex by its index."""
        for table in (game.unit_by_name, game.side_by_name, game.hex_by_label):
            if word in table:
                return table[word]
        return _value(word)


def run_tests(arg: str | Path, only: str | None = None) -> tuple[list[LanguageTest], Run]:
    """Compile a battle, collect its tests (raises `CompileError`), run them
    (only those whose name contains `only`, when given)."""
    rules, _ = compile_ruleset(arg)
    reporter = Reporter(SourceFiles())
    tests = collect(test_files(resolve_ruleset(arg)), rules, reporter)
    reporter.check()
    tests = [t for t in tests if only is None or only in t.name]
    runner = Runner(rules)
    return tests, Run([runner.run(t) for t in tests])


def fired_in_tests(rules: ir.Ruleset, arg: str | Path) -> dict[tuple[str, str], str]:
    """(kind, name) of each declaration the battle's tests make fire -> the first
    passing test that does (engine/firing.py): a rarity a soak never meets is
    still shown to play by a position written by hand."""
    reporter = Reporter(SourceFiles())
    tests = collect(test_files(resolve_ruleset(arg)), rules, reporter)
    reporter.check()
    runner = Runner(rules, count_firing=True)
    out: dict[tuple[str, str], str] = {}
    for t in tests:
        if runner.run(t).failure is None:
            for key in runner.fired.get(t.name, ()):
                out.setdefault(key, t.name)
    return out


# `expect SIDE sees THING` and its negation.
SIGHT = ("sees", "not_sees")


def _hidden_words(s: State, player: int) -> set[str]:
    """The names and titles `player` may not read in a message."""
    units = {u.name: u.title for u in s.game.rules.units}
    words = set()
    for name in hidden_names(s, player):
        words |= {name, units.get(name) or marker_title(s, name)}
    return words


def _sees(
    s: State, seen: dict[str, Any], player: int, thing: str, line: ast.Line
) -> tuple[bool, str]:
    """Whether the observation `seen` shows `thing` to `player`, and `thing` in words."""
    game = s.game
    if thing in game.unit_by_name:
        return thing in seen["units"], f"the unit {thing}"
    if thing in game.hex_by_label:
        return thing not in seen.get("concealed", {}), f"which units stand in {thing}"
    if thing in game.rules.markers:
        return thing not in hidden_names(s, player), f"the marker {thing}"
    if thing in seen["vars"]:
        return seen["vars"][thing] == to_json(s)["vars"][thing], f"the variable {thing}"
    frames = [f for f in seen["stack"] if thing in f["bindings"]]
    if not frames:
        raise TestFailure(line, f"nothing in play binds {thing!r} here")
    return frames[-1]["bindings"][thing] != HIDDEN, f"the choice {thing}"
