"""The map language: terrain and hexside declarations, the map, and their diagnostics.

Files in data/maps/errors_*.mst are added to the base TEC of common.mst; their
lines marked `# E: code` must each get an error of that code, and no other
line may. Errors in declarations come first; those only the whole ruleset
shows (errors_model.mst) are checked once the declarations are clean.
"""

from __future__ import annotations

import re
import shutil

import pytest

from compiler.build import load_game
from compiler.check import compile_ruleset
from compiler.map.model import MapModel
from dsl.diagnostics import CompileError
from engine import queries as q
from muster.cli import main
from tests.conftest import RULESETS
from tests.maps import COMMON, MAPS, model, write_map

MARK = re.compile(r"#\s*E:\s*([a-z-]+)\s*$")


@pytest.mark.parametrize("case", sorted(MAPS.glob("errors_*.mst")), ids=lambda p: p.stem)
def test_expected_errors(tmp_path, case):
    expected = {
        (n, m.group(1))
        for n, line in enumerate(case.read_text().splitlines(), start=1)
        if (m := MARK.search(line))
    }
    text = case.read_text()
    if "\nmap " not in text:
        raise AssertionError("a case file declares its map")
    entry = tmp_path / "ruleset.mst"
    (tmp_path / case.name).write_text(text)
    entry.write_text(f'import "{COMMON}"\nimport "{case.name}"\n')
    with pytest.raises(CompileError) as info:
        compile_ruleset(entry)
    got = {(d.span.line, d.code.code) for d in info.value.diagnostics}
    assert all(d.span.file.endswith(case.name) for d in info.value.diagnostics)
    assert got == expected


def test_unit_attributes_the_map_reads_are_typed(tmp_path):
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    # Declared as a name, `range` is a fine attribute for the rules, but the
    # map reads it as the unit's range in hexes.
    (folder / "extra.mst").write_text(
        'attribute range "Range" {\n    type name\n}\n'
        'unit_type rockets "Rockets" {\n    symbol artillery\n    range far\n}\n'
    )
    entry = folder / "ruleset.mst"
    entry.write_text(entry.read_text() + 'import "extra.mst"\n')
    with pytest.raises(CompileError) as info:
        compile_ruleset(folder)
    [d] = info.value.diagnostics
    assert d.code.code == "bad-value" and "'range' takes a whole number" in d.message


def test_hexsides_written_as_pairs_runs_and_paths(tmp_path):
    m = MapModel(
        compile_ruleset(
            write_map(
                tmp_path,
                "creek 0501..0503/0601..0603 0502/0601",
                "road 0101 0201 0302",
                "slope 0404/0405",
                "fieldworks 0707/0706",
            )
        )[0]
    )
    written = m.map.hexsides
    assert written[("0501", "0601")] == {"creek": ""}
    assert written[("0503", "0603")] == {"creek": ""}
    assert written[("0502", "0601")] == {"creek": ""}
    assert written[("0101", "0201")] == {"road": ""} and written[("0201", "0302")] == {"road": ""}
    assert written[("0404", "0405")] == {"slope": "0404"}  # the up-slope hex, written first
    assert written[("0706", "0707")] == {"fieldworks": "0707"}
    assert m.slope("0405", "0404") == ("0404", 0)  # rising northward
    assert m.slope("0404", "0405") == ("0404", 0)


def test_combined_types_stand_for_their_parts(tmp_path):
    m = MapModel(compile_ruleset(write_map(tmp_path, "slope 0404/0405", "creek 0404/0405"))[0])
    side = m.hexside("0404", "0405")
    assert side.features == ("creek", "slope", "slope_creek")
    assert side.moving == ("slope_creek",)
    assert side.marked == {"slope": "0404", "slope_creek": "0404"}
    assert m.slope("0404", "0405") is not None  # still a slope for line of sight


def test_a_feature_that_counts_as_another_answers_for_it(tmp_path):
    """`counts_as fieldworks`: a battle's own fortified hexside (Newtown's
    breastwork) is fieldworks to every rule that asks (series 13.5), while its
    own costs stay its own."""
    path = write_map(tmp_path, "breastwork 0404/0405", "slope 0606/0607")
    path.write_text(
        path.read_text()
        + 'hexside breastwork "Breastwork" {\n    counts_as fieldworks\n    directional\n'
        + "    move_into 2\n    move_out_of 0\n}\n"
    )
    game = load_game(path)
    s = game.new_initial_state()
    h = game.hex_by_label
    fieldworks = next(
        i for i, f in enumerate(game.rules.hexside_features) if f.name == "fieldworks"
    )
    assert q.hexside_has(s, h["0404"], h["0405"], fieldworks)
    assert q.crossing_into(s, h["0405"], h["0404"], fieldworks)
    assert not q.crossing_into(s, h["0404"], h["0405"], fieldworks)
    assert not q.hexside_has(s, h["0606"], h["0607"], fieldworks)
    m = MapModel(compile_ruleset(path)[0])
    assert m.move_cost("0405", "0404") == 3  # clear 1 and its own 2, not fieldworks' 1


def test_places_entries_and_the_graph(tmp_path):
    path = write_map(
        tmp_path,
        'place inn "The Inn" 0303 victory',
        'place well "Old Well" 0606',
        'entry gate "A-1" 0101',
        'entry shore "S" 0109..0909',
        'zone north "North" 0101..0903',
    )
    m = MapModel(compile_ruleset(path)[0])
    g = m.graph
    assert g.number_of_nodes() == 81
    assert g.number_of_edges() == sum(
        1 for a in m.labels() for n in m.neighbors(a) if n is not None and a < n
    )
    assert g.nodes["0303"]["victory"] and g.nodes["0303"]["places"] == ("inn",)
    assert not g.nodes["0606"]["victory"]
    assert g.nodes["0101"]["entries"] == ("gate",) and g.nodes["0101"]["edges"] == ("west", "north")
    assert g.nodes["0509"]["entries"] == ("shore",)
    assert [z.kind for z in m.map.zones] == ["entry", "entry", "zone"]


def test_a_hex_off_the_map_is_reported_without_a_traceback(tmp_path, capsys):
    assert main(["check", str(write_map(tmp_path, "forest 1010"))]) == 1
    err = capsys.readouterr().err
    assert "hex 1010 is outside the map  [bad-hex]" in err
    assert "Traceback" not in err


def test_a_zone_behind_a_line_holds_the_line_and_its_far_side(tmp_path):
    m = model(
        tmp_path,
        'line limit "Maneuver limit" 0501..0509',
        'zone behind_it "On or behind the limit" behind limit east',
    )
    zones = {z.name: z for z in m.rules.map.zones}
    assert zones["limit"].kind == "line"
    assert set(zones["behind_it"].hexes) == {
        f"{c:02d}{r:02d}" for c in range(5, 10) for r in range(1, 10)
    }


def test_a_line_that_does_not_cut_the_map_is_an_error(tmp_path):
    with pytest.raises(CompileError) as err:
        model(tmp_path, 'line limit "Limit" 0501..0505', 'zone z "Z" behind limit east')
    assert "does not cut the map" in str(err.value)
    with pytest.raises(CompileError) as err:
        model(tmp_path, 'line limit "Limit" 0501..0509', 'zone z "Z" behind limt east')
    assert "'limt' is not a `line` of this map" in str(err.value)
    assert "did you mean 'limit'?" in str(err.value)
