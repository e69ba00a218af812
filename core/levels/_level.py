"""The one data contract of every level generator: a grid of cell classes, rooms, doors, markers."""

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError

__all__ = ["Level", "WfcRecord", "Marker", "CLASSES", "WALL", "FLOOR", "CORRIDOR", "DOOR", "MARKER_KINDS", "MAX_CELLS"]

#: Cell class ids (uint8), the same in every level: walkable is every class but ``wall``.
WALL, FLOOR, CORRIDOR, DOOR = 0, 1, 2, 3
CLASSES = {"wall": WALL, "floor": FLOOR, "corridor": CORRIDOR, "door": DOOR}
#: Kinds of typed points a level may carry.
MARKER_KINDS = ("spawn", "exit", "loot", "enemy")
#: Most cells a level grid may hold (4096 x 4096: 16 MB of classes, and far more as a mesh).
MAX_CELLS = 4096 * 4096


class Marker(NamedTuple):
    """A typed point on a walkable cell: ``kind`` (one of :data:`MARKER_KINDS`), column ``x``, row ``y``."""

    kind: str
    x: int
    y: int


@dataclass(frozen=True, eq=False)
class WfcRecord:
    """What Wave Function Collapse made a level of (``Level.wfc``; None for the other generators).

    Attributes
    ----------
    model : str
        ``"tiled"`` or ``"overlapping"``.
    ids : (height, width) int32 ndarray
        Per cell: the tile variant (tiled: an index into ``names``) or the sample value (overlapping:
        an index into ``palette``).
    names : tuple of str
        One per id: the variant names (``"wall 1"``) or the sample values as text (``"0"``, ``"#ff8000"``).
    palette : tuple
        Overlapping: the sample values per id (ints, or ``(r, g, b)`` of an image); tiled: ``()``.
    classes : tuple of int
        The level class (``wall`` 0, ``floor`` 1, ``corridor`` 2, ``door`` 3) of each id.
    attempts, backtracks : int
        The solver's counters.
    source : str
        The tileset or sample: a preset name, or the file's name.
    base_names, turns, mirrored : tuple
        Tiled: each variant's base tile, quarter turns clockwise on the map, and left-right mirror
        (variant = turn(mirror(base))), for placing the artist's tile objects; ``()`` otherwise.
    """

    model: str
    ids: npt.NDArray[np.int32]
    names: tuple[str, ...]
    palette: tuple[int | tuple[int, ...], ...] = ()
    classes: tuple[int, ...] = ()
    attempts: int = 1
    backtracks: int = 0
    source: str = ""
    base_names: tuple[str, ...] = ()
    turns: tuple[int, ...] = ()
    mirrored: tuple[bool, ...] = ()


@dataclass(frozen=True, eq=False)
class Level:
    """A generated level.

    Attributes
    ----------
    grid : (height, width) uint8 ndarray
        Class id of every cell (:data:`CLASSES`); row 0 is the top (north) row, as in a Tiled map;
        column 0 the west column.
    classes : dict
        Class name -> id (at least ``"wall"`` and ``"floor"``).
    rooms : tuple of (x, y, w, h)
        Rectangles in cells (``x`` column and ``y`` row of the top-left cell).
    doors : tuple of (x, y)
        Door cells.
    markers : tuple of :class:`Marker`
        ``(kind, x, y)``: exactly one ``spawn``; ``exit``, ``loot``, ``enemy`` as the generator makes them.
    seed : int
        The seed that made it.
    generator : str
        ``"bsp"``, ``"cave"``, ``"maze"``, ``"walk"``, ``"rooms_caves"``, ``"wfc_tiled"``,
        ``"wfc_overlapping"`` or ``"wfc"``.
    settings : dict
        The generator's keyword settings (what it was called with).
    wfc : WfcRecord or None
        The Wave Function Collapse tiles or sample values behind the classes (WFC generators only).
    """

    grid: npt.NDArray[np.uint8]
    classes: dict[str, int] = field(default_factory=lambda: dict(CLASSES))
    rooms: tuple[tuple[int, int, int, int], ...] = ()
    doors: tuple[tuple[int, int], ...] = ()
    markers: tuple[Marker, ...] = ()
    seed: int = 0
    generator: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    wfc: WfcRecord | None = None

    def __post_init__(self) -> None:
        g = self.grid
        if not isinstance(g, np.ndarray) or g.dtype != np.uint8 or g.ndim != 2:
            got = f"{g.dtype} {g.shape}" if isinstance(g, np.ndarray) else type(g).__name__
            raise ParameterError(f"grid must be a 2-D uint8 array, got {got}")

    @property
    def height(self) -> int:
        """Rows of the grid."""
        return self.grid.shape[0]

    @property
    def width(self) -> int:
        """Columns of the grid."""
        return self.grid.shape[1]

    @property
    def walkable(self) -> npt.NDArray[np.bool_]:
        """(height, width) bool: every cell that is not wall."""
        return self.grid != self.classes["wall"]

    def markers_of(self, kind: str) -> tuple[Marker, ...]:
        """The markers of one kind, in order."""
        return tuple(m for m in self.markers if m.kind == kind)

    @property
    def spawn(self) -> Marker:
        """The spawn marker."""
        return self.markers_of("spawn")[0]
