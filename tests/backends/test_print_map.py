"""Map tiling: any map image on Letter and A4 pages, with overlap and alignment marks."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from PIL import Image

from compiler.backends.print_and_play.geometry import A4, LETTER
from compiler.backends.print_and_play.pages import HEADER_PX
from compiler.backends.print_and_play.steps import map_files
from compiler.backends.print_and_play.tiles import (
    MARK,
    OVERLAP_PX,
    _tile,
    tile_grid,
    tile_pages,
)
from tests.print_helpers import render_pdf


def synthetic_map(width: int = 5200, height: int = 4100) -> Image.Image:
    """Every pixel tells where it is: red = x mod 251, green = y mod 241, blue = a checker."""
    x = np.arange(width)[None, :].repeat(height, 0)
    y = np.arange(height)[:, None].repeat(width, 1)
    a = np.stack([x % 251, y % 241, ((x // 97 + y // 89) % 2) * 60], axis=2).astype(np.uint8)
    return Image.fromarray(a, "RGB")


@pytest.mark.slow
@pytest.mark.parametrize("paper", [LETTER, A4], ids=lambda p: p.name)
def test_tiles_cover_the_map_with_overlap(paper):
    img = synthetic_map()
    xs, ys, w, h = tile_grid(img.size, paper)
    assert xs[0] == 0 and ys[0] == 0
    assert xs[-1] + w == img.width and ys[-1] + h == img.height
    for starts, window in ((xs, w), (ys, h)):
        for a, b in itertools.pairwise(starts):
            assert a + window - b >= OVERLAP_PX
    pages = list(tile_pages(img, paper, "Test"))
    assert len(pages) == len(xs) * len(ys)
    src = np.asarray(img)
    for page, (top, left) in zip(pages, [(t, s) for t in ys for s in xs], strict=True):
        assert page.size == (paper.width, paper.height)
        got = np.asarray(page)[paper.margin + HEADER_PX :, paper.margin :][:h, :w]
        want = src[top : top + h, left : left + w]
        same = (got == want).all(axis=2)
        assert same.mean() > 0.99  # all but the crosshairs


@pytest.mark.slow
@pytest.mark.parametrize("paper", [LETTER, A4], ids=lambda p: p.name)
def test_alignment_marks_fall_on_the_same_map_spot_on_neighbouring_tiles(paper):
    img = synthetic_map()
    xs, ys, w, h = tile_grid(img.size, paper)
    pages = list(tile_pages(img, paper, "Test"))
    rgb = np.array([int(MARK[i : i + 2], 16) for i in (1, 3, 5)])
    spots = []
    for page, (top, left) in zip(pages, [(t, s) for t in ys for s in xs], strict=True):
        a = np.asarray(page, dtype=np.int16)[paper.margin + HEADER_PX :, paper.margin :][:h, :w]
        yy, xx = np.nonzero(np.abs(a - rgb).max(axis=2) == 0)
        spots.append({(int(x) + left, int(y) + top) for x, y in zip(xx, yy, strict=True)})
    for i in range(len(pages)):
        r, c = divmod(i, len(xs))
        if c + 1 < len(xs):
            shared = spots[i] & spots[i + 1]
            assert len(shared) > 100  # the same crosshairs, pixel for pixel
        if r + 1 < len(ys):
            assert len(spots[i] & spots[i + len(xs)]) > 100


@pytest.mark.parametrize("size", [(3000, 2600), (1000, 800)])
@pytest.mark.parametrize("paper", [LETTER, A4], ids=lambda p: p.name)
def test_a_tile_is_the_cropped_window_pixel_for_pixel(paper, size):
    """A tile pastes the whole map at an offset and whites the margins again (no
    30 MiB crop a page): the page is exactly the cropped window on white paper."""
    img = synthetic_map(*size)
    xs, ys, w, h = tile_grid(img.size, paper)
    for top, left in itertools.product(ys, xs):
        want = Image.new("RGB", (paper.width, paper.height), "white")
        window = img.crop((left, top, min(left + w, img.width), min(top + h, img.height)))
        want.paste(window, (paper.margin, paper.margin + HEADER_PX))
        got = _tile(img, paper, (left, top, left + w, top + h), [])
        assert got.tobytes() == want.tobytes()


def test_map_files_hold_the_full_image_and_tiled_pdfs():
    img = synthetic_map(3000, 2600)
    files = map_files(img, "Test")
    assert sorted(files) == ["map-a4.pdf", "map-letter.pdf", "map.png"]
    assert Image.open(io.BytesIO(files["map.png"])).size == (3000, 2600)


def test_a_map_smaller_than_the_page_leaves_the_rest_of_the_page_white():
    (page,) = tile_pages(synthetic_map(1000, 800), LETTER, "Test")
    a = np.asarray(page)
    assert (a[LETTER.margin + HEADER_PX + 800 :, :] == 255).all()
    assert (a[LETTER.margin + HEADER_PX :, LETTER.margin + 1000 :] == 255).all()


@pytest.mark.slow
def test_tiled_pdf_renders_at_paper_size(tmp_path):
    files = map_files(synthetic_map(3000, 2600), "Test")
    path = tmp_path / "map-letter.pdf"
    path.write_bytes(files["map-letter.pdf"])
    pages = render_pdf(path)
    assert len(pages) == 2  # two columns of one row
    assert all(p.size == (2550, 3300) for p in pages)
