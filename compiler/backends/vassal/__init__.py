"""The VASSAL module: a `.vmod` per battle, built from the IR alone.

`vassal_steps(rules, sources, game_of)` lists the work as named steps (for
the progress bar), the last returning `{"<name>.vmod": bytes}`; nothing is
written here. `game_of(scenario)` makes the engine of a scenario: set-ups
that let a player choose a hex start on the first hex the engine offers.
The module holds `buildFile.xml`, `moduledata`, `images/` and one `.vsav`
per scenario; docs/vassal.md says what is in it and how to open it.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler import ir
from compiler.backends.names import named, the
from compiler.backends.print_and_play.charts import words
from compiler.backends.print_and_play.mix import Counter, counter_mix
from compiler.backends.print_and_play.steps import ChartsShared
from compiler.backends.vassal import images, tags, tracks
from compiler.backends.vassal.archive import zipped
from compiler.backends.vassal.buildfile import START_HEX, Chart, Module, Setup, build_xml
from compiler.backends.vassal.grid import HexGridGeometry, grid_of
from compiler.backends.vassal.help_page import HELP_FILE, help_page
from compiler.backends.vassal.metadata import metadata
from compiler.backends.vassal.pieces import (
    MAIN_BOARD,
    MAIN_MAP,
    MOVED_ICON,
    TRACKS_BOARD,
    TRACKS_MAP,
    Pieces,
    card_names,
    concealable,
    concealed,
    expanded,
    mask_image,
    pieces_of,
    track_marker_image,
)
from compiler.backends.vassal.placements import SetUp, scenario_setup
from compiler.backends.vassal.savefile import SavedPiece, game_text, savefile
from compiler.backends.vassal.sequence import text
from compiler.backends.vassal.traits import CTRL, Key, Layer
from compiler.backends.vassal.turn_tracker import set_turn
from compiler.check.counters import check_looks
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from engine.game import Game
from engine.rule_switches import PLAYERS_CHOOSE, players_choice, set_by_scenario
from engine.rules import RuleSwitchSpec

Step = Callable[[], dict[str, bytes]]


def phases(rules: ir.Ruleset) -> tuple[str, ...]:
    """The titles of the phases in the order the sequence of play calls them: the Turn
    tracker's list of phases."""
    procs = {p.name: p for p in rules.procedures}
    return tuple(text(procs[n].title) for n in phase_names(rules))


def phase_names(rules: ir.Ruleset) -> tuple[str, ...]:
    """The phases in the order the sequence of play calls them, from the start procedure.

    A phase called twice (a close combat an abbreviated first turn calls early, as well as
    in its place) is listed where it is called last: its place in the full player turn.
    """
    procs = {p.name: p for p in rules.procedures}
    calls: list[str] = []

    def walk(value: object, path: tuple[str, ...]) -> None:
        if isinstance(value, ir.CallProc):
            target = procs.get(value.proc)
            if target is not None and target.name not in path:
                if target.kind == "phase":
                    calls.append(target.name)
                walk(target.steps, (*path, target.name))
        if isinstance(value, tuple | list):
            for v in value:
                walk(v, path)
        elif hasattr(value, "__dataclass_fields__"):
            for name in value.__dataclass_fields__:
                if name not in ("span", "prov", "provs"):
                    walk(getattr(value, name), path)

    if rules.start in procs:
        walk(procs[rules.start].steps, (rules.start,))
    last = {name: i for i, name in enumerate(calls)}
    return tuple(sorted(last, key=last.__getitem__))


def description(rules: ir.Ruleset) -> str:
    source = "" if rules.source is None else f" ({rules.source})"
    return f"{text(rules.title)}{source}: a module built by Muster from the battle's rule files."


