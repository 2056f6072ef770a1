"""A played game as a VASSAL log (`.vlog`): its commands encode as VASSAL's encoders write
them, designer text cannot break them, each action is one step, and the real VASSAL 3.7.26
steps through a whole log to the engine's final position."""

from __future__ import annotations

import base64
import html
import io
import re
import subprocess
import zipfile
from collections import Counter as Tally
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.backends.names import the
from compiler.backends.vassal import tracks
from compiler.backends.vassal.log_file import (
    AddPiece,
    ChangePiece,
    Chat,
    MovePiece,
    RemovePiece,
    chat_line,
    log_file,
    log_text,
)
from compiler.backends.vassal.pieces import Pieces, pieces_of
from compiler.backends.vassal.played_game import Counter, Look, PlayedGame, changes
from compiler.backends.vassal.sequence import text
from compiler.backends.vassal.traits import (
    BasicPiece,
    Key,
    Layer,
    Mask,
    Properties,
    Trait,
    piece_state,
)
from compiler.build import load_rules_and_game
from engine.effects import change_terrain, lose_step, set_at
from engine.play import certify, play_game, read_log, write_log
from engine.state import CAPTURED, ELIMINATED, NOT_ENTERED, ON_MAP, REVEALED
from muster.cli import main
from tests import vassal_view
from tests.backends.test_vassal import build_module
from tests.conftest import STEPS
from tests.vassal_decode import decode_piece, deobfuscate, split

THE_CROSSING = Path(__file__).parents[1] / "data" / "designer" / "the_crossing"
ESC = "\x1b"
CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
# Every delimiter of every level (/ ; tab ESC ,), a backslash, HTML and non-ASCII.
HOSTILE = "Bad/Name;with\ttab\x1bescape, comma \\back <b>&amp; é 漢 \\"


def commands_of(vlog: bytes) -> list[str]:
    """The file's top-level commands, decoded as VASSAL's GameModule does."""
    with zipfile.ZipFile(io.BytesIO(vlog)) as z:
        return split(deobfuscate(z.read("savedGame")), ESC)


def steps_of(vlog: bytes) -> list[list[str]]:
    """Each log entry's commands, each behind its `LOG\\t`."""
    commands = commands_of(vlog)
    entries = commands[commands.index("end_save") + 1 :]
    out = []
    for entry in entries:
        parts = split(entry, ESC)
        assert all(p.startswith("LOG\t") for p in parts), parts
        out.append([p.removeprefix("LOG\t") for p in parts])
    return out


def a_piece(name: str = "Red Guard") -> tuple[Trait, ...]:
    """A small piece: a mask, a flip layer, properties and its BasicPiece."""
    return (
        Mask(Key(77), "mask.png", "Conceal", "unit", style="I"),
        Layer("Flip", ("back.png",), ("+ (reduced)",), "Flip"),
        Properties((("Side", name),)),
        BasicPiece("front.png", name, 7),
    )


# ------------------------------------------------------------------ the commands


def test_each_command_reads_as_vassals_encoder_writes_it():
    """MovePiece: id, new map, x, y, piece under (null), old map, x, y, under, player;
    ChangePiece: id, new state, old state; RemovePiece: the id; chat behind CHAT."""
    move = split(MovePiece("12", "Map", 435, 604, "Tracks", 85, 119).text(), "/")
    assert move == ["M", "12", "Map", "435", "604", "null", "Tracks", "85", "119", "null", "Muster"]
    entering = split(MovePiece("12", "Map", 1, 2).text(), "/")
    assert entering[6:10] == ["null", "0", "0", "null"]
    assert split(ChangePiece("12", "a\tb", "c\td").text(), "/") == ["D", "12", "a\tb", "c\td"]
    assert RemovePiece("12").text() == "-/12"
    assert Chat("Red Guard loses a step.").text() == "CHAT* Red Guard loses a step."
    piece = decode_piece(AddPiece("12", a_piece()).text())
    assert piece.piece_id == "12" and piece.name == "Red Guard"
    assert [t.id for t in piece.traits] == ["obs", "emb2", "mark", "piece"]


