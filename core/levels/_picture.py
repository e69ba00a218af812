"""A top-down picture of a level: one colour per cell class, markers drawn on top.

Row 0 of the picture is row 0 of the grid (north, the top), column 0 the west edge, so the picture
looks like Blender's top view of the level mesh.  Write it with :func:`core.preview.png_bytes`.
"""

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from .._checks import check_int
from ..errors import ParameterError
from ._level import Level
from ._mesh import check_level

__all__ = ["CLASS_COLOURS", "MARKER_COLOURS", "OTHER_COLOUR", "PIXELS_PER_CELL", "MAX_SIDE", "level_image"]

#: RGB of each class name (classes not listed get :data:`OTHER_COLOUR`).
CLASS_COLOURS = {
    "wall": (38, 38, 46),
    "floor": (206, 200, 184),
    "corridor": (160, 150, 128),
    "door": (178, 98, 38),
}
#: RGB of each marker kind (kinds not listed get white).
MARKER_COLOURS = {
    "spawn": (40, 190, 70),
    "exit": (60, 110, 235),
    "loot": (245, 200, 30),
    "enemy": (220, 40, 40),
}
OTHER_COLOUR = (200, 60, 200)
_OTHER_MARKER = (255, 255, 255)
#: Allowed pixels per cell, and the allowed longest side of the picture.
PIXELS_PER_CELL = (1, 64)
MAX_SIDE = (16, 16384)


def class_palette(classes: Mapping[str, int]) -> npt.NDArray[np.uint8]:
    """(256, 3) uint8: the colour of every class id (ids not named in ``classes``: OTHER_COLOUR)."""
    lut = np.empty((256, 3), np.uint8)
    lut[:] = OTHER_COLOUR
    for name, cid in sorted(classes.items(), key=lambda kv: kv[1], reverse=True):
        lut[cid] = CLASS_COLOURS.get(name, OTHER_COLOUR)
    return lut


def level_image(level: Level, *, pixels_per_cell: int | None = None, max_side: int = 1024) -> npt.NDArray[np.uint8]:
    """The level as an RGB picture: classes coloured, markers as squares of their kind's colour.

    Parameters
    ----------
    level : Level
    pixels_per_cell : int or None, optional
        Side of one cell in pixels, within :data:`PIXELS_PER_CELL`.  None: the largest that keeps the
        picture within ``max_side`` (at least 1).
    max_side : int, optional
        Longest side of the picture in pixels, within :data:`MAX_SIDE`.  A level wider than this at one
        pixel per cell is subsampled (every k-th cell; markers are still drawn, on the pixel of their cell).

    Returns
    -------
    image : (rows, cols, 3) uint8 ndarray
        Row 0 is the north (top) row of the level.  A marker fills its cell, less a one-pixel margin
        when cells are 3 pixels or more; later markers are drawn over earlier ones.

    Examples
    --------
    >>> import numpy as np
    >>> from core.levels import Level, Marker
    >>> g = np.zeros((2, 3), np.uint8); g[0, 1] = 1
    >>> img = level_image(Level(grid=g, markers=(Marker("spawn", 1, 0),)), pixels_per_cell=4)
    >>> img.shape, img[0, 0].tolist(), img[1, 5].tolist(), img[0, 4].tolist()
    ((8, 12, 3), [38, 38, 46], [40, 190, 70], [206, 200, 184])
    """
    check_level(level)
    max_side = check_int(max_side, name="max_side", bounds=MAX_SIDE)
    grid = level.grid
    rows, cols = grid.shape
    longest = max(rows, cols)
    if pixels_per_cell is None:
        ppc = max(1, min(PIXELS_PER_CELL[1], max_side // longest))
    else:
        ppc = check_int(pixels_per_cell, name="pixels_per_cell", bounds=PIXELS_PER_CELL)
        if longest * ppc > max_side:
            raise ParameterError(
                f"pixels_per_cell {ppc} makes a {cols * ppc} x {rows * ppc} picture, larger than "
                f"max_side {max_side}; use at most {max(1, max_side // longest)} or a larger max_side"
            )
    step = max(1, -(-longest // max_side))  # subsample when even one pixel per cell is too many
    lut = class_palette(level.classes)
    small = lut[grid[::step, ::step]]
    image = np.repeat(np.repeat(small, ppc, axis=0), ppc, axis=1) if ppc > 1 else small.copy()
    margin = 1 if ppc >= 3 else 0
    for m in level.markers:
        x, y = int(m.x), int(m.y)
        if not (0 <= x < cols and 0 <= y < rows):
            raise ParameterError(f"level.markers has {m!r} outside the {cols} x {rows} grid")
        r0, c0 = (y // step) * ppc, (x // step) * ppc
        colour = MARKER_COLOURS.get(m.kind, _OTHER_MARKER)
        image[r0 + margin : r0 + ppc - margin, c0 + margin : c0 + ppc - margin] = colour
    return image