def setup_description(su: SetUp, rules: ir.Ruleset) -> str:
    """The scenario's title, turns, and every choice the set-up made for a player."""
    first, last = su.scenario.turns
    lines = [f"{text(su.scenario.title)}: turns {first} to {last}."]
    titles = {u.name: text(u.title) for u in rules.units}
    for c in su.choices:
        more = ", ".join(c.allowed[1:9]) + (", …" if len(c.allowed) > 9 else "")
        lines.append(
            f"{titles[c.unit]} starts in {c.placed}, the first hex its owner may choose"
            + (f"; the others: {more}." if more else ".")
        )
    return "\n".join(lines)


def rules_description(game: Game) -> str:
    """The scenario's rules as the engine plays them, for a VASSAL player who has no
    engine to keep them: those it always plays, those it does not use, and those
    the players choose (an option of a rule with it only; two that exclude each
    other, one or the other)."""
    rules, scenario = game.rules, game.scenario
    offered = players_choice(rules, scenario)
    chosen = {sw.name for sw in offered}
    titles = {sw.name: text(sw.title) for sw in rules.switches}
    played, not_used = set_by_scenario(rules, scenario)
    lines = []
    if played:
        lines.append(f"Always played: {', '.join(titles[sw.name] for sw in played)}.")
    if not_used:
        lines.append(f"Not used: {', '.join(titles[sw.name] for sw in not_used)}.")
    if offered:
        lines.append(
            f"The players choose: {', '.join(_choice(sw, titles, chosen) for sw in offered)}."
        )
    return "\n".join(lines)


def _choice(sw: RuleSwitchSpec, titles: dict[str, str], chosen: set[str]) -> str:
    """A rule the players choose, in words: its title, its kind and what goes with it."""
    kind = next(f for f in sw.flags if f in PLAYERS_CHOOSE).replace("_", " ")
    notes = [kind + (", played unless left out" if sw.default else "")]
    if sw.part_of:
        notes.append(f"with {titles[sw.part_of]} only")
    notes += [f"not with {titles[x]}" for x in sw.excludes if x in chosen]
    return f"{titles[sw.name]} ({'; '.join(notes)})"


def _start_level(traits: tuple, reduced: bool) -> tuple:
    """The traits with the flip layer on for a unit that starts reduced."""
    if not reduced:
        return traits
    return tuple(
        Layer(**{**{f: getattr(t, f) for f in t.__dataclass_fields__}, "level": 1})
        if isinstance(t, Layer) and t.name == "Flip"
        else t
        for t in traits
    )


def saved_setup(
    rules: ir.Ruleset, su: SetUp, pieces: Pieces, grid, board: tracks.TrackBoard, block: int = 0
) -> str:
    """The set-up's saved-game text: units in their hexes and turn boxes, markers on the
    tracks, the hex the map opens at and the Turn tracker on the scenario's first turn;
    its piece ids from id block `block` (`savefile.game_text`)."""
    groups: dict[tuple[str, int, int], list[SavedPiece]] = {}

    def put(traits: tuple, map_: str, point: tuple[int, int]) -> None:
        full = expanded(traits, pieces.prototypes)
        groups.setdefault((map_, *point), []).append(SavedPiece(full, map_, *point))

    sides = {u.name: the(rules.sides, u.side) for u in rules.units}
    waiting: dict[int, list[tuple]] = {}
    for p in su.placements:
        traits = _start_level(pieces.traits_in(su.scenario.name, p.unit), p.reduced)
        if p.unit in su.concealed:
            traits = concealed(traits, sides[p.unit])
        if p.hex is not None:
            put(traits, MAIN_MAP, grid.point(p.hex))
        else:
            waiting.setdefault(p.turn, []).append(traits)
    if pieces.turn_marker is not None:  # on top of the first turn's stack
        waiting.setdefault(su.scenario.turns[0], []).append(pieces.turn_marker.traits)
    for turn, stack in waiting.items():
        point = tracks.stack_point(board.box(tracks.turn_box(turn)), len(stack))
        for traits in stack:
            put(traits, TRACKS_MAP, point)
    starts = _scenario_starts(su.scenario)
    for track in board.tracks:
        value = _track_start(rules, starts, track)
        slot = pieces.track_markers[(track.variable, track.side)]
        put(slot.traits, TRACKS_MAP, board.box(tracks.track_box(track, value)).centre)
    boards = {MAIN_MAP: MAIN_BOARD, TRACKS_MAP: TRACKS_BOARD}
    view = {START_HEX: start_hex(su, grid)} if start_hex(su, grid) else {}
    # The tracker on the scenario's first turn, at its first phase.
    turn = set_turn(su.scenario.turns[0], rules.turns[1], 0, len(phase_names(rules)))
    return game_text(list(groups.values()), boards, block, view, (turn,))


