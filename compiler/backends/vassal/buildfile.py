"""`buildFile.xml`: the module's components as VASSAL 3.7 builds them.

Element names are VASSAL's Java classes; attributes are those each class
reads (vassal_schema.json, checked by a test). ElementTree escapes every
name and text for XML (`&`, `<`, quotes, and newlines in attributes).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from compiler import ir
from compiler.backends.vassal.grid import HexGridGeometry
from compiler.backends.vassal.help_page import HELP_TITLE
from compiler.backends.vassal.metadata import MODULE_VERSION, VASSAL_VERSION
from compiler.backends.vassal.pieces import (
    MAIN_BOARD,
    MAIN_MAP,
    TRACKS_BOARD,
    TRACKS_MAP,
    Pieces,
    Slot,
)
from compiler.backends.vassal.sequence import sequence, text
from compiler.backends.vassal.tracks import STACK_SEP, TrackBoard, pile_box
from compiler.backends.vassal.traits import definition

B = "VASSAL.build."
M = B + "module."
MAP = M + "map."
BOARD = MAP + "boardPicker."
WIDGET = B + "widget."
HAND_BOARD = (600, 300)


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    image: str


@dataclass(frozen=True, slots=True)
class Setup:
    title: str
    description: str
    file: str


@dataclass(frozen=True, slots=True)
class Module:
    """Everything buildFile.xml says, gathered by the backend."""

    rules: ir.Ruleset
    description: str
    board_size: tuple[int, int]
    grid: HexGridGeometry
    track_board: TrackBoard
    pieces: Pieces
    phases: tuple[str, ...]
    charts: tuple[Chart, ...]
    setups: tuple[Setup, ...]
    hands: tuple[ir.Side, ...]  # sides with hidden cards
    help_page: str = ""  # the help page's file in the module ("" for none)
    start_hex: str = ""  # where the map opens when no scenario says (the first's)


def el(parent: ET.Element, cls: str, **attrs: object) -> ET.Element:
    return ET.SubElement(parent, cls, {k: _attr(v) for k, v in attrs.items()})


def _attr(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def interaction(m: ET.Element) -> None:
    """What lets counters be dragged, stacked, right-clicked and zoomed on a map."""
    for cls in (
        "ForwardToKeyBuffer",
        "Scroller",
        "ForwardToChatter",
        "MenuDisplayer",
        "MapCenterer",
        "StackExpander",
        "PieceMover",
        "KeyBufferer",
    ):
        el(m, MAP + cls)
    el(
        m,
        MAP + "StackMetrics",
        bottom="40,0",
        down="37,0",
        exSepX=6,
        exSepY=18,
        top="38,0",
        unexSepX=STACK_SEP[0],
        unexSepY=STACK_SEP[1],
        up="39,0",
        disabled=False,
    )
    el(m, MAP + "SelectionHighlighters")
    el(m, MAP + "HighlightLastMoved", color="255,0,0", enabled=True, thickness=2)
    el(m, MAP + "Zoomer", zoomLevels="0.25,0.4,0.5,0.75,1.0,1.5,2.0", zoomStart=3)
    el(
        m,
        MAP + "CounterDetailViewer",
        delay=700,
        showgraph=True,
        minDisplayPieces=2,
        showtext=True,
        zoomlevel="1.0",
        summaryReportFormat="$LocationName$",
        counterReportFormat="$PieceName$",
    )


def slot_element(parent: ET.Element, slot: Slot, cls: str = WIDGET + "PieceSlot") -> None:
    e = el(parent, cls, entryName=slot.entry, gpid=slot.gpid, width=96, height=96)
    e.text = definition(slot.traits)


def build_xml(mod: Module) -> bytes:
    """The module's components in the order VASSAL's editor lists them."""
    root = ET.Element(
        B + "GameModule",
        {
            "name": text(mod.rules.title),
            "version": MODULE_VERSION,
            "description": mod.description,
            "VassalVersion": VASSAL_VERSION,
            "nextPieceSlotId": str(mod.pieces.next_gpid),
        },
    )
    for part in (
        _players,
        _start_view,
        _prototypes,
        _main_map,
        _tracks_map,
        _hands,
        _palette,
        _die,
        _turns,
        _charts,
        _notes,
        _inventory,
        _setups,
    ):
        part(root, mod)
    ET.indent(root, space=" ")
    body = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + b"\n"


def _players(root: ET.Element, mod: Module) -> None:
    """The command encoder, a player per side, and the options every module sets."""
    el(root, M + "BasicCommandEncoder")
    roster = el(root, M + "PlayerRoster")
    for side in mod.rules.sides:
        ET.SubElement(roster, "entry").text = text(side.title)
    el(root, M + "GlobalOptions", autoReport="Always", nonOwnerUnmaskable="Never")


# Each scenario's saved game sets START_HEX to the middle hex of its set-up; the main
# map's "Set-up" button (MoveCameraButton, Alt+S) centres the map on it. VASSAL would
# press it at the start of every game with a StartupGlobalKeyCommand, but applying one
# marks every new game modified (VASSAL then asks to save a game nobody touched, and a
# headless VASSAL hangs at that question), so the module leaves the press to the player.
START_HEX = "SetUpHex"
CENTRE_KEY = "83,520"  # Alt+S


def _start_view(root: ET.Element, mod: Module) -> None:
    """The property a scenario sets to its set-up's middle hex."""
    props = el(root, M + "properties.GlobalProperties")
    el(
        props,
        M + "properties.GlobalProperty",
        name=START_HEX,
        initialValue=mod.start_hex,
        description="The hex the Set-up button centres the map on",
        isNumeric=False,
    )


