"""The 3-D tiled model: a tileset with up/down sockets stacked on a small voxel grid.

The tileset is the simple tiled model's TOML format (:mod:`._tileset`) where every tile also has
``up`` and ``down`` sockets: a tile's ``up`` socket meets the ``down`` socket of the tile above it
when the two labels are equal (``up = "a"`` below meets ``down = "a"`` above; a socket may list
several labels, ``down = ["a", "b"]``, and meets any socket sharing one). The rotated and
mirrored variants of a tile turn its four side sockets about the vertical axis and keep its up
and down sockets. The tileset's ``ground`` and ``sky`` lists name the tiles of the bottom and top
layers (``presets/wfc/blocks3d.toml``: a ground slab with house foundations at the bottom, air at
the top), and its ``edge`` socket what lies beyond the sides of a bounded grid (blocks3d: the
outside, so border houses are whole).

The grid is ``(depth, height, width)``: ``tiles[z, y, x]`` with z = 0 the bottom layer and z + 1
the layer above; rows go south as in 2-D (row + 1 is south, -y in Blender). In Blender cell
``(x, y, z)`` of size ``s`` goes to ``(x * s, -y * s, z * s)`` (plus any origin) for a tile object
modelled around its origin at the centre of the block's bottom face, placed as
:class:`~._tileset.Tileset` describes (mirror, then ``rotations`` quarter turns counter-clockwise
about +z).
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short
from ..steps import Steps, drive
from ._solver import check_cells, solve_steps
from ._tiled import TiledResult
from ._tileset import Tileset, load_tileset

__all__ = ["tiled3d", "tiled3d_steps", "Tiled3DResult", "compatible3d"]


@dataclass(frozen=True)
class Tiled3DResult(TiledResult):
    """``tiles`` (depth, height, width) int32 indices into ``tileset.names`` (z = 0 the bottom
    layer); the solver's counters; ``names`` the variant names in that shape."""


def compatible3d(tileset: Tileset) -> npt.NDArray[np.bool_]:
    """The (6, P, P) bool compatibility of a tileset in the solver's six directions.

    Directions 0-3 are the tileset's own (east, south = row + 1, west, north); 4 up (+z):
    ``compatible[4, p, q]`` when ``tileset.up[p]`` and ``tileset.down[q]`` share a label (q may sit
    on p); 5 down is its transpose. Raises :class:`ParameterError` naming the tiles without up/down sockets.

    Examples
    --------
    >>> ts = load_tileset('''
    ... [[tile]]
    ... name = "air"
    ... sockets = { north = "o", east = "o", south = "o", west = "o", up = "sky", down = "sky" }
    ... [[tile]]
    ... name = "rock"
    ... sockets = { north = "o", east = "o", south = "o", west = "o", up = "sky", down = "deep" }
    ... ''')
    >>> c = compatible3d(ts)
    >>> c.shape, bool(c[4, 1, 0]), bool(c[4, 0, 1]), bool(c[5, 0, 1])
    ((6, 2, 2), True, False, True)
    """
    missing = sorted({b for b, u in zip(tileset.base_names, tileset.up) if u is None})  # type: ignore[arg-type]
    if missing:
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise ParameterError(
            f"tileset {tileset.name!r} cannot be stacked in 3-D: tile(s) {shown}"
            " have no up/down sockets (add sockets.up and sockets.down to every tile)"
        )
    p = len(tileset.names)
    labels = {label: k for k, label in enumerate(sorted({x for s in tileset.up + tileset.down for x in s}))}  # type: ignore[operator, union-attr]  # every tile has both (checked)
    up = np.zeros((p, len(labels)), np.float32)
    down = np.zeros((p, len(labels)), np.float32)
    for i in range(p):
        up[i, [labels[x] for x in tileset.up[i]]] = 1  # type: ignore[index, union-attr]
        down[i, [labels[x] for x in tileset.down[i]]] = 1  # type: ignore[index, union-attr]
    compatible = np.zeros((6, p, p), bool)
    compatible[:4] = tileset.compatible
    compatible[4] = up @ down.T > 0
    compatible[5] = compatible[4].T
    return compatible


