"""The simple tiled model: a tileset's variants and adjacency handed to the one solver."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._solver import solve
from ._tileset import Tileset, load_tileset

__all__ = ["tiled", "TiledResult"]


@dataclass(frozen=True)
class TiledResult:
    """``tiles`` (height, width) int32 indices into ``tileset.names``; the solver's counters."""

    tiles: np.ndarray
    tileset: Tileset
    attempts: int
    backtracks: int

    @property
    def names(self):
        """(height, width) array of the variant names."""
        return np.array(self.tileset.names, dtype=object)[self.tiles]


def tiled(
    tileset,
    width,
    height,
    *,
    periodic=False,
    seed=0,
    attempts=10,
    backtrack_limit=1000,
    fixed=None,
):
    """Fill a ``height`` x ``width`` grid with the tiles of ``tileset`` (a :class:`Tileset`, or a
    TOML path/text for :func:`load_tileset`) so that every neighbouring pair is allowed.

    ``fixed`` is an optional (height, width) array of variant indices (-1 free) or of variant
    names (``""`` or ``None`` free). Raises :class:`Contradiction` naming the cell when no tiling
    is found within ``attempts`` restarts of ``backtrack_limit`` backtracks each.

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
    if not isinstance(tileset, Tileset):
        tileset = load_tileset(tileset)
    if fixed is not None:
        fixed = np.asarray(fixed)
        if fixed.dtype.kind in "OUS":
            lookup = np.vectorize(lambda v: -1 if v in ("", None) else tileset.index(str(v)), otypes=[np.int64])
            fixed = lookup(fixed) if fixed.size else fixed.astype(np.int64)
    result = solve(
        tileset.weights,
        tileset.compatible,
        width,
        height,
        periodic=periodic,
        seed=seed,
        attempts=attempts,
        backtrack_limit=backtrack_limit,
        fixed=fixed,
    )
    return TiledResult(result.indices, tileset, result.attempts, result.backtracks)