def _centre_button(m: ET.Element) -> None:
    el(
        m,
        MAP + "MoveCameraButton",
        text="Set-up",
        tooltip="Centre the map on the scenario's set-up (Alt+S)",
        icon="",
        hotkey=CENTRE_KEY,
        moveCameraMode="G",
        boardName=MAIN_BOARD,
        gridLocation=f"${START_HEX}$",
    )


def _prototypes(root: ET.Element, mod: Module) -> None:
    protos = el(root, M + "PrototypesContainer")
    for name, traits in mod.pieces.prototypes.items():
        p = el(protos, M + "PrototypeDefinition", name=name, description=name)
        p.text = definition(traits)


def _hands(root: ET.Element, mod: Module) -> None:
    for side in mod.hands:
        _hand(root, side)


def _die(root: ET.Element, mod: Module) -> None:
    """The die button, rolling the ruleset's die (1–6, or 0–9)."""
    low, high = mod.rules.die
    el(
        root,
        M + "DiceButton",
        name=f"Die ({low}–{high})",
        text=f"Die {low}–{high}",
        tooltip="Roll the die",
        nDice=1,
        nSides=high - low + 1,
        plus=low - 1,
        reportFormat="** $name$ = $result$ *** <$PlayerName$>",
        reportTotal=False,
        hotkey="68,520",
    )


def _charts(root: ET.Element, mod: Module) -> None:
    """The Charts window, a tab per chart and the help page (none when there are none)."""
    if not mod.charts and not mod.help_page:
        return
    window = el(root, M + "ChartWindow", name="Charts", text="Charts", tooltip="Charts and tables")
    tabs = el(window, WIDGET + "TabWidget", entryName="Charts")
    if mod.help_page:
        page = mod.help_page
        el(tabs, WIDGET + "HtmlChart", chartName=HELP_TITLE, description=HELP_TITLE, fileName=page)
    for c in mod.charts:
        el(tabs, WIDGET + "Chart", chartName=c.title, description=c.title, fileName=c.image)


def _notes(root: ET.Element, mod: Module) -> None:
    """VASSAL's Notes window: the players' public and private notes, saved with the game."""
    el(root, M + "NotesWindow", buttonText="Notes", tooltip="Public and private notes")