def _layer(tileset: Tileset, key: str, value: Any) -> npt.NDArray[np.bool_] | None:
    """Bool (P,) mask of the variants of the base tiles named by ``value`` (None: the tileset's
    own list; an empty list: every tile)."""
    names = getattr(tileset, key) if value is None else ([value] if isinstance(value, str) else list(value))
    if not all(isinstance(n, str) for n in names):
        raise ParameterError(f"{key} must be a tile name or a list of tile names, got {short(value)}")
    known = set(tileset.base_names)
    for n in names:
        if n not in known:
            raise ParameterError(f"{key}: unknown tile {short(n)} in tileset {tileset.name!r}")
    if not names:
        return None
    return np.isin(np.array(tileset.base_names, dtype=object), list(names))


def _fixed(tileset: Tileset, fixed: npt.ArrayLike, grid: tuple[int, int, int]) -> npt.NDArray[np.int64]:
    fixed = np.asarray(fixed)
    if fixed.shape != grid:
        raise ParameterError(f"fixed must be a {grid} array (depth, height, width), got shape {fixed.shape}")
    if fixed.dtype.kind in "OUS":
        lookup = np.vectorize(lambda v: -1 if v in ("", None) else tileset.index(str(v)), otypes=[np.int64])
        fixed = lookup(fixed) if fixed.size else fixed.astype(np.int64)
    return fixed


