"""Detail (grass) layers: instance counts per detail cell for Unity's terrain detail layers."""

from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_array, check_float, check_int
from ..errors import ParameterError

__all__ = ["detail_counts", "DETAIL_RESOLUTION", "PER_M2", "MAX_PER_CELL", "DETAIL_STREAM"]

#: Detail cells per terrain side (Unity's TerrainData.detailResolution: up to 4048).
DETAIL_RESOLUTION = (1, 4048)
#: Instances per square metre where the density is 1.
PER_M2 = (0.0, 1000.0)
#: Most instances one detail cell may hold (Unity's detail maps: 0 to 255 per cell).
MAX_PER_CELL = 255
#: The counts' own random stream: ``SeedSequence([seed, DETAIL_STREAM])``.
DETAIL_STREAM = 0x44455441  # "DETA"


def _bilinear(
    grid: npt.NDArray[np.floating[Any]], coords_y: npt.NDArray[np.float64], coords_x: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """``grid`` at fractional (row, col) positions ``coords_y[:, None]``, ``coords_x[None, :]``."""
    rows, cols = grid.shape
    y0 = np.clip(np.floor(coords_y).astype(np.intp), 0, max(rows - 2, 0))
    x0 = np.clip(np.floor(coords_x).astype(np.intp), 0, max(cols - 2, 0))
    y1, x1 = np.minimum(y0 + 1, rows - 1), np.minimum(x0 + 1, cols - 1)
    ty = (coords_y - y0)[:, None]
    tx = (coords_x - x0)[None, :]
    top = grid[np.ix_(y0, x0)] * (1 - tx) + grid[np.ix_(y0, x1)] * tx
    bottom = grid[np.ix_(y1, x0)] * (1 - tx) + grid[np.ix_(y1, x1)] * tx
    return top * (1 - ty) + bottom * ty


def detail_counts(
    weights_or_density: npt.ArrayLike,
    *,
    cell_size: float,
    per_m2: float,
    detail_resolution: int,
    seed: int = 0,
    layer: int | None = None,
) -> npt.NDArray[np.uint16]:
    """Instances per detail cell, for one of Unity's terrain detail layers.

    Parameters
    ----------
    weights_or_density : (rows, cols) or (L, rows, cols) array_like of float
        A density in [0, 1] per heightmap vertex (e.g. one layer of
        :func:`core.splat.splat_weights`, or a scatter rule mask); with 3 dimensions ``layer``
        picks one.
    cell_size : float
        Metres between heightmap vertices: the terrain spans ``cell_size * (cols - 1)`` metres.
    per_m2 : float, within ``PER_M2``
        Instances per square metre where the density is 1.
    detail_resolution : int, within ``DETAIL_RESOLUTION``
        Detail cells per terrain side (Unity's ``detailResolution``).
    seed : int >= 0
        The fractional parts are drawn from ``SeedSequence([seed, DETAIL_STREAM])``.
    layer : int or None
        The layer of 3-D weights.

    Returns
    -------
    counts : (detail_resolution, detail_resolution) uint16 ndarray
        Row 0 is the terrain's row 0 (the smallest Y, Unity's detail map row 0); each cell holds
        ``floor(expected + u)`` with ``u`` uniform in [0, 1): the expected count
        ``density * per_m2 * area`` on average, the density bilinear at the cell's centre.

    Raises
    ------
    ParameterError
        Also when ``per_m2`` times a detail cell's area exceeds ``MAX_PER_CELL`` (Unity's limit).

    Examples
    --------
    >>> d = np.ones((65, 65), np.float32)
    >>> c = detail_counts(d, cell_size=2.0, per_m2=0.5, detail_resolution=64)  # 2 x 2 m cells
    >>> c.shape, c.dtype, int(c.min()), int(c.max())
    ((64, 64), dtype('uint16'), 2, 2)
    """
    w = check_array(weights_or_density, name="weights_or_density")
    if w.ndim == 3:
        if layer is None:
            raise ParameterError("layer is needed to pick one of the (L, rows, cols) weights")
        layer = check_int(layer, name="layer", bounds=(0, w.shape[0] - 1))
        w = w[layer]
    elif w.ndim != 2:
        raise ParameterError(f"weights_or_density must be (rows, cols) or (L, rows, cols), got shape {w.shape}")
    if min(w.shape) < 2:
        raise ParameterError(f"weights_or_density must have at least 2 rows and 2 columns, got shape {w.shape}")
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    per_m2 = check_float(per_m2, name="per_m2", bounds=PER_M2)
    r = check_int(detail_resolution, name="detail_resolution", bounds=DETAIL_RESOLUTION)
    seed = check_int(seed, name="seed", bounds=(0, 2**63 - 1))
    rows, cols = w.shape
    area = (cell_size * (cols - 1) / r) * (cell_size * (rows - 1) / r)
    if per_m2 * area > MAX_PER_CELL:
        raise ParameterError(
            f"per_m2 {per_m2:g} x a detail cell of {area:g} m^2 is {per_m2 * area:g} instances per cell, more than "
            f"{MAX_PER_CELL} (raise detail_resolution to at least "
            f"{int(np.ceil(r * np.sqrt(per_m2 * area / MAX_PER_CELL)))} or lower per_m2)"
        )
    density = np.clip(w.astype(np.float64), 0.0, 1.0)
    cy = (np.arange(r) + 0.5) * ((rows - 1) / r)
    cx = (np.arange(r) + 0.5) * ((cols - 1) / r)
    expected = _bilinear(density, cy, cx) * (per_m2 * area)
    rng = np.random.default_rng(np.random.SeedSequence([seed, DETAIL_STREAM]))
    counts = np.floor(expected + rng.random((r, r)))
    return np.clip(counts, 0, MAX_PER_CELL).astype(np.uint16)