def _inventory(root: ET.Element, mod: Module) -> None:
    """The Inventory window: every unit, marker and card in play (each carries a `Kind`;
    the track markers do not). VASSAL lists nothing when the filter is left blank, and a
    masked counter under its masked name to the sides that may not see it."""
    el(
        root,
        M + "Inventory",
        name="Inventory",
        text="Inventory",
        tooltip="Every counter in play, by map and side",
        groupBy="CurrentMap,Side",
        include='{Kind != ""}',
        leafFormat="$PieceName$ ($LocationName$)",
    )


def _setups(root: ET.Element, mod: Module) -> None:
    """A menu entry per scenario, opening its saved set-up."""
    for s in mod.setups:
        el(
            root,
            M + "PredefinedSetup",
            name=s.title,
            description=s.description,
            isMenu=False,
            useFile=True,
            file=s.file,
        )


def _main_map(root: ET.Element, mod: Module) -> None:
    m = el(
        root,
        M + "Map",
        mapName=MAIN_MAP,
        markMoved="Always",
        markUnmovedText="Clear moved",
        markUnmovedTooltip="Take the moved flag off every counter on the map",
        launch=False,
        allowMultiple=False,
    )
    picker = el(m, MAP + "BoardPicker")
    w, h = mod.board_size
    board = el(
        picker,
        BOARD + "Board",
        name=MAIN_BOARD,
        image="board.png",
        width=w,
        height=h,
        reversible=False,
    )
    g = mod.grid
    grid = el(
        board,
        BOARD + "board.HexGrid",
        sideways=False,
        x0=g.x0,
        y0=g.y0,
        dx=repr(g.dx),
        dy=repr(g.dy),
        snapTo=True,
        edgesLegal=False,
        cornersLegal=False,
        visible=False,
        dotsVisible=False,
        color="0,0,0",
    )
    el(
        grid,
        BOARD + "board.mapgrid.HexGridNumbering",
        first="H",
        sep="",
        hType="N",
        vType="N",
        hLeading=1,
        vLeading=1,
        hOff=g.h_off,
        vOff=g.v_off,
        hDescend=False,
        vDescend=False,
        stagger=False,
        visible=False,
        locationFormat="$gridLocation$",
    )
    interaction(m)
    map_aids(m)
    _centre_button(m)


def map_aids(m: ET.Element) -> None:
    """What a hand-made hex wargame module offers on its map: an overview window, a
    line-of-sight thread counting hexes, and a button that hides the counters."""
    el(m, MAP + "GlobalMap", buttonText="Overview", tooltip="Show or hide the overview map")
    el(
        m,
        MAP + "LOS_Thread",
        threadName="Line of sight",
        label="LOS",
        tooltip="Draw a line-of-sight thread (the rules say what blocks it)",
        drawRange=True,
        rangeFg="255,255,255",
        rangeBg="0,0,0",
        snapStart=True,
        snapEnd=True,
        report="$playerId$ checked line of sight from $FromLocation$ to $ToLocation$"
        " ($Range$ hexes)",
    )
    el(m, MAP + "HidePiecesButton", buttonText="Hide pieces", tooltip="Show the bare map")


def _tracks_map(root: ET.Element, mod: Module) -> None:
    tb = mod.track_board
    m = el(
        root,
        M + "Map",
        mapName=TRACKS_MAP,
        markMoved="Never",
        launch=True,
        buttonName="Tracks",
        tooltip="Tracks and off-map boxes",
        allowMultiple=False,
        hotkey="84,520",
    )
    picker = el(m, MAP + "BoardPicker")
    board = el(
        picker,
        BOARD + "Board",
        name=TRACKS_BOARD,
        image="tracks.png",
        width=tb.width,
        height=tb.height,
        reversible=False,
    )
    regions = el(board, BOARD + "board.RegionGrid", snapto=True, visible=False, fontsize=9)
    for b in tb.boxes:
        x, y = b.centre
        el(regions, BOARD + "board.Region", name=b.name, originx=x, originy=y)
    interaction(m)
    for bag in mod.rules.bags:
        _draw_pile(m, mod, bag)