def start_hex(su: SetUp, grid) -> str:
    """The hex a scenario's map opens at: of the hexes its set-up fills, the one nearest
    the middle of them all ("" when it puts nothing on the map)."""
    hexes = sorted({p.hex for p in su.placements if p.hex is not None})
    if not hexes:
        return ""
    points = [grid.point(h) for h in hexes]
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    return min(hexes, key=lambda h: (grid.point(h)[0] - mx) ** 2 + (grid.point(h)[1] - my) ** 2)


def _scenario_starts(sc: ir.Scenario) -> dict[tuple[str, str], object]:
    """(variable, side or "") → the value the scenario starts it at."""
    return {tracks.start_key(v): getattr(v.value, "value", None) for v in sc.values}


def _track_start(
    rules: ir.Ruleset, starts: dict[tuple[str, str], object], track: tracks.Track
) -> int:
    """Where a track's marker starts: the scenario's value, else the variable's
    initial value (0 when it has none), kept within the track."""
    value = starts.get((track.variable, track.side))
    if value is None:
        variable = named(rules.variables, track.variable)
        initial = variable.initial if variable is not None else 0
        value = initial if isinstance(initial, int) else 0
    return min(max(value, track.low), track.high)


def hand_sides(rules: ir.Ruleset) -> tuple[ir.Side, ...]:
    """Sides owning markers a cup or deck holds: each gets a hidden hand."""
    cards = card_names(rules)
    owners = {m.side for m in rules.markers if m.name in cards and m.side}
    return tuple(s for s in rules.sides if s.name in owners)


def vassal_steps(
    rules: ir.Ruleset,
    sources: SourceFiles,
    game_of: Callable[[str], Game],
    shared: ChartsShared | None = None,
) -> list[tuple[str, Step]]:
    """The module as named steps; raises `CompileError` before any runs. (`shared`: the
    charts the build's print-and-play step made for the module, if it makes them.)"""
    r = Reporter(sources)
    check_looks(rules, r)
    mix = counter_mix(rules, r)
    r.check()
    if rules.map is None:
        return []
    work = _ModuleWork(rules, mix, game_of, shared)
    return [
        ("module images", work.draw),
        ("module counters", work.counters),
        ("module charts", work.charts),
        ("module", work.module),
    ]


STATE_FILLS = ("#c0392b", "#7d3c98", "#1f618d", "#b9770e", "#117864", "#6e2c00")


