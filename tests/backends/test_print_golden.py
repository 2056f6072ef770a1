"""Golden images guard the look of counters and charts, within a tolerance.

Fonts are shipped, so images differ between machines only where FreeType
versions rasterise edges differently; the tolerance allows that and no more.
Run with MUSTER_UPDATE_GOLDEN=1 to rewrite the goldens after a deliberate
change of look (and look at them before committing).
"""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from PIL import Image

from compiler.backends.print_and_play.steps import chart_steps, counter_steps
from compiler.check import compile_ruleset
from tests.conftest import ROOT
from tests.print_helpers import PRINT_TEST

GOLDEN = ROOT / "tests" / "golden" / "print"
COUNTERS = [
    "grenadiers-front",
    "grenadiers-back",
    "riflemen-front",
    "jaegers-front",
    "rangers-front",
    "wesley-back",
    "general_grey-front",
    "colonel_blue-back",
    "mortars-front",
    "royal_guns-front",
    "dragoons-front",
    "disrupted-front",
    "army_morale_marker-front",
]
CHARTS = ["close_combat_table", "tactics_matrix", "morale_level_track", "turn_track_1"]


@pytest.fixture(scope="module")
def outputs() -> dict[str, bytes]:
    rules, sources = compile_ruleset(PRINT_TEST)
    files: dict[str, bytes] = {}
    for steps in (counter_steps(rules, sources), chart_steps(rules, sources)):
        for what, run in steps:
            if "," not in what:  # the images, not the PDF pages
                files.update(run())
    return files


def differs(got: Image.Image, want: Image.Image) -> str | None:
    if got.size != want.size:
        return f"size {got.size} != {want.size}"
    a = np.asarray(got.convert("RGB"), dtype=np.int16)
    b = np.asarray(want.convert("RGB"), dtype=np.int16)
    diff = np.abs(a - b)
    mean = float(diff.mean())
    far = float((diff.max(axis=2) > 64).mean())
    if mean > 1.5 or far > 0.02:
        return f"mean difference {mean:.2f}, {far:.1%} of pixels far off"
    return None


@pytest.mark.parametrize(
    "name", [f"counters/{n}" for n in COUNTERS] + [f"charts/{n}" for n in CHARTS]
)
def test_looks_like_the_golden_image(outputs, name):
    got = Image.open(io.BytesIO(outputs[f"{name}.png"]))
    golden = GOLDEN / f"{name.replace('/', '-')}.png"
    if os.environ.get("MUSTER_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(outputs[f"{name}.png"])
        pytest.skip(f"{golden.name} rewritten: look at it before committing")
    assert golden.exists(), f"no golden image {golden.name}: run with MUSTER_UPDATE_GOLDEN=1"
    problem = differs(got, Image.open(golden))
    assert problem is None, f"{name}: {problem}"


def test_the_comparison_can_fail(outputs):
    a = Image.open(io.BytesIO(outputs["counters/grenadiers-front.png"]))
    b = Image.open(io.BytesIO(outputs["counters/grenadiers-back.png"]))
    assert differs(a, b) is not None
    assert differs(a, a) is None