def test_a_step_of_several_commands_is_one_log_entry():
    """The saved position first, then one `LOG\\t` entry per step; a step's commands are
    joined by ESC inside its entry, each behind its own `LOG\\t`."""
    start = ["begin_save", "+/1/stack/Map;1;2;@@0", "end_save"]
    steps = [[Chat("one"), MovePiece("1", "Map", 3, 4, "Map", 1, 2)], [RemovePiece("1")]]
    vlog = log_file(log_text(start, steps), b"<data/>", b"<data/>")
    assert commands_of(vlog)[:3] == start
    assert steps_of(vlog) == [
        ["CHAT* one", "M/1/Map/3/4/null/Map/1/2/null/Muster"],
        ["-/1"],
    ]
    with zipfile.ZipFile(io.BytesIO(vlog)) as z:
        assert z.namelist() == ["savedGame", "savedata", "moduledata"]
        assert z.read("savedGame").startswith(b"!VCSK")


@given(st.text())
def test_any_account_line_is_one_chat_line_that_reads_as_written(line):
    """Whatever the designer's words: one command, no control character left, HTML shown as
    text (entities), the words themselves unchanged."""
    vlog = log_file(log_text(["begin_save", "end_save"], [[Chat(line)]]), b"", b"")
    [[command]] = steps_of(vlog)
    assert command.startswith("CHAT* ")
    shown = command.removeprefix("CHAT* ")
    assert not re.search(r"[\x00-\x1f\x7f<>]", shown)
    assert html.unescape(shown).rstrip(" ") == CONTROL.sub(" ", line).strip()


def test_hostile_names_survive_every_command():
    """A unit name with the delimiters of every level, a backslash, HTML and non-ASCII
    decodes back to itself from its piece, its state change and a chat line naming it."""
    name = text(HOSTILE)  # (the module's own care for a trailing backslash)
    traits = a_piece(name)
    flipped = (traits[0], Layer("Flip", ("back.png",), ("+ (reduced)",), "Flip", level=1))
    flipped += traits[2:]
    old, new = piece_state(traits), piece_state(flipped)
    line = f"{HOSTILE} loses a step."
    steps = [[AddPiece("5", traits), ChangePiece("5", new, old), Chat(line)]]
    vlog = log_file(log_text(["begin_save", "end_save"], steps), b"", b"")
    [[add, change, chat]] = steps_of(vlog)
    piece = decode_piece(add)
    assert piece.name == name and piece.properties() == {"Side": name}
    assert split(change, "/") == ["D", "5", new, old]
    assert html.unescape(chat_line(line)) == "* " + CONTROL.sub(" ", line)
    assert chat == "CHAT" + chat_line(line)
    assert ESC not in chat and "<" not in chat


def test_a_piece_entering_play_is_added_off_the_maps_then_moved_onto_its_stack():
    counter = Counter("9", a_piece(), layers=(1,), mask=0)
    shown = Look(("Map", 10, 20), (-1,))
    add, move = changes(counter, Look(None, (-1,)), shown)
    assert isinstance(add, AddPiece) and isinstance(move, MovePiece)
    assert decode_piece(add.text()).state_of()[:3] == ["null", "0", "0"]
    assert (move.map, move.x, move.y, move.old_map) == ("Map", 10, 20, "null")
    assert changes(counter, shown, Look(None, (-1,))) == [RemovePiece("9")]
    assert changes(counter, shown, shown) == []


def test_a_flip_and_a_mask_change_only_those_traits_where_the_piece_stands():
    """The ChangePiece's old and new states differ in the flip layer and the mask alone;
    both put the piece where it was, and the move comes after."""
    counter = Counter("9", a_piece(), layers=(1,), mask=0)
    was = Look(("Map", 10, 20), (-1,))
    now = Look(("Map", 30, 40), (1,), "Red Army")
    change, move = changes(counter, was, now)
    assert isinstance(change, ChangePiece) and isinstance(move, MovePiece)
    pairs = zip(_states(change.new), _states(change.old), strict=True)
    diff = [i for i, (a, b) in enumerate(pairs) if a != b]
    assert diff == [0, 1]  # the mask (outermost) and the flip layer
    assert _states(change.new)[0].startswith("Red Army;")
    assert _states(change.new)[1] == "1" and _states(change.old)[1] == "-1"
    assert _states(change.new)[-1].split(";")[:3] == ["Map", "10", "20"]
    assert (move.x, move.y, move.old_x, move.old_y) == (30, 40, 10, 20)


