"""Settlements drawn onto a picture of their terrain (the gallery's and the docs' plans).

``draw_settlements`` paints pads, streets, lots, houses (by roof), walls, gates and doors onto an
RGB image covering the settlements' grid, north (the heights' last row) at the top, as
``core.preview.shaded_relief`` draws the terrain.  Convex polygons are filled by half-plane tests
over their bounding boxes (vectorised), a pixel being in when its centre is.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._settlements import Settlements

__all__ = ["draw_settlements", "PLAN_COLOURS"]

#: sRGB colours of the plan, by part.
PLAN_COLOURS = {
    "pad": (196, 182, 140),
    "street": (226, 222, 210),
    "lot": (150, 182, 104),
    "gable": (176, 66, 48),
    "hip": (124, 58, 92),
    "wall": (72, 68, 64),
    "gate": (250, 220, 60),
    "door": (250, 220, 60),
}


def _fill(
    image: npt.NDArray[np.uint8],
    poly: npt.NDArray[np.float64],
    colour: tuple[int, int, int],
    to_px: tuple[float, float, float, float],
) -> None:
    """Fill the convex polygon ``poly`` (n, 2) Blender metres, counter-clockwise, into ``image``."""
    x0, y_top, sx, sy = to_px
    px = (poly[:, 0] - x0) * sx  # columns
    py = (y_top - poly[:, 1]) * sy  # rows (down)
    h, w = image.shape[:2]
    c0, c1 = max(0, int(np.floor(px.min()))), min(w, int(np.ceil(px.max())) + 1)
    r0, r1 = max(0, int(np.floor(py.min()))), min(h, int(np.ceil(py.max())) + 1)
    if c0 >= c1 or r0 >= r1:
        return
    cc, rr = np.meshgrid(np.arange(c0, c1) + 0.5, np.arange(r0, r1) + 0.5)
    inside = np.ones(cc.shape, bool)
    n = len(px)
    for i in range(n):  # counter-clockwise in metres is clockwise in pixels (rows run down)
        ax, ay, bx, by = px[i], py[i], px[(i + 1) % n], py[(i + 1) % n]
        inside &= (bx - ax) * (rr - ay) - (by - ay) * (cc - ax) <= 0.0
    image[r0:r1, c0:c1][inside] = colour


def _dot(
    image: npt.NDArray[np.uint8], x: float, y: float, colour: tuple[int, int, int], to_px: tuple[float, ...]
) -> None:
    x0, y_top, sx, sy = to_px
    c, r = int((x - x0) * sx), int((y_top - y) * sy)
    h, w = image.shape[:2]
    image[max(0, r - 1) : min(h, r + 2), max(0, c - 1) : min(w, c + 2)] = colour


def draw_settlements(
    image: npt.ArrayLike, settlements: Settlements, *, doors: bool = True, south_first: bool = False
) -> npt.NDArray[np.uint8]:
    """A copy of ``image`` ((H, W, 3) uint8 over the settlements' whole grid, north at the top; with
    ``south_first`` row 0 is the south edge, as the heights and a relief's ground colours) with the
    settlements painted on.
    """
    out = np.array(image, np.uint8, copy=True)
    if out.ndim != 3 or out.shape[2] != 3:
        raise ValueError(f"image must be (H, W, 3) uint8, got shape {out.shape}")
    if south_first:
        return np.ascontiguousarray(draw_settlements(out[::-1], settlements, doors=doors)[::-1])
    rows, cols = settlements.heights.shape
    x0, y0 = settlements.origin
    width_m = (cols - 1) * settlements.cell_size
    height_m = (rows - 1) * settlements.cell_size
    to_px = (x0, y0 + height_m, out.shape[1] / width_m, out.shape[0] / height_m)
    for site in settlements.sites:
        _fill(out, site.outline, PLAN_COLOURS["pad"], to_px)
        for lot in site.lots:
            _fill(out, lot, PLAN_COLOURS["lot"], to_px)
        for street in site.streets:
            _fill(out, street, PLAN_COLOURS["street"], to_px)
        for b in site.buildings:
            _fill(out, b.footprint, PLAN_COLOURS[b.roof], to_px)
        for a, c in site.wall:
            d = c - a
            n = np.array([d[1], -d[0]]) / np.sqrt(d[0] * d[0] + d[1] * d[1]) * 0.9
            _fill(out, np.array([a + n, c + n, c - n, a - n]), PLAN_COLOURS["wall"], to_px)
        for x, y in site.gates.tolist():
            _dot(out, x, y, PLAN_COLOURS["gate"], to_px)
        if doors:
            for b in site.buildings:
                _dot(out, b.door[0], b.door[1], PLAN_COLOURS["door"], to_px)
    return out