def _draw_pile(m: ET.Element, mod: Module, bag: ir.Bag) -> None:
    """A cup or deck in its box on the tracks board, its cards face down and
    shuffled; only its owner may draw from a side's deck."""
    b = mod.track_board.box(pile_box(bag))
    x, y = b.centre
    owner = deck_owner(mod.rules, bag)
    pile = el(
        m,
        MAP + "DrawPile",
        name=pile_box(bag),
        owningBoard=TRACKS_BOARD,
        x=x,
        y=y,
        width=b.w - 20,
        height=b.h - 20,
        faceDown="Always",
        shuffle="Always",
        allowMultiple=True,
        allowSelect=False,
        reversible=False,
        draw=True,
        drawFaceUp=False,
        deckRestrictAccess=owner is not None,
        deckOwners=text(owner.title) if owner else "",
    )
    for card in mod.pieces.piles[bag.name]:
        slot_element(pile, card, WIDGET + "CardSlot")


def deck_owner(rules: ir.Ruleset, bag: ir.Bag) -> ir.Side | None:
    """The side whose cards are all a deck holds (only it may draw), or None for a shared cup."""
    markers = {m.name: m.side for m in rules.markers}
    sides = {markers[name] for name in bag.contents}
    if len(sides) != 1 or "" in sides:
        return None
    return next(s for s in rules.sides if s.name in sides)


def _hand(root: ET.Element, side: ir.Side) -> None:
    title = text(side.title)
    m = el(
        root,
        M + "PlayerHand",
        mapName=f"{title} hand",
        side=title,
        visible=False,
        useBoards=f"{title} hand",
        markMoved="Never",
        launch=True,
        buttonName=f"{title} hand",
        tooltip=f"The {title} player's hidden cards",
        allowMultiple=False,
    )
    picker = el(m, MAP + "BoardPicker")
    w, h = HAND_BOARD
    board = el(
        picker,
        BOARD + "Board",
        name=f"{title} hand",
        width=w,
        height=h,
        color="230,225,210",
        reversible=False,
    )
    # One zone over the whole hand, so that a report names it ("… in North hand").
    zones = el(board, BOARD + "board.ZonedGrid")
    path = f"0,0;{w},0;{w},{h};0,{h}"
    zone = BOARD + "board.mapgrid.Zone"
    el(zones, zone, name=f"{title} hand", locationFormat="$name$", path=path)
    interaction(m)


def _palette(root: ET.Element, mod: Module) -> None:
    window = el(
        root,
        M + "PieceWindow",
        name="Counters",
        text="Counters",
        tooltip="Show or hide the counters",
        hidden=False,
        scale="1.0",
    )
    top = el(window, WIDGET + "TabWidget", entryName="Counters")
    tabs: dict[str, dict[str, list[Slot]]] = {}
    for slot in mod.pieces.slots:
        tabs.setdefault(slot.tab, {}).setdefault(slot.group, []).append(slot)
    for tab, groups in tabs.items():
        inner = el(top, WIDGET + "TabWidget", entryName=tab)
        for group, slots in groups.items():
            lst = el(inner, WIDGET + "ListWidget", entryName=group, scale="1.0", divider=150)
            for slot in slots:
                slot_element(lst, slot)


def _turns(root: ET.Element, mod: Module) -> None:
    first, last = mod.rules.turns
    tracker = el(
        root,
        M + "turn.TurnTracker",
        name="Turn",
        buttonText="Turn",
        turnFormat="Turn $level1$: $level2$",
        lengthStyle="Maximum",
        reportFormat="* Turn: $oldTurn$ → $newTurn$",
        nexthotkey="78,520",
        prevhotkey="80,520",
    )
    turns = el(
        tracker,
        M + "turn.CounterTurnLevel",
        name="Game Turn",
        property="Turn",
        turnFormat="$value$",
        start=first,
        incr=1,
        loop=True,
        loopLimit=last,
    )
    if mod.phases:
        el(
            turns,
            M + "turn.ListTurnLevel",
            name="Phase",
            property="Phase",
            turnFormat="$value$",
            list=sequence(mod.phases, ","),
            configList=False,
            configFirst=False,
        )