def _states(state: str) -> list[str]:
    """A nested piece state, trait by trait (outermost first)."""
    out = []
    while True:
        parts = split(state, "\t")
        out.append(parts[0])
        if len(parts) == 1:
            return out
        state = parts[1]


# ------------------------------------------------------------------ a played game


def played(tmp_path: Path, battle: str, scenario: str, seed: int) -> tuple[Path, object]:
    """A seeded game of random bots, its log written; (the log, the game's record)."""
    _rules, game = load_rules_and_game(battle, {"scenario": scenario})
    record = play_game(game, ["random", "random"], seed)
    path = tmp_path / f"{battle}-{scenario}-{seed}.jsonl"
    write_log(record, str(path))
    return path, record


def test_a_game_is_one_step_per_action_after_an_opening_step(tmp_path, capsys):
    """`muster replay --vassal`: the opening step names the game; each action's step says
    the engine's account in chat (the action itself when the engine says nothing); the
    step loss flips Red Guard, the elimination sends Red Battery to its side's box."""
    log, record = played(tmp_path, "training", "skirmish", 121)
    out = tmp_path / "game.vlog"
    assert main(["replay", str(log), "--vassal", str(out)]) == 0
    assert f"VASSAL log {out}: {len(record.moves) + 1} steps" in capsys.readouterr().out
    vlog = out.read_bytes()
    steps = steps_of(vlog)
    assert len(steps) == len(record.moves) + 1
    assert steps[0][0].startswith("CHAT* The Skirmish at Miller's Ford — The Skirmish: ")
    assert "seed 121" in steps[0][0]
    assert all(s[0].startswith("CHAT* ") for s in steps)
    flip = next(s for s in steps if "CHAT* Red Guard loses a step." in s)
    [change] = [c for c in flip if c.startswith("D/")]
    _d, _pid, new, old = split(change, "/")
    flips = [(a, b) for a, b in zip(_states(new), _states(old), strict=True) if a != b]
    assert flips == [("1", "-1")]
    gone = next(s for s in steps if "CHAT* Red Battery is eliminated in 0505." in s)
    moves = [split(c, "/") for c in gone if c.startswith("M/")]
    rules, _game = load_rules_and_game("training")
    box = tracks.layout(rules).box("Red Army: Eliminated").centre
    assert ["Tracks", str(box[0]), str(box[1])] in [m[2:5] for m in moves]
    with zipfile.ZipFile(io.BytesIO(vlog)) as z:
        assert b"<name>The Skirmish at Miller's Ford</name>" in z.read("moduledata")
        assert b"Blue Army wins (marginal)" in z.read("savedata")