class _ModuleWork:
    """The module's files as its steps make them; each step keeps what a later one needs."""

    grid: HexGridGeometry  # from "module images" on
    size: tuple[int, int]
    board: tracks.TrackBoard
    pieces: Pieces  # from "module counters" on
    chart_tabs: tuple[Chart, ...]  # from "module charts" on

    def __init__(
        self,
        rules: ir.Ruleset,
        mix: list[Counter],
        game_of: Callable[[str], Game],
        shared: ChartsShared | None,
    ):
        self.rules = rules
        self.shared = shared
        self.mix = mix
        self.game_of = game_of
        self.files: dict[str, bytes] = {}

    def draw(self) -> dict[str, bytes]:
        """The map board, the tracks board and every counter's faces."""
        renderer, board_png, img = images.board(self.rules)
        self.grid = grid_of(renderer)
        self.size = img.size
        self.files["images/board.png"] = board_png
        self.board = tracks.layout(self.rules)
        self.files["images/tracks.png"] = images.png(tracks.draw(self.board))
        for name, data in images.counter_images(self.mix).items():
            self.files[f"images/{name}"] = data
        self.files[f"images/{MOVED_ICON}"] = images.moved_icon()
        return {}

    def counters(self) -> dict[str, bytes]:
        """The pieces, the tags of their order states and the track markers' faces."""
        self.pieces = pieces_of(self.rules, self.board, {c.name: c for c in self.mix})
        for k, st in enumerate(self.pieces.states):
            fill = STATE_FILLS[k % len(STATE_FILLS)]
            width = tags.tag_width(st.levels)
            for level, name in zip(st.levels, st.images, strict=True):
                self.files[f"images/{name}"] = tags.tag(level, fill, width)
        self.files[f"images/{track_marker_image(0)}"] = images.label_counter(
            "Game\nTurn", "#e8e2c8"
        )
        sides = {s.name: s.color for s in self.rules.sides}
        for side in {u.side for u in self.rules.units if concealable(self.rules, u)}:
            self.files[f"images/{mask_image(side)}"] = images.label_counter("?", sides[side])
        for n, track in enumerate(self.board.tracks, start=1):
            self.files[f"images/{track_marker_image(n)}"] = images.label_counter(
                _marker_label(track), sides.get(track.side, "#e8e2c8")
            )
        return {}

    def charts(self) -> dict[str, bytes]:
        """The print-and-play charts, each a tab of the Charts window."""
        out = []
        made = self.shared.made if self.shared is not None else None
        for name, data in (images.charts(self.rules) if made is None else made).items():
            self.files[f"images/chart-{name}"] = data
            out.append(Chart(words(name.removesuffix(".png")).capitalize(), f"chart-{name}"))
        self.chart_tabs = tuple(out)
        return {}

    def module(self) -> dict[str, bytes]:
        """The `.vmod`: buildFile.xml, moduledata, the images and a saved game per scenario."""
        rules = self.rules
        moduledata = metadata(text(rules.title), description(rules))
        setups, saves, notes, views = [], {}, [], []
        for number, sc in enumerate(rules.scenarios):
            game = self.game_of(sc.name)
            su = scenario_setup(rules, sc, game)
            views.append(start_hex(su, self.grid))
            desc = setup_description(su, rules)
            notes.append((text(sc.title), "\n".join([desc, rules_description(game)])))
            saves[f"{sc.name}.vsav"] = savefile(
                saved_setup(rules, su, self.pieces, self.grid, self.board, number),
                metadata(text(sc.title), desc),
                moduledata,
            )
            setups.append(Setup(text(sc.title), desc, f"{sc.name}.vsav"))
        mod = Module(
            rules,
            description(rules),
            self.size,
            self.grid,
            self.board,
            self.pieces,
            phases(rules),
            self.chart_tabs,
            tuple(setups),
            hand_sides(rules),
            HELP_FILE,
            next((v for v in views if v), ""),
        )
        content = {"buildFile.xml": build_xml(mod), "moduledata": moduledata}
        states = [
            (_key_words(st.activate), f"mark {st.title}")
            if len(st.levels) == 1
            else (_key_words(st.activate), f"{st.title}: {' / '.join(st.levels)}")
            for st in self.pieces.states
        ]
        content[HELP_FILE] = help_page(rules, notes, states)
        content.update(sorted(self.files.items()))
        content.update(saves)
        return {f"{rules.name}.vmod": zipped(content)}


def _key_words(key: Key) -> str:
    """A key as the help page names it: Ctrl+D, Ctrl+Shift+D."""
    return ("Ctrl+Shift+" if key.modifiers != CTRL else "Ctrl+") + chr(key.code)


def _marker_label(track: tracks.Track) -> str:
    """A track marker's words, a word a line: "Army\nMorale"; "VP" for victory points."""
    if track.variable == "vp":
        return "VP"
    return "\n".join(words(track.variable).title().split())
