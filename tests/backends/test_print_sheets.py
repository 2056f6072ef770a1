"""Counter sheets as printed: page sizes, duplex registration, the mix against `muster dump`.

The sheets are checked from their pixels: the PDFs are rendered (pypdfium2,
and poppler's tools where installed), counters are found by their cut
outlines, and each is identified by comparing it with the per-counter PNGs.
What should be there comes from `muster dump`, not from the sheet generator.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image, ImageOps

from compiler.build import build
from tests.conftest import ROOT, STEPS
from tests.print_helpers import PRINT_TEST, crop, difference, outlines, render_pdf

PAPERS = {"letter": (2550, 3300, 612, 792), "a4": (2480, 3508, 595.2, 841.92)}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("print_test")
    build(PRINT_TEST, out, progress=False)
    return out / "print"


@pytest.fixture(scope="module")
def dump() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "muster.cli", "dump", str(PRINT_TEST)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("part", ["counters", "charts"])
def test_pdf_pages_are_the_paper_at_300_dpi(built, paper, part):
    import pypdfium2 as pdfium

    width, height, pw, ph = PAPERS[paper]
    pdf = pdfium.PdfDocument(str(built / f"{part}-{paper}.pdf"))
    assert len(pdf) >= 1
    for page in pdf:
        assert page.get_size() == pytest.approx((pw, ph), abs=0.01)
    pdf.close()
    for img in render_pdf(built / f"{part}-{paper}.pdf"):
        assert img.size == (width, height)


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils not installed")
@pytest.mark.parametrize("paper", PAPERS)
def test_poppler_reads_and_renders_the_sheets(built, paper, tmp_path):
    width, height, pw, ph = PAPERS[paper]
    pdf = built / f"counters-{paper}.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert re.search(rf"Page size:\s+{pw:g} x {ph:g} pts", info.stdout), info.stdout
    subprocess.run(["pdftoppm", "-r", "300", "-png", str(pdf), str(tmp_path / "p")], check=True)
    pages = sorted(tmp_path.glob("p-*.png"))
    assert len(pages) % 2 == 0
    front, back = Image.open(pages[0]).convert("RGB"), Image.open(pages[1]).convert("RGB")
    assert front.size == (width, height)
    fronts, backs = outlines(front, 40), outlines(ImageOps.mirror(back), 40)
    assert fronts
    assert len(fronts) == len(backs)
    for x, y in fronts:
        assert any(abs(x - bx) <= 1 and abs(y - by) <= 1 for bx, by in backs), (x, y)


@pytest.mark.parametrize("paper", PAPERS)
def test_backs_register_with_fronts_when_flipped_on_the_long_edge(built, paper):
    pages = render_pdf(built / f"counters-{paper}.pdf")
    assert len(pages) % 2 == 0
    for front, back in zip(pages[::2], pages[1::2], strict=True):
        fronts = outlines(front)
        backs = outlines(ImageOps.mirror(back))
        assert fronts, "no counter found on the front page"
        assert len(fronts) == len(backs)
        for x, y in fronts:
            assert any(abs(x - bx) <= 1 and abs(y - by) <= 1 for bx, by in backs), (x, y)


def _groups(folder: Path) -> dict[str, frozenset[str]]:
    """Each counter image, with every image identical to it (blank backs repeat)."""
    pixels = {
        p.name.removesuffix(".png"): Image.open(p).convert("RGB").tobytes()
        for p in sorted(folder.glob("*.png"))
    }
    return {a: frozenset(b for b in pixels if pixels[b] == pixels[a]) for a in pixels}


def _identify(
    img: Image.Image, pngs: dict[str, Image.Image], exact: dict[bytes, str], groups
) -> frozenset[str]:
    """The counter images the cut-out `img` shows: those identical to it pixel for pixel
    (`exact`: pixels → a name; pdfium draws the images unsmoothed, so a sheet's
    counters are found so), else the closest, within a mean difference of one in 255."""
    same = exact.get(img.tobytes())
    if same is not None:
        return groups[same]
    best = min(pngs, key=lambda name: difference(img, pngs[name]))
    assert difference(img, pngs[best]) < 1.0, f"a counter matches no counter image ({best}?)"
    return groups[best]


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_sheets_hold_exactly_the_counter_mix_of_the_dump(built, dump, paper):
    assert_counter_mix(built, dump, paper)


@pytest.fixture(scope="module", params=["monmouth", "newtown"])
def shipped(request, tmp_path_factory) -> tuple[Path, dict]:
    """A shipped battle's sheets, built afresh, and its dump."""
    out = tmp_path_factory.mktemp(request.param)
    build(ROOT / "rulesets" / request.param, out, only="counters", progress=False)
    done = subprocess.run(
        [sys.executable, "-m", "muster.cli", "dump", request.param],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return out / "print", json.loads(done.stdout)


@pytest.mark.slow
def test_the_shipped_battles_sheets_hold_their_counter_mix(shipped):
    built, dump = shipped
    assert_counter_mix(built, dump, "letter")


def assert_counter_mix(built: Path, dump: dict, paper: str) -> None:
    """Every counter on the sheets, front and back, as many times as the dump declares."""
    folder = built / "counters"
    pngs = {p.name.removesuffix(".png"): Image.open(p).convert("RGB") for p in folder.glob("*.png")}
    exact = {img.tobytes(): name for name, img in pngs.items()}
    groups = _groups(folder)
    seen: Counter[tuple[frozenset[str], frozenset[str]]] = Counter()
    pages = render_pdf(built / f"counters-{paper}.pdf")
    for front, back in zip(pages[::2], pages[1::2], strict=True):
        mirrored = ImageOps.mirror(back)
        for corner in outlines(front):
            f = _identify(crop(front, corner), pngs, exact, groups)
            b = _identify(ImageOps.mirror(crop(mirrored, corner)), pngs, exact, groups)
            seen[(f, b)] += 1
    expected: Counter[tuple[frozenset[str], frozenset[str]]] = Counter()
    for u in dump["units"]:
        expected[(groups[f"{u['name']}-front"], groups[f"{u['name']}-back"])] += 1
        # a replacement counter for each two steps past the second (docs/print_and_play.md)
        for step in range(3, len(u["strengths"]) + 1, 2):
            name = f"{u['name']}-step{step}"
            expected[(groups[f"{name}-front"], groups[f"{name}-back"])] += 1
    for m in dump["markers"]:
        expected[(groups[f"{m['name']}-front"], groups[f"{m['name']}-back"])] += m["count"]
    assert seen == expected


def test_a_marker_backed_by_another_marker_shows_its_face(built, dump):
    names = {m["name"] for m in dump["markers"]}
    backed = [m for m in dump["markers"] if m["back"] in names]
    assert backed
    for m in backed:
        groups = _groups(built / "counters")
        assert f"{m['back']}-front" in groups[f"{m['name']}-back"]


def test_one_png_per_counter_side_at_188_px(built, dump):
    names = [u["name"] for u in dump["units"]] + [m["name"] for m in dump["markers"]]
    files = sorted(p.name for p in (built / "counters").glob("*.png"))
    assert files == sorted(f"{n}-{side}.png" for n in names for side in ("front", "back"))
    for name in files:
        img = Image.open(built / "counters" / name)
        assert img.size == (188, 188)
        assert img.info["dpi"] == pytest.approx((300, 300), abs=0.01)


def test_a_three_step_units_replacement_counter_is_on_the_sheets(tmp_path):
    build(STEPS, tmp_path, only="counters", progress=False)
    done = subprocess.run(
        [sys.executable, "-m", "muster.cli", "dump", str(STEPS)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    folder = tmp_path / "print" / "counters"
    for side in ("front", "back"):
        img = Image.open(folder / f"red_grenadiers-step3-{side}.png")
        assert img.size == (188, 188)
    assert_counter_mix(tmp_path / "print", json.loads(done.stdout), "letter")


@pytest.mark.slow
def test_rebuilding_gives_identical_bytes(built, tmp_path):
    build(PRINT_TEST, tmp_path, progress=False)
    again = tmp_path / "print"
    first = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    second = sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert first == second
    for rel in first:
        assert (built / rel).read_bytes() == (again / rel).read_bytes(), rel