def test_the_turn_tracker_moves_with_the_turn_and_the_phase(tmp_path):
    """The opening position puts the Turn tracker on the game's first turn and phase; a
    step moves it exactly when the turn or the phase under way changes, to that turn and
    phase (the phase's place in the module's list), and no other step touches it."""
    log, _record = played(tmp_path, "training", "skirmish", 121)
    out = tmp_path / "game.vlog"
    assert main(["replay", str(log), "--vassal", str(out)]) == 0
    vlog = out.read_bytes()
    opening = commands_of(vlog)
    rules, game = load_rules_and_game("training", {"scenario": "skirmish"})
    order = {"movement_phase": 0, "close_combat_phase": 1}  # the module's list of phases
    assert [p.name for p in rules.procedures if p.kind == "phase"] == list(order)

    def tracker_at(turn: int, phase: int) -> str:
        # What VASSAL's TurnTracker.getState gives: the level stepped, then the Game
        # Turn level (turn; sub-level; loops; last turn; its phase level escaped
        # within it: phase; sub-level; first phase; each phase active).
        return f"TURNTurnTracker0\t0|{turn};0;true;2;{phase}\\;0\\;0\\;true,true"

    placed = [c for c in opening[: opening.index("end_save")] if c.startswith("TURN")]
    assert placed == [tracker_at(1, 0)]
    wanted: list[list[str]] = []
    shown = [(1, 0)]

    def watch(s, line, _messages):
        under_way = [order[f.proc] for f in s.stack if f.proc in order]
        now = (min(s.vars["turn"], 2), under_way[-1] if under_way else shown[-1][1])
        if line:  # (the start is the opening position, not a step)
            wanted.append([tracker_at(*now)] if now != shown[-1] else [])
        shown.append(now)

    certify(game, read_log(str(log)), watch)
    assert shown[1] == (1, 0)  # the game starts in the first turn's first phase
    moved = [[c for c in step if c.startswith("TURN")] for step in steps_of(vlog)[1:]]
    assert moved == wanted
    assert sum(map(len, moved)) >= 3  # the game goes through both phases and two turns


def test_an_action_the_engine_gives_no_account_of_is_said_in_words():
    """A step whose action the engine says nothing of shows the log's words for it, with
    the side that took it ("Dice" for a chance outcome); the table is left as it was."""
    rules, game = load_rules_and_game("training")
    s = game.new_initial_state()
    log = PlayedGame(rules, game, "a game")
    log.record(s, {}, s.take_messages())
    log.record(s, {"player": "red", "text": "pass"}, [])
    log.record(s, {"player": "chance", "text": "rolls 2"}, [])
    assert log.steps[1:] == [[Chat("Red Army: pass")], [Chat("Dice: rolls 2")]]


def test_each_step_lost_shows_the_next_face_of_a_three_step_unit():
    """The flip layer's level is the steps lost: the back, then the third step's face."""
    rules, game = load_rules_and_game(STEPS, {"scenario": "skirmish"})
    s = game.new_initial_state()
    log = PlayedGame(rules, game, "a game")
    log.record(s, {}, s.take_messages())
    grenadiers = game.unit_by_name["red_grenadiers"]
    levels = []
    for _ in range(2):
        lose_step(s, grenadiers)
        log.record(s, {"player": "red", "text": "loses a step"}, s.take_messages())
        [change] = [c for c in log.steps[-1] if isinstance(c, ChangePiece)]
        pairs = zip(_states(change.new), _states(change.old), strict=True)
        levels.append([(a, b) for a, b in pairs if a != b])
    assert levels == [[("1", "-1")], [("2", "1")]]


def test_bad_input_writes_no_log(tmp_path, capsys):
    """A corrupt or truncated game log, a log of other rules, a VASSAL log over the game's
    own log or in a folder that does not exist: a message, status 1, no file (not even a
    half-written one)."""
    log, _record = played(tmp_path, "training", "skirmish", 121)
    lines = log.read_text().splitlines()
    out = tmp_path / "out.vlog"
    cases = {
        "truncated": "\n".join(lines[:10]) + "\n",
        "corrupt": "\n".join([*lines[:5], '{"type": "move", "move": 5', *lines[6:]]) + "\n",
    }
    for name, content in cases.items():
        bad = tmp_path / f"{name}.jsonl"
        bad.write_text(content)
        assert main(["replay", str(bad), "--vassal", str(out)]) == 1
        assert "replay failed" in capsys.readouterr().err
    assert main(["replay", str(log), "--ruleset", "newtown", "--vassal", str(out)]) == 1
    assert "unknown scenario 'skirmish'" in capsys.readouterr().err  # (a Newtown has none)
    assert main(["replay", str(log), "--vassal", str(log)]) == 1
    assert "would overwrite the game's log" in capsys.readouterr().err
    nowhere = tmp_path / "no" / "such" / "folder" / "out.vlog"
    assert main(["replay", str(log), "--vassal", str(nowhere)]) == 1
    assert "No such file or directory" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if "vlog" in p.name) == []


