"""Neighbour masks and auto-tile lookups: the 47-tile "blob" set and the 16-tile 4-neighbour set.

Which cells are auto-tiled
--------------------------
A mask describes one cell by which of its neighbours are "the same" as it.  For levels the Tiled
writer auto-tiles the **walkable** cells by their **walkable** neighbours, with everything outside
the map counting as wall (not the same); wall cells get no auto-tile (an empty tile).

Bits (clockwise from north; row 0 is the top, so north is row - 1)::

    NW=128  N=1  NE=2
    W=64    .    E=4
    SW=32   S=16 SE=8

* **blob (8 neighbours, 47 tiles)**: a corner bit counts only when both its edge bits are set (NE
  needs N and E), so of the 256 masks only 47 are distinct (:data:`BLOB_MASKS`, ascending);
  :data:`BLOB_INDEX` maps any of the 256 masks to its tile index 0..46.
* **wang16 (4 neighbours, 16 tiles)**: the mask ``N=1, E=2, S=4, W=8``, which is itself the tile
  index 0..15.
"""

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short

__all__ = [
    "N",
    "NE",
    "E",
    "SE",
    "S",
    "SW",
    "W",
    "NW",
    "BLOB_MASKS",
    "BLOB_INDEX",
    "WANG_N",
    "WANG_E",
    "WANG_S",
    "WANG_W",
    "blob_canonical",
    "blob_masks",
    "blob_tiles",
    "wang16_masks",
]

N, NE, E, SE, S, SW, W, NW = 1, 2, 4, 8, 16, 32, 64, 128
#: (bit, row offset, column offset) of the eight neighbours.
_NEIGHBOURS = ((N, -1, 0), (NE, -1, 1), (E, 0, 1), (SE, 1, 1), (S, 1, 0), (SW, 1, -1), (W, 0, -1), (NW, -1, -1))
#: Each corner bit and the two edge bits it needs.
_CORNERS = ((NE, N, E), (SE, S, E), (SW, S, W), (NW, N, W))
WANG_N, WANG_E, WANG_S, WANG_W = 1, 2, 4, 8


def blob_canonical(mask: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Clear every corner bit whose two edge bits are not both set (array or int, uint8 out).

    >>> int(blob_canonical(N | NE)), int(blob_canonical(N | NE | E))
    (1, 7)
    """
    m = np.asarray(mask, dtype=np.uint8)
    out = m.copy()
    for corner, a, b in _CORNERS:
        keep = ((m & a) != 0) & ((m & b) != 0)
        out &= np.where(keep, np.uint8(255), np.uint8(255 ^ corner)).astype(np.uint8)
    return out


_ALL = np.arange(256, dtype=np.uint8)
_CANON = blob_canonical(_ALL)
#: The 47 distinct blob masks, ascending; tile ``k`` of a blob tileset is the mask ``BLOB_MASKS[k]``.
BLOB_MASKS = np.unique(_CANON)
#: (256,) uint8: tile index (0..46) of any 8-neighbour mask.
BLOB_INDEX = np.searchsorted(BLOB_MASKS, _CANON).astype(np.uint8)
BLOB_MASKS.setflags(write=False)
BLOB_INDEX.setflags(write=False)


def _check_same(same: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    if not isinstance(same, np.ndarray) or same.ndim != 2:
        raise ParameterError(f"same must be a 2-D numpy array of bool, got {short(same)}")
    if same.dtype != bool:
        raise ParameterError(f"same must be a 2-D numpy array of bool, got dtype {same.dtype}")
    return same


def blob_masks(same: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """8-neighbour masks of every cell: which neighbours are True in ``same`` (outside counts False).

    Parameters
    ----------
    same : (rows, cols) bool ndarray

    Returns
    -------
    masks : (rows, cols) uint8 ndarray
        Raw masks (bits N=1 ... NW=128, corners not yet reduced): ``BLOB_INDEX[masks]`` gives the
        tile, ``blob_canonical(masks)`` the canonical mask.  The cell itself is not looked at.

    Examples
    --------
    >>> import numpy as np
    >>> m = blob_masks(np.ones((3, 3), bool))
    >>> int(m[1, 1]), int(m[0, 0]), int(BLOB_INDEX[m[1, 1]]), len(BLOB_MASKS)
    (255, 28, 46, 47)
    """
    same = _check_same(same)
    rows, cols = same.shape
    pad = np.zeros((rows + 2, cols + 2), dtype=bool)
    pad[1:-1, 1:-1] = same
    out = np.zeros((rows, cols), dtype=np.uint8)
    for bit, dr, dc in _NEIGHBOURS:
        out |= pad[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols].astype(np.uint8) * np.uint8(bit)
    return out


def blob_tiles(same: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Blob tile index (0..46) of every cell: ``BLOB_INDEX[blob_masks(same)]``.

    >>> import numpy as np
    >>> blob_tiles(np.ones((1, 3), bool))[0].tolist() == [BLOB_INDEX[E], BLOB_INDEX[E | W], BLOB_INDEX[W]]
    True
    """
    return BLOB_INDEX[blob_masks(same)]


def wang16_masks(same: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """4-neighbour masks (``N=1, E=2, S=4, W=8``, outside counts False), each its own tile index 0..15.

    >>> import numpy as np
    >>> wang16_masks(np.ones((2, 2), bool)).tolist()
    [[6, 12], [3, 9]]
    """
    same = _check_same(same)
    rows, cols = same.shape
    pad = np.zeros((rows + 2, cols + 2), dtype=bool)
    pad[1:-1, 1:-1] = same
    out = np.zeros((rows, cols), dtype=np.uint8)
    for bit, dr, dc in ((WANG_N, -1, 0), (WANG_E, 0, 1), (WANG_S, 1, 0), (WANG_W, 0, -1)):
        out |= pad[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols].astype(np.uint8) * np.uint8(bit)
    return out
