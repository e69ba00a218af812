"""The simple tiled model: a tileset's variants and adjacency handed to the one solver."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._checks import check_bool
from ..errors import ParameterError, short
from ..spec import did_you_mean
from ..steps import Steps, drive
from ._constraints import Connected, Constraint, Counts, check_bounds, check_points, painted_cells
from ._solver import SolveResult, check_cells, solve_steps
from ._tileset import Tileset, load_tileset

__all__ = ["tiled", "tiled_steps", "TiledResult"]


@dataclass(frozen=True)
class TiledResult:
    """``tiles`` (height, width) int32 indices into ``tileset.names``; the solver's counters."""

    tiles: npt.NDArray[np.int32]
    tileset: Tileset
    attempts: int
    backtracks: int

    @property
    def names(self) -> npt.NDArray[np.object_]:
        """The variant names, in the shape of ``tiles``."""
        return np.array(self.tileset.names, dtype=object)[self.tiles]


def tiled(
    tileset: Tileset,
    width: int,
    height: int,
    *,
    periodic: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    fixed: Mapping[tuple[int, int], str] | npt.ArrayLike | None = None,
    connected: bool = False,
    connect_points: Sequence[tuple[int, int]] = (),
    wrap: bool = True,
    counts: Mapping[str, tuple[int, int | None]] | None = None,
    edge: str | None = None,
    accept: Callable[[npt.NDArray[np.int32]], object] | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> TiledResult:
    """Fill a ``height`` x ``width`` grid with the tiles of ``tileset`` (a :class:`Tileset`, or a
    TOML path/text for :func:`load_tileset`) so that every neighbouring pair is allowed.

    ``fixed`` is an optional (height, width) array of variant indices (-1 free) or of variant
    names (``""`` or ``None`` free), or a dict ``{(x, y): tile}`` of painted cells, where a base
    tile name allows any of its turns (``{(0, 0): "rock", (5, 2): "bend 1"}``).  Raises
    :class:`Contradiction` naming the cell when no tiling
    is found within ``attempts`` restarts of ``backtrack_limit`` backtracks each.

    Global constraints (:mod:`._constraints`):

    - ``connected``: the cells of walkable tiles (:attr:`Tileset.walkable`: every class but
      ``"wall"``) form one 4-connected region (across the edges when ``periodic``, unless
      ``wrap=False``).
    - ``connect_points``: (x, y) cells that must be walkable and in that region (needs
      ``connected``).
    - ``wrap``: with ``periodic``, whether paths of ``connected`` may cross the grid's edges
      (default True); ``wrap=False`` asks for one region on the finite grid (a level cut from a
      tiling output). :class:`Connected`'s ``wrap``.
    - ``counts``: ``{base tile name: (min, max)}`` (``max`` None: no bound): how many cells show the
      tile, *any* of its rotated/mirrored variants counting (``{"door": (2, 6)}`` means 2 to 6 doors
      however they are turned). A minimum larger than the cells fails at once.

    ``edge``: the socket profile beyond a bounded grid's sides (default: the tileset's ``edge``;
    ``""`` none): border tiles turn a side meeting it outwards (a dungeon ringed by rock).

    ``accept(tiles)``: called with each solved grid of variant indices; raising
    :class:`Unsatisfied` (a flat cell index ``y * width + x`` and the reason) refuses it and the
    next attempt starts (:func:`.solve`'s ``accept``).

    ``progress(done, total, label)`` is called now and then; :func:`tiled_steps` is the step
    generator behind it (progress bars with cancel).

    Examples
    --------
    >>> ts = load_tileset('''
    ... [[tile]]
    ... name = "road"
    ... symmetry = "I"
    ... sockets = { north = "r", south = "r", east = "g", west = "g" }
    ... [[tile]]
    ... name = "grass"
    ... sockets = { north = "g", south = "g", east = "g", west = "g" }
    ... ''')
    >>> result = tiled(ts, 6, 4, seed=1)
    >>> result.tiles.shape, result.attempts
    ((4, 6), 1)
    """
    return drive(
        tiled_steps(
            tileset,
            width,
            height,
            periodic=periodic,
            seed=seed,
            attempts=attempts,
            backtrack_limit=backtrack_limit,
            fixed=fixed,
            connected=connected,
            connect_points=connect_points,
            wrap=wrap,
            counts=counts,
            edge=edge,
            accept=accept,
        ),
        progress,
    )


def tiled_steps(
    tileset: Tileset,
    width: int,
    height: int,
    *,
    periodic: bool = False,
    seed: int = 0,
    attempts: int = 10,
    backtrack_limit: int = 1000,
    fixed: Mapping[tuple[int, int], str] | npt.ArrayLike | None = None,
    connected: bool = False,
    connect_points: Sequence[tuple[int, int]] = (),
    wrap: bool = True,
    counts: Mapping[str, tuple[int, int | None]] | None = None,
    edge: str | None = None,
    accept: Callable[[npt.NDArray[np.int32]], object] | None = None,
) -> Steps[TiledResult]:
    """:func:`tiled` as a step generator (:mod:`core.steps`): the arguments are checked at the
    call; the generator yields ``(done, total, label)`` while solving and returns the
    :class:`TiledResult`."""
    if not isinstance(tileset, Tileset):
        tileset = load_tileset(tileset)
    _check_sides(width, height)
    check_cells(width, height)  # before the constraints' and the edge's per-cell arrays
    constraints = _constraints(tileset, width, height, periodic, connected, connect_points, wrap, counts)
    painted = None
    if isinstance(fixed, dict):  # {(x, y): tile}: a base tile allows any of its turns
        painted, fixed = _painted_cells(tileset, width, height, fixed), None
    if fixed is not None:
        fixed = np.asarray(fixed)
        if fixed.dtype.kind in "OUS":
            lookup = np.vectorize(lambda v: -1 if v in ("", None) else tileset.index(str(v)), otypes=[np.int64])
            fixed = lookup(fixed) if fixed.size else fixed.astype(np.int64)
    allowed = _edge_allowed(tileset, width, height, periodic, edge)
    if painted:
        if allowed is None:
            allowed = np.ones((height, width, len(tileset.names)), bool)
        for (x, y), row in painted.items():
            allowed[y, x] &= row
    steps = solve_steps(
        tileset.weights,
        tileset.compatible,
        width,
        height,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        fixed=fixed,
        allowed=allowed,
        constraints=constraints,
        accept=accept,
    )
    return _result(steps, tileset)


def _check_sides(width: int, height: int) -> None:
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(f"{name} must be an integer >= 1, got {short(value)}")


def _painted_cells(
    tileset: Tileset, width: int, height: int, fixed: Mapping[tuple[int, int], str]
) -> dict[tuple[int, int], npt.NDArray[np.bool_]]:
    """``{(x, y): (P,) bool}`` of a ``fixed`` dict ``{(x, y): tile}``: a variant name (``"bend 1"``)
    allows that variant, a base tile name any of its turns and mirrors."""
    _check_sides(width, height)
    base = np.array(tileset.base_names, dtype=object)
    out = {}
    for (x, y), tile in painted_cells(fixed, width, height, "tile"):
        if not isinstance(tile, str):
            raise ParameterError(f"fixed[{(x, y)}] must be a tile name, got {short(tile)}")
        row = base == tile
        if not row.any():
            row = np.zeros(len(base), bool)
            row[tileset.index(tile)] = True
        out[(x, y)] = row
    return out


def _edge_allowed(
    tileset: Tileset, width: int, height: int, periodic: bool, edge: str | None
) -> npt.NDArray[np.bool_] | None:
    """The solver's ``allowed`` mask that turns a side meeting ``edge`` (default: the tileset's
    ``edge``) outwards on every border cell of a bounded grid, or None."""
    edge = (tileset.edge or "") if edge is None else edge
    if not isinstance(edge, str):
        raise ParameterError(f"edge must be a socket profile string ('' for none), got {short(edge)}")
    if not edge or periodic:
        return None
    _check_sides(width, height)
    meets = tileset.meets(edge)  # (4, P): east, south, west, north
    allowed = np.ones((height, width, len(tileset.names)), bool)
    allowed[:, -1] &= meets[0]
    allowed[-1] &= meets[1]
    allowed[:, 0] &= meets[2]
    allowed[0] &= meets[3]
    return allowed


def _result(steps: Steps[SolveResult], tileset: Tileset) -> Steps[TiledResult]:
    result = yield from steps
    return TiledResult(result.indices, tileset, result.attempts, result.backtracks)


def _constraints(
    tileset: Tileset,
    width: int,
    height: int,
    periodic: bool,
    connected: bool,
    connect_points: Sequence[tuple[int, int]],
    wrap: bool,
    counts: Mapping[str, tuple[int, int | None]] | None,
) -> tuple[Constraint, ...]:
    """The solver's constraints for ``connected``, ``connect_points``, ``wrap`` and ``counts``, checked."""
    out: list[Constraint] = []
    wrap = check_bool(wrap, name="wrap")  # checked even unused: a typo should not wait for connected
    if check_points(connected, connect_points):
        out.append(
            Connected(
                tileset.walkable,
                width,
                height,
                points=connect_points,
                periodic=check_bool(periodic, name="periodic"),
                wrap=wrap,
                points_name="connect_points",
            )
        )
    if counts is not None:
        if not isinstance(counts, dict):
            raise ParameterError(f"counts must be a dict {{tile name: (min, max)}}, got {short(counts)}")
        bases = list(dict.fromkeys(tileset.base_names))
        limits = {}
        for name, bounds in counts.items():
            if name not in bases:
                raise ParameterError(
                    f"counts: unknown tile {short(name)} in tileset {tileset.name!r}{did_you_mean(name, bases)}"
                    f" (tiles: {', '.join(bases)})"
                )
            limits[bases.index(name)] = check_bounds(bounds, f"counts[{name!r}]")
        if limits:
            values = np.array([bases.index(b) for b in tileset.base_names])
            names = {i: f"tile {b!r}" for i, b in enumerate(bases)}
            out.append(Counts(values, limits, width, height, names=names))
    return tuple(out)