# ------------------------------------------------------------------ in the real VASSAL


def harness_command(vmod: Path, vlog: Path, home: Path, view: int | None) -> list[str]:
    """`java StepLog.java` under xvfb-run, on vassal-check's classpath; skips where
    `../shared`, Java's compiler or a jar is absent."""
    if why := vassal_view.missing():
        pytest.skip(why)
    return vassal_view.harness("StepLog", home, vmod, vlog, *([view] if view is not None else []))


def test_terrain_and_face_down_markers_come_and_go_with_the_rules():
    """The Pontoon goes on the hexside the British chose when it is laid and moves when it
    is laid elsewhere; a marker placed on a hex by a secret variable comes onto that hex
    masked by its side, and is unmasked when the rules reveal the variable."""
    rules, game = load_rules_and_game(THE_CROSSING, {"scenario": "crossing"})
    s = game.new_initial_state()
    log = PlayedGame(rules, game, "a game")
    log.record(s, {}, s.take_messages())
    grid = log.grid

    def middle(*labels: str) -> list[str]:
        points = [grid.point(label) for label in labels]
        return ["Map", *(str(round(sum(p[i] for p in points) / 2)) for i in (0, 1))]

    change_terrain(s, "pontoon_laid", "0506/0606")
    log.record(s, {"player": "british", "text": "lay"}, s.take_messages())
    [added] = [c for c in log.steps[-1] if isinstance(c, AddPiece)]
    [moved] = [split(c.text(), "/") for c in log.steps[-1] if isinstance(c, MovePiece)]
    assert decode_piece(added.text()).name == "Pontoon"
    assert moved[1] == added.piece and moved[2:5] == middle("0506", "0606")
    change_terrain(s, "pontoon_laid", "0503/0602")
    log.record(s, {"player": "british", "text": "move it"}, s.take_messages())
    gone = [c.piece for c in log.steps[-1] if isinstance(c, RemovePiece)]
    assert gone == [added.piece], "one Pontoon piece per crossing: the old one is taken up"
    [moved] = [split(c.text(), "/") for c in log.steps[-1] if isinstance(c, MovePiece)]
    assert moved[2:5] == middle("0503", "0602")

    hexes = game.rules.board.labels
    set_at(s, "woods_marker", hexes.index("0806"), "ambush")
    log.record(s, {"player": "american", "text": "place"}, s.take_messages())
    [added] = [c for c in log.steps[-1] if isinstance(c, AddPiece)]
    piece = decode_piece(added.text())
    assert piece.name == "Ambush"
    [mask] = piece.trait("obs")
    assert mask.state.split(";")[0] == "American", "face down to the British"
    [moved] = [split(c.text(), "/") for c in log.steps[-1] if isinstance(c, MovePiece)]
    assert moved[2:5] == ["Map", *map(str, grid.point("0806"))]
    s.vars[REVEALED] = (*s.vars[REVEALED], "woods_marker")
    log.record(s, {"player": "british", "text": "discover"}, s.take_messages())
    [change] = [c for c in log.steps[-1] if isinstance(c, ChangePiece)]
    assert change.piece == added.piece
    assert _states(change.new)[0].split(";")[0] == "null", "revealed: the mask is off"


def views(out: str) -> dict[str, dict[str, tuple[str, str, object]]]:
    """Each view the harness printed: unit or marker name → (map, location, decoded piece).
    Cards are left out: VASSAL deals them into their decks from the module, as the rules
    fill the cups, and the log does not move them."""
    found: dict[str, dict[str, tuple[str, str, object]]] = {}
    current: dict[str, tuple[str, str, object]] = {}
    for line in out.splitlines():
        if line.startswith("VIEW "):
            current = found.setdefault(line, {})
        m = re.match(r"PIECE id=\S+ map=(.*?) location=(.*) piece=(\S+)$", line)
        if m:
            piece = decode_piece(base64.b64decode(m[3]).decode("utf-8"))
            if piece.properties().get("Kind") == "card":
                continue
            assert piece.name not in current, f"two pieces named {piece.name}"
            current[piece.name] = (m[1], m[2], piece)
    return found


