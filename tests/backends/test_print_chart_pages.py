"""The chart pages' PDFs: each chart placed where the layout puts it, pixel for pixel.

A chart page is composed of images on white (`pdf.Composed`): the heading's
strip and the charts, each chart's PNG data taken into the PDF as it was
written for `charts/<name>.png`. Read back with pdfium's own parser: every
image object's place on the page and its decoded pixels.
"""

from __future__ import annotations

import io

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from PIL import Image

from compiler.backends.png import rgb_data
from compiler.backends.print_and_play.geometry import DPI, PAPERS
from compiler.backends.print_and_play.pages import stack_on_pages
from compiler.backends.print_and_play.steps import chart_steps
from compiler.check import compile_ruleset
from tests.print_helpers import PRINT_TEST


@pytest.fixture(scope="module")
def charted() -> tuple[str, dict[str, bytes]]:
    rules, sources = compile_ruleset(PRINT_TEST)
    files: dict[str, bytes] = {}
    for _what, run in chart_steps(rules, sources):
        files.update(run())
    return f"{rules.title}: charts and tables", files


def _charts(files: dict[str, bytes]) -> list[tuple[Image.Image, bytes]]:
    """The charts as the step wrote them, in its order, with their PNGs."""
    pngs = [data for name, data in files.items() if name.startswith("charts/")]
    return [(Image.open(io.BytesIO(data)).convert("RGB"), data) for data in pngs]


@pytest.mark.parametrize("paper", PAPERS, ids=lambda p: p.name)
def test_each_image_is_where_the_layout_puts_it_with_its_own_pixels(charted, paper):
    title, files = charted
    laid = stack_on_pages(_charts(files), paper, title)
    pdf = pdfium.PdfDocument(files[f"charts-{paper.name}.pdf"])
    assert len(pdf) == len(laid) > 0
    pt = 72 / DPI
    for page, composed in zip(pdf, laid, strict=True):
        assert page.get_size() == pytest.approx((paper.width * pt, paper.height * pt), abs=0.01)
        images = [o for o in page.get_objects() if o.type == pdfium_c.FPDF_PAGEOBJ_IMAGE]
        assert len(images) == len(composed.placed)
        for obj, placed in zip(images, composed.placed, strict=True):
            (x, y), (w, h) = placed.at, placed.image.size
            left, bottom, right, top = obj.get_bounds()
            assert (left, top) == pytest.approx((x * pt, (paper.height - y) * pt), abs=0.01)
            assert (right - left, top - bottom) == pytest.approx((w * pt, h * pt), abs=0.01)
            got = obj.get_bitmap(render=False).to_pil().convert("RGB")
            assert got.tobytes() == placed.image.convert("RGB").tobytes()
    pdf.close()


def test_the_charts_png_data_goes_into_the_pdf_as_it_is(charted):
    """No chart placed at its size is compressed a second time for its pages (one
    scaled down to fit a page is a new image, compressed as such)."""
    title, files = charted
    for paper in PAPERS:
        pdf = files[f"charts-{paper.name}.pdf"]
        laid = stack_on_pages(_charts(files), paper, title)
        kept = [p.png for page in laid for p in page.placed if p.png is not None]
        assert kept
        for png in kept:
            found = rgb_data(png)
            assert found is not None
            assert found[2] in pdf
