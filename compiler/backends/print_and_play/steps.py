"""Print-and-play's work: counter sheets, charts and the map as named steps.

`print_steps(rules, sources, part)` lists the work of one part — "counters",
"charts" or "map" — as named steps, each returning files by their path under
`print/`; nothing is written here (compiler/build.py writes all of a build
at once). Every image is 300 dpi; docs/print_and_play.md has the sizes and
how a ruleset declares the look of its counters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from PIL import Image

from compiler import ir
from compiler.backends.map_render import render_map
from compiler.backends.png import png_bytes
from compiler.backends.print_and_play.charts import all_charts
from compiler.backends.print_and_play.geometry import DPI, PAPERS, Paper
from compiler.backends.print_and_play.grid import render_chart
from compiler.backends.print_and_play.mix import counter_mix
from compiler.backends.print_and_play.pages import stack_on_pages
from compiler.backends.print_and_play.paint import paint
from compiler.backends.print_and_play.pdf import pdf_of_pages
from compiler.backends.print_and_play.sheets import lay_sheets, render_sheet
from compiler.backends.print_and_play.tiles import tile_pages
from compiler.backends.print_and_play.tracks import level_track, turn_track_charts
from compiler.check.counters import check_looks
from compiler.map.model import MapModel
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles

Step = Callable[[], dict[str, bytes]]


def png(img: Image.Image) -> bytes:
    """PNG bytes at 300 dpi, with no time stamp."""
    return png_bytes(img, DPI)


@dataclass(slots=True)
class ChartsShared:
    """The charts as another output of the same build shows them, made from the 300 dpi
    images while the chart step holds them (the VASSAL module's screen-size PNGs), so
    that the build draws every chart once: `shrink` makes them, `made` keeps them."""

    shrink: Callable[[dict[str, Image.Image]], dict[str, bytes]]
    made: dict[str, bytes] | None = None


def print_steps(
    rules: ir.Ruleset, sources: SourceFiles, part: str, shared: ChartsShared | None = None
) -> list[tuple[str, Step]]:
    """One part as named steps, for the progress bar; raises `CompileError` before any runs.
    (`shared`: the charts' part makes the other output's charts too.)"""
    r = Reporter(sources)
    check_looks(rules, r)
    r.check()
    if part == "charts":
        return chart_steps(rules, sources, shared)
    return {"counters": counter_steps, "map": map_steps}[part](rules, sources)


def counter_steps(rules: ir.Ruleset, sources: SourceFiles) -> list[tuple[str, Step]]:
    """A PNG per counter side (VASSAL uses them), and duplex sheets on each paper."""
    r = Reporter(sources)
    mix = counter_mix(rules, r)
    r.check()

    def images() -> dict[str, bytes]:
        files = {}
        for c in mix:
            files[f"counters/{c.name}-front.png"] = png(paint(c.front))
            files[f"counters/{c.name}-back.png"] = png(paint(c.back))
        return files

    def pages(paper: Paper) -> Iterator[Image.Image]:
        """Each sheet's front and back, made as the PDF takes them."""
        laid = lay_sheets(mix, paper)
        for n, sheet in enumerate(laid, start=1):
            head = f"{rules.title} — counters, sheet {n} of {len(laid)}"
            yield render_sheet(sheet, False, f"{head}, front")
            yield render_sheet(sheet, True, f"{head}, back: print duplex, long-edge flip")

    def sheets(paper: Paper) -> dict[str, bytes]:
        pdf = pdf_of_pages(pages(paper), f"{rules.title}: counters")
        return {f"counters-{paper.name}.pdf": pdf}

    steps: list[tuple[str, Step]] = [("counter images", images)]
    steps += [(f"counter sheets, {p.name}", partial(sheets, p)) for p in PAPERS]
    return steps


def chart_images(rules: ir.Ruleset) -> dict[str, Image.Image]:
    """Every chart and track drawn at 300 dpi, by name (the VASSAL module shows them too)."""
    width = min(p.width - 2 * p.margin for p in PAPERS)
    images: dict[str, Image.Image] = {}
    for name, chart in all_charts(rules):
        images[name] = render_chart(chart, width)
    for lv in rules.levels:
        images[f"{lv.name}_track"] = level_track(rules, lv)
    for n, chart in enumerate(turn_track_charts(rules), start=1):
        images[f"turn_track_{n}"] = render_chart(chart, width)
    return images


def chart_steps(
    rules: ir.Ruleset, _sources: SourceFiles, shared: ChartsShared | None = None
) -> list[tuple[str, Step]]:
    """A PNG per chart and track, and all of them on Letter and A4 pages."""
    images: dict[str, Image.Image] = {}
    pngs: dict[str, bytes] = {}

    def draw() -> dict[str, bytes]:
        images.update(chart_images(rules))
        if shared is not None:
            shared.made = shared.shrink(images)
        pngs.update((name, png(img)) for name, img in images.items())
        return {f"charts/{name}.png": data for name, data in pngs.items()}

    def pages(paper: Paper) -> dict[str, bytes]:
        title = f"{rules.title}: charts and tables"
        if not images:
            return {}
        # (each chart's PNG goes into the PDF as it is: no chart is compressed twice)
        laid = stack_on_pages([(img, pngs[name]) for name, img in images.items()], paper, title)
        pdf = pdf_of_pages(laid, title)
        if paper is PAPERS[-1]:
            images.clear()  # the last pages: free the 300 dpi charts before the map is drawn
            pngs.clear()
        return {f"charts-{paper.name}.pdf": pdf}

    steps: list[tuple[str, Step]] = [("charts", draw)]
    steps += [(f"chart pages, {p.name}", partial(pages, p)) for p in PAPERS]
    return steps


def map_files(image: Image.Image, title: str) -> dict[str, bytes]:
    """The full map image, and its tiles on Letter and A4 pages."""
    files = {"map.png": png(image)}
    for paper in PAPERS:
        tiles = tile_pages(image, paper, title)  # made one by one as the PDF takes them
        files[f"map-{paper.name}.pdf"] = pdf_of_pages(tiles, f"{title}: map")
    return files


def map_steps(rules: ir.Ruleset, _sources: SourceFiles) -> list[tuple[str, Step]]:
    """The map drawn by the map renderer, whole and tiled; nothing for a ruleset with no map."""
    if rules.map is None:
        return []

    def draw() -> dict[str, bytes]:
        image, _layout = render_map(MapModel(rules))
        return map_files(image, rules.title)

    return [("map", draw)]