def trackers(out: str) -> dict[str, tuple[str, str]]:
    """What the Turn tracker showed at each view the harness printed: (turn, phase)."""
    found: dict[str, tuple[str, str]] = {}
    heading = ""
    for line in out.splitlines():
        if line.startswith("VIEW "):
            heading = line
        m = re.match(r"TRACKER turn=(.*?) phase=(.*)$", line)
        if m:
            found[heading] = (m[1], m[2])
    return found


def expected(rules, game, s, pieces: Pieces) -> dict[str, tuple[str, str, dict]]:
    """Where the engine's position puts each unit and track marker, by VASSAL's location
    names, its layers (name → the level shown, 0 for off) and its mask. A named state's
    levels are its values but the first, in the order declared (disrupted 1, shattered 2)."""
    out = {}
    labels = game.rules.board.labels
    # The order states each counter carries in this scenario (`pieces`: the module's reading).
    states = {st.title: st for st in pieces.states}
    scenario = game.scenario.name if game.scenario else None
    variables = {v.name: v for v in rules.variables}
    hidden = {u for p in range(len(rules.sides)) for u in s.concealed_from(p)}
    for u in rules.units:
        i = game.unit_by_name[u.name]
        side = the(rules.sides, u.side)
        where = {
            ON_MAP: ("Map", labels[s.unit_hex[i]]),
            ELIMINATED: ("Tracks", f"{side.title}: Eliminated"),
            CAPTURED: ("Tracks", f"{side.title}: Captured"),
            NOT_ENTERED: ("Tracks", f"Turn {game.entries[i][0]}"),
        }.get(s.unit_status[i])
        if where is None:
            continue  # out of play: off the table
        layers = {"Flip": s.unit_loss[i]} if len(u.strengths) >= 2 else {}
        own = pieces.traits_in(scenario, u.name) if scenario else pieces.slot(u.name).traits
        for state in (states[t.name] for t in own if isinstance(t, Layer) and t.name in states):
            v, value = variables[state.variable], s.vars[state.variable][i]
            shown = [x for x in v.values if x != v.initial] if v.values else [True]
            layers[state.title] = shown.index(value) + 1 if value in shown else 0
        masked = side.title if i in hidden else "null"
        out[u.title] = (*where, {"layers": layers, "masked": masked})
    last = game.last_turn
    out["Game Turn marker"] = ("Tracks", f"Turn {min(s.vars['turn'], last)}", {})
    for side in rules.sides:
        vp = s.vars["vp"][game.side_by_name[side.name]]
        out[f"{side.short} Victory Points marker"] = (
            "Tracks",
            f"{side.short} Victory Points {vp}",
            {},
        )
    return out


def compare(view: dict, want: dict) -> list:
    """What VASSAL shows that the engine's position does not say."""
    wrong = []
    for name, (map_, where, look) in want.items():
        if name not in view:
            wrong.append((name, "missing"))
            continue
        got_map, got_where, piece = view[name]
        if (got_map, got_where) != (map_, where):
            wrong.append((name, (got_map, got_where), (map_, where)))
        # VASSAL keeps a layer that is off at minus its last level: any level below 1.
        layers = {t.fields[18]: max(int(t.state), 0) for t in piece.trait("emb2")}
        for layer, level in look.get("layers", {}).items():
            if layers.get(layer) != level:
                wrong.append((name, layer, layers.get(layer), level))
        for t in piece.trait("obs"):
            if t.state.split(";")[0] != look["masked"]:
                wrong.append((name, "mask", t.state, look["masked"]))
    extra = {n for n, v in view.items() if v[2].properties().get("Kind") in ("unit", "leader")}
    wrong += [(n, "not in play") for n in extra - set(want)]
    return wrong


GAMES = [
    ("training", "skirmish", 121),  # a step lost, a unit eliminated, victory points
    ("training", "night_march", 31),  # units set up by choice (added), a reinforcement, a loss
    ("newtown", "campaign", 9),  # order states, concealed stacks, eliminations, captures
]


