"""Debug renderings of a built module, read back from the zip alone.

`grid_picture` draws the centre of every hex as VASSAL's HexGrid puts it
(from the parameters in buildFile.xml) on the board image, with its
`ccrr` label; `setup_picture` draws a scenario's `.vsav`, decoded, onto the
board: each stack's counters where the saved game puts them. Run

    python -m tests.vassal_render generated/newtown/newtown.vmod historical /tmp/out

to write both PNGs (and the tracks board) for a look.
"""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from PIL import Image, ImageDraw

from tests.vassal_decode import read_save

HEXGRID = "VASSAL.build.module.map.boardPicker.board.HexGrid"
NUMBERING = "VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering"


def grid_params(xml: bytes) -> dict[str, float]:
    root = ET.fromstring(xml)
    grid = next(root.iter(HEXGRID))
    numbering = next(grid.iter(NUMBERING))
    p = {k: float(grid.get(k)) for k in ("x0", "y0", "dx", "dy")}
    p.update(hOff=int(numbering.get("hOff")), vOff=int(numbering.get("vOff")))
    return p


def vassal_centre(p: dict[str, float], label: str) -> tuple[float, float]:
    """FORMAT.md's formula for HexGrid sideways=false with the xxyy numbering."""
    i, j = int(label[:2]) - p["hOff"], int(label[2:]) - p["vOff"]
    return p["x0"] + i * p["dx"], p["y0"] + j * p["dy"] + (p["dy"] / 2 if i % 2 else 0)


def vassal_snap(p: dict[str, float], label: str) -> tuple[int, int]:
    """The point VASSAL 3.7's HexGrid snaps to in hex `label` (Java int casts truncate)."""
    i, j = int(label[:2]) - p["hOff"], int(label[2:]) - p["vOff"]
    x = int(p["dx"] * i + p["x0"])
    y = int(p["dy"] * j + p["y0"]) if i % 2 == 0 else int(p["dy"] * j + int(p["dy"] / 2) + p["y0"])
    return x, y


def vassal_label(p: dict[str, float], x: float, y: float) -> str:
    """The hex a point lies in: the nearest centre (inverse of `vassal_centre`)."""
    i = round((x - p["x0"]) / p["dx"])
    best = None
    for ii in (i - 1, i, i + 1):
        shift = p["dy"] / 2 if ii % 2 else 0
        j = round((y - p["y0"] - shift) / p["dy"])
        for jj in (j - 1, j, j + 1):
            cx, cy = p["x0"] + ii * p["dx"], p["y0"] + jj * p["dy"] + shift
            d = (cx - x) ** 2 + (cy - y) ** 2
            if best is None or d < best[0]:
                best = (d, f"{ii + p['hOff']:02d}{jj + p['vOff']:02d}")
    return best[1]


def _image(z: zipfile.ZipFile, name: str) -> Image.Image:
    return Image.open(io.BytesIO(z.read(f"images/{name}"))).convert("RGBA")


def grid_picture(vmod: bytes, labels: list[str]) -> Image.Image:
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        p = grid_params(z.read("buildFile.xml"))
        img = _image(z, "board.png")
    d = ImageDraw.Draw(img)
    for label in labels:
        x, y = vassal_centre(p, label)
        d.ellipse((x - 5, y - 5, x + 5, y + 5), fill=(230, 0, 200))
        d.text((x + 7, y - 6), label, fill=(230, 0, 200))
    return img


def setup_picture(vmod: bytes, scenario: str) -> dict[str, Image.Image]:
    """The main map and the tracks board with the set-up's counters on them."""
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        save = read_save(z.read(f"{scenario}.vsav"))
        boards = {"Map": _image(z, "board.png"), "Tracks": _image(z, "tracks.png")}
        for map_, x, y, ids in save.stacks:
            for k, pid in enumerate(ids):
                piece = save.pieces[pid]
                face = _image(z, piece.image)
                layers = [t for t in piece.trait("emb2") if int(t.state) > 0]
                for t in layers:  # an active layer: its image over the counter
                    level = int(t.state)
                    face.alpha_composite(_image(z, t.fields[15].split(",")[level - 1]))
                w, h = face.size
                off = 4 * k  # VASSAL draws a stack's counters a few pixels apart
                boards[map_].alpha_composite(face, (x - w // 2 + off, y - h // 2 - off))
    return boards


def main(argv: list[str]) -> None:
    vmod, scenario, out = Path(argv[0]).read_bytes(), argv[1], Path(argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for name, img in setup_picture(vmod, scenario).items():
        img.convert("RGB").save(out / f"{scenario}-{name}.png")


if __name__ == "__main__":
    main(sys.argv[1:])