def tiled3d(
    tileset: Tileset,
    width: int,
    height: int,
    depth: int,
    *,
    periodic: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    fixed: npt.ArrayLike | None = None,
    ground: str | Sequence[str] | None = None,
    sky: str | Sequence[str] | None = None,
    edge: str | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> Tiled3DResult:
    """Fill a ``depth`` x ``height`` x ``width`` voxel grid with the tiles of ``tileset`` so that
    every pair of neighbours, side by side and stacked, is allowed.

    Parameters
    ----------
    tileset : Tileset or str or path
        A :class:`Tileset` or a TOML path/text for :func:`load_tileset`; every tile needs ``up``
        and ``down`` sockets.
    width, height, depth : int
        Grid size in cells (x, y = rows going south, z = layers going up).
    periodic : bool
        Wrap around the x and y edges (never z).
    seed, attempts, backtrack_limit : int
        As for :func:`core.wfc.solve`.
    fixed : (depth, height, width) array, optional
        Variant indices (-1 free) or variant names (``""`` or ``None`` free) the cells must hold.
    ground, sky : str or sequence of str, optional
        Base tiles allowed on the bottom (z = 0) and top (z = depth - 1) layers, every variant of
        them and nothing else. None: the tileset's ``ground`` / ``sky`` lists; ``()``: any tile.
    edge : str, optional
        The socket profile beyond the x and y edges of a bounded grid: border tiles turn a side
        meeting it outwards (houses are not cut by the border). None: the tileset's ``edge``;
        ``""``: no such rule. Ignored when ``periodic``.
    progress : callable, optional
        Passed on to the solver: ``progress(decided_cells, cells, label)`` now and then.

    Returns
    -------
    Tiled3DResult

    Raises
    ------
    ParameterError
        A bad argument; a grid of more than :data:`~core.wfc.MAX_CELLS` cells (width x height x
        depth), or whose cells x tile variants pass the solver's ``MAX_CELL_PATTERNS``, is refused
        before anything is allocated.
    Contradiction
        No stacking within the attempts (``cell`` is (x, y, z)).

    Examples
    --------
    >>> ts = load_tileset('''
    ... sky = "air"
    ... [[tile]]
    ... name = "air"
    ... sockets = { north = "o", east = "o", south = "o", west = "o", up = "a", down = "a" }
    ... [[tile]]
    ... name = "tower"
    ... sockets = { north = "o", east = "o", south = "o", west = "o", up = "t", down = "t" }
    ... [[tile]]
    ... name = "spire"
    ... sockets = { north = "o", east = "o", south = "o", west = "o", up = "a", down = "t" }
    ... ''')
    >>> r = tiled3d(ts, 3, 2, 4, seed=1)
    >>> r.tiles.shape, r.names[-1, 0, 0]
    ((4, 2, 3), 'air')
    """
    steps = tiled3d_steps(
        tileset,
        width,
        height,
        depth,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        fixed=fixed,
        ground=ground,
        sky=sky,
        edge=edge,
    )
    return drive(steps, progress)


def tiled3d_steps(
    tileset: Tileset,
    width: int,
    height: int,
    depth: int,
    *,
    periodic: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    fixed: npt.ArrayLike | None = None,
    ground: str | Sequence[str] | None = None,
    sky: str | Sequence[str] | None = None,
    edge: str | None = None,
) -> Steps[Tiled3DResult]:
    """:func:`tiled3d` as a step generator (:mod:`core.steps`): yields ``(decided_cells, cells,
    label)`` now and then and returns the :class:`Tiled3DResult`; drive it with
    :func:`core.steps.drive`. The arguments are checked at the call (a :class:`ParameterError`
    is raised before any step).
    """
    tileset, args = _prepare(tileset, width, height, depth, periodic, fixed, ground, sky, edge)
    return _steps(tileset, args, width, height, depth, periodic, seed, attempts, backtrack_limit)


def _steps(
    tileset: Tileset,
    args: Mapping[str, Any],
    width: int,
    height: int,
    depth: int,
    periodic: bool,
    seed: int,
    attempts: int,
    backtrack_limit: int,
) -> Steps[Tiled3DResult]:
    result = yield from solve_steps(
        tileset.weights,
        args["compatible"],
        width,
        height,
        depth=depth,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        fixed=args["fixed"],
        allowed=args["allowed"],
    )
    return Tiled3DResult(result.indices.reshape(args["grid"]), tileset, result.attempts, result.backtracks)


def _prepare(
    tileset: Tileset,
    width: int,
    height: int,
    depth: int,
    periodic: bool,
    fixed: npt.ArrayLike | None,
    ground: str | Sequence[str] | None,
    sky: str | Sequence[str] | None,
    edge: str | None,
) -> tuple[Tileset, dict[str, Any]]:
    """The tileset and the solver's arrays, every argument checked."""
    if not isinstance(tileset, Tileset):
        tileset = load_tileset(tileset)
    for key, value in (("width", width), ("height", height), ("depth", depth)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(f"{key} must be an integer >= 1, got {value!r}")
    check_cells(width, height, depth, patterns=len(tileset.names))  # before any (cells, P) array
    compatible = compatible3d(tileset)
    grid = (depth, height, width)
    if fixed is not None:
        fixed = _fixed(tileset, fixed, grid)
    allowed: npt.NDArray[np.bool_] | None
    allowed = np.ones((*grid, len(tileset.names)), bool)
    for key, layer, z in (("ground", ground, 0), ("sky", sky, depth - 1)):
        mask = _layer(tileset, key, layer)
        if mask is not None:
            allowed[z] &= mask
    edge = tileset.edge if edge is None else edge
    if not isinstance(edge, (str, type(None))):
        raise ParameterError(f"edge must be a socket profile string ('' for none), got {short(edge)}")
    if edge and not periodic:
        meets = tileset.meets(edge)  # (4, P): east, south, west, north
        allowed[:, :, -1] &= meets[0]
        allowed[:, -1] &= meets[1]
        allowed[:, :, 0] &= meets[2]
        allowed[:, 0] &= meets[3]
    if allowed.all():
        allowed = None
    if depth == 1:  # the solver takes a one-layer grid as 2-D arrays
        fixed = None if fixed is None else fixed[0]
        allowed = None if allowed is None else allowed[0]
    return tileset, {"compatible": compatible, "grid": grid, "fixed": fixed, "allowed": allowed}