@pytest.fixture(scope="module")
def module_files(tmp_path_factory) -> dict[str, Path]:
    """Each battle's module, built once."""
    folder = tmp_path_factory.mktemp("modules")
    out = {}
    for battle in {g[0] for g in GAMES}:
        out[battle] = folder / f"{battle}.vmod"
        out[battle].write_bytes(build_module(battle)[1])
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("battle", "scenario", "seed"), GAMES)
def test_the_real_vassal_steps_through_a_played_game_to_its_end(
    module_files, tmp_path, battle, scenario, seed
):
    """VASSAL 3.7.26 loads the `.vlog`, runs every step (one per action, and the opening
    one), shows the engine's account in its chat, and ends — as in the busiest position
    in between — with every unit where the engine has it (its hex, its entry turn's box,
    its side's Eliminated or Captured box; out of play, off the table), reduced, marked and
    masked as the engine says, and every track marker in its box."""
    log, record = played(tmp_path, battle, scenario, seed)
    vlog = tmp_path / "game.vlog"
    assert main(["replay", str(log), "--vassal", str(vlog)]) == 0
    rules, game = load_rules_and_game(battle, {"scenario": scenario})
    pieces = pieces_of(rules, tracks.layout(rules))  # the states each counter carries
    account: list[str] = []
    busiest: dict = {"marks": -1}  # the position with the most layers on: its moves, itself

    sides = {side.name: text(side.title) for side in rules.sides}
    phase_titles = {p.name: text(p.title) for p in rules.procedures if p.kind == "phase"}
    tracker = {"phase": phase_titles[next(iter(phase_titles))]}

    def watch(s, line, messages):
        # The engine's account, or the action in words when it says nothing.
        if messages or not line:  # (the start, `{}`, says only what the engine says)
            account.extend(messages)
        else:
            account.append(f"{sides.get(line['player'], 'Dice')}: {line['text']}")
        # The phase under way (between phases, the last one), the turn (a game over after
        # its last turn has the turn after it: the tracker stays on the last).
        under_way = [phase_titles[f.proc] for f in s.stack if f.proc in phase_titles]
        turn = min(s.vars["turn"], rules.turns[1])
        tracker.update(turn=turn, phase=(under_way or [tracker["phase"]])[-1])
        want = expected(rules, game, s, pieces).values()
        marks = sum(on > 0 for *_where, look in want for on in look.get("layers", {}).values())
        if marks > busiest["marks"]:
            busiest.update(marks=marks, moves=s.move_number, state=s.clone(), tracker=dict(tracker))

    certify(game, read_log(str(log)), watch)
    done = subprocess.run(
        harness_command(module_files[battle], vlog, tmp_path, busiest["moves"] + 1),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0 and "STEPLOG OK" in out, out[-3000:] + done.stderr[-2000:]
    assert "METADATA module=" + rules.title + " matches=true" in out
    assert f"STEPS {len(record.moves) + 1}\n" in out
    chat = [
        line.removeprefix("CHAT| * ") for line in out.splitlines() if line.startswith("CHAT| * ")
    ]
    assert chat[1:] == [m.strip() for m in account], "the chat is the engine's account"
    seen = views(out)
    assert not compare(seen["VIEW AT THE END"], expected(rules, game, record.state, pieces))
    # The Turn tracker shows the turn and the phase under way, there and at the end.
    shown = trackers(out)
    assert shown["VIEW AT THE END"] == (str(tracker["turn"]), tracker["phase"])
    middle_tracker = busiest["tracker"]
    assert shown[f"VIEW AFTER {busiest['moves'] + 1} STEPS"] == (
        str(middle_tracker["turn"]),
        middle_tracker["phase"],
    )
    middle = seen[f"VIEW AFTER {busiest['moves'] + 1} STEPS"]
    assert busiest["marks"] > 0
    assert not compare(middle, expected(rules, game, busiest["state"], pieces))
    placed = Tally(v[0] for v in seen["VIEW AT THE END"].values())
    assert placed["Map"] > 0 and placed["Tracks"] > 0
