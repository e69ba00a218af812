"""Modular kit placement: which module goes on which cell, and how it is turned.

Modules and their rest orientation
----------------------------------
A module's origin is the centre of its cell at floor level; it is ``cell_size`` wide.  ``yaw`` turns it
counter-clockwise about +Z (seen from above).  At rest (yaw 0) a module's **front**, the side that
faces the walkable space, looks **-Y** (south, Blender's front view)::

    role          placed on                                   at rest (yaw 0)
    floor         a walkable cell (floor, corridor, ...)      any (yaw 0)
    door          a door cell                                 passage along Y: walls to its -X and +X
    wall          wall cell, one walkable side                front -Y
    outer_corner  wall cell, two adjacent walkable sides      fronts -Y and -X (a corner jutting into
                  (the wall mass's convex corner)             the room, open to the south-west)
    wall_double   wall cell, two opposite walkable sides      fronts -Y and +Y (a thin wall between two floors)
    wall_end      wall cell, three walkable sides             fronts -Y, -X, +X; joins the wall at +Y
    pillar        wall cell, four walkable sides              any (yaw 0)
    inner_corner  wall cell, no walkable side, one walkable   the walkable diagonal at -X -Y (south-west):
                  diagonal (a room's concave corner)          the corner of a room seen from inside
    junction      wall cell, no walkable side, two or more    any (yaw 0): where thin walls meet
                  walkable diagonals

Every neighbour bitmask maps to exactly one role (:func:`kit_role_table`): the four side bits decide
among wall .. pillar; only when no side is walkable do the diagonals matter (none: the cell is
buried in rock and gets no module).  Outside the map counts as wall.  So every wall cell that
touches a walkable cell (by side or corner) gets exactly one module.

Yaw of a one-sided module is such that its front looks at the walkable neighbour: front -Y turned
by ``yaw`` is ``(sin yaw, -cos yaw)``.  Yaws are multiples of pi/2 in ``[0, 2 pi)``.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._checks import check_float
from ._autotile import NE, NW, SE, SW, E, N, S, W, blob_masks
from ._level import Level
from ._mesh import CELL_SIZE, check_level, check_origin

__all__ = ["KIT_ROLES", "KitPlacements", "kit_placements", "kit_role_table", "MAX_KIT_CELLS"]

#: Role names, in the order of the ``role`` indices.
KIT_ROLES = (
    "floor",
    "door",
    "wall",
    "outer_corner",
    "inner_corner",
    "wall_end",
    "pillar",
    "wall_double",
    "junction",
)
_R = {name: k for k, name in enumerate(KIT_ROLES)}
_NONE = 255
#: Most cells a placement is computed for (as a level grid).
MAX_KIT_CELLS = 4096 * 4096

_Q = math.pi / 2


def _table() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """(256,) role and (256,) yaw of a wall cell by its 8-neighbour walkable mask."""
    role = np.full(256, _NONE, np.uint8)
    yaw = np.zeros(256, np.float32)
    # Quarter turns that bring the rest pose onto the mask: rest front -Y (S); turn k: S -> E -> N -> W.
    side_after = {0: S, 1: E, 2: N, 3: W}
    diag_after = {0: SW, 1: SE, 2: NE, 3: NW}
    for m in range(256):
        sides = [bit for bit in (N, E, S, W) if m & bit]
        if not sides:
            diags = [bit for bit in (SW, SE, NE, NW) if m & bit]
            if len(diags) == 1:
                role[m] = _R["inner_corner"]
                yaw[m] = next(k for k in range(4) if diag_after[k] == diags[0]) * _Q
            elif diags:
                role[m] = _R["junction"]
            continue
        n = len(sides)
        if n == 1:
            role[m] = _R["wall"]
            yaw[m] = next(k for k in range(4) if side_after[k] == sides[0]) * _Q
        elif n == 2 and set(sides) in ({N, S}, {E, W}):
            role[m] = _R["wall_double"]
            yaw[m] = 0.0 if set(sides) == {N, S} else _Q
        elif n == 2:
            role[m] = _R["outer_corner"]  # rest: S and W; turn k maps S -> side_after[k], W -> side_after[k - 1]
            yaw[m] = next(k for k in range(4) if {side_after[k], side_after[(k - 1) % 4]} == set(sides)) * _Q
        elif n == 3:
            closed = ({N, E, S, W} - set(sides)).pop()
            role[m] = _R["wall_end"]  # rest: closed at N; turn k sends N to side_after[(k + 2) % 4]
            yaw[m] = next(k for k in range(4) if side_after[(k + 2) % 4] == closed) * _Q
        else:
            role[m] = _R["pillar"]
    return role, yaw


_ROLE_OF_MASK, _YAW_OF_MASK = _table()
_ROLE_OF_MASK.setflags(write=False)
_YAW_OF_MASK.setflags(write=False)


def kit_role_table() -> tuple[tuple[str | None, ...], npt.NDArray[np.float32]]:
    """The complete mapping for wall cells: (256,) role names (None: no module) and yaws, by mask.

    The mask is :func:`~core.levels.blob_masks` of the walkable cells (N=1, NE=2, E=4, SE=8, S=16,
    SW=32, W=64, NW=128), taken raw (a diagonal counts even without its sides).

    >>> roles, yaws = kit_role_table()
    >>> roles[0], roles[16], float(yaws[16]), roles[4], round(float(yaws[4]), 4), roles[32]
    (None, 'wall', 0.0, 'wall', 1.5708, 'inner_corner')
    """
    names = tuple(None if r == _NONE else KIT_ROLES[r] for r in _ROLE_OF_MASK)
    return names, _YAW_OF_MASK.copy()


@dataclass(frozen=True, slots=True, eq=False)
class KitPlacements:
    """Where the kit's modules go.

    Attributes
    ----------
    roles : tuple of str
        :data:`KIT_ROLES`; ``role`` indexes it.
    role : (n,) uint8 ndarray
    positions : (n, 3) float32 ndarray
        Blender metres: the cell centre at floor level.
    yaw : (n,) float32 ndarray
        Radians about +Z (counter-clockwise from above), multiples of pi/2 in [0, 2 pi).
    cells : (n, 2) int32 ndarray
        ``(x, y)`` cell (column, row) of each module.

    Modules come in row-major cell order (row 0 first), one per cell.
    """

    roles: tuple[str, ...]
    role: npt.NDArray[np.uint8]
    positions: npt.NDArray[np.float32]
    yaw: npt.NDArray[np.float32]
    cells: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return len(self.role)

    def counts(self) -> dict[str, int]:
        """Role name -> number of modules of it (every role listed, zeros too)."""
        c = np.bincount(self.role, minlength=len(self.roles))
        return {name: int(c[k]) for k, name in enumerate(self.roles)}


def kit_placements(
    level: Level, *, cell_size: float = 2.0, origin: Sequence[float] | npt.NDArray[np.float64] = (0.0, 0.0, 0.0)
) -> KitPlacements:
    """One module per walkable cell and per wall cell touching a walkable cell, with its yaw.

    Parameters
    ----------
    level : Level
        Door cells are those of class ``"door"`` (when the level has that class).
    cell_size : float, optional
        Metres per cell, within ``CELL_SIZE``.
    origin : (3,) sequence of float, optional
        Blender position of the level's south-west floor corner (as :func:`level_mesh`).

    Returns
    -------
    placements : KitPlacements

    Examples
    --------
    >>> import numpy as np
    >>> from core.levels import Level
    >>> g = np.zeros((3, 3), np.uint8); g[1, 1] = 1
    >>> k = kit_placements(Level(grid=g), cell_size=2.0)
    >>> {name: n for name, n in k.counts().items() if n}
    {'floor': 1, 'wall': 4, 'inner_corner': 4}
    """
    level = check_level(level)
    cs = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    origin = np.array(check_origin(origin), dtype=np.float64)
    grid = level.grid
    walk = grid != level.classes["wall"]
    masks = blob_masks(walk)
    role = _ROLE_OF_MASK[masks]
    yaw = _YAW_OF_MASK[masks]
    door_id = level.classes.get("door")
    is_door = (grid == door_id) if door_id is not None else np.zeros(grid.shape, bool)
    role = np.where(walk, np.where(is_door, np.uint8(_R["door"]), np.uint8(_R["floor"])), role)
    # a door whose passage runs along X (walkable west or east, walls north and south) turns a quarter
    door_x = is_door & ((masks & (N | S)) == 0) & ((masks & (E | W)) != 0)
    yaw = np.where(walk, np.where(door_x, np.float32(_Q), np.float32(0.0)), yaw)
    rows, cols = np.nonzero(role != _NONE)
    h = grid.shape[0]
    pos = np.empty((len(rows), 3), dtype=np.float64)
    pos[:, 0] = (cols + 0.5) * cs
    pos[:, 1] = (h - rows - 0.5) * cs
    pos[:, 2] = 0.0
    pos += origin
    return KitPlacements(
        roles=KIT_ROLES,
        role=role[rows, cols],
        positions=pos.astype(np.float32),
        yaw=yaw[rows, cols].astype(np.float32),
        cells=np.stack([cols, rows], axis=1).astype(np.int32),
    )
