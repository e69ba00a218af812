"""Heightmap shaping: normalise, island falloff, redistribution, terraces, curves, sea level, slope.

A heightmap is a 2-D ``(rows, cols)`` array, usually float32 in ``[0, 1]``.
Row ``i`` is the ``i``-th line along +Y (row 0 at the smallest Y) and column
``j`` the ``j``-th sample along +X, the same layout ``mesh.grid_mesh`` uses.

Every function takes the heights first and its options keyword-only, checks
its parameters before allocating, never modifies its input and returns a new
float32 array.  Float input of any precision is accepted (integers are turned
into floats); NaN or infinite heights are refused.

Bounds of every tunable are module constants (``TERRACES``, ``POWER`` ...), so
the Blender property groups import them for their ``min``/``max``.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_choice, check_float, check_heights, check_int, check_shape
from ._curve import CURVE_POINTS, curve_remap
from .errors import ParameterError

__all__ = [
    "FALLOFF_MODES",
    "FALLOFF_WIDTH",
    "FALLOFF_STRENGTH",
    "FALLOFF_FLOOR",
    "POWER",
    "TERRACES",
    "SHARPNESS",
    "CURVE_POINTS",
    "SEA_LEVEL",
    "CELL_SIZE",
    "HEIGHT_SCALE",
    "normalize",
    "island_falloff",
    "falloff_window",
    "apply_falloff",
    "redistribute",
    "terrace",
    "curve_remap",
    "sea_level",
    "gradient",
    "slope_degrees",
]

#: Shapes of the island mask: no falloff, a square (Chebyshev) border, a round (Euclidean) border.
FALLOFF_MODES = ("none", "square", "radial")
#: Fraction of the half-size over which the island mask falls from 1 to 0.
FALLOFF_WIDTH = (0.01, 1.0)
#: How much of the mask is applied: 0 = no effect, 1 = full mask.
FALLOFF_STRENGTH = (0.0, 1.0)
#: Height the terrain falls to where the mask is 0.
FALLOFF_FLOOR = (0.0, 1.0)
#: Exponent of ``redistribute``: < 1 lifts lowlands, > 1 flattens valleys and sharpens peaks.
POWER = (0.05, 8.0)
#: Number of terrace steps; 0 switches terracing off.
TERRACES = (0, 64)
#: Terrace sharpness: 0 = unchanged, 1 = hard flat steps.
SHARPNESS = (0.0, 1.0)
#: Water line (and sea-floor height) on the ``[0, 1]`` height scale.
SEA_LEVEL = (0.0, 1.0)
#: Distance between neighbouring samples, in scene units (metres).
CELL_SIZE = (0.001, 10_000.0)
#: Multiplier from ``[0, 1]`` heights to scene units (metres).
HEIGHT_SCALE = (0.0, 100_000.0)


def _smoothstep(t: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``3t^2 - 2t^3`` of ``t`` already clipped to [0, 1]; returns a new array of t's dtype."""
    return t * t * (3 - 2 * t)


def normalize(h: npt.ArrayLike, *, low: float | None = None, high: float | None = None) -> npt.NDArray[np.float32]:
    """Map heights linearly onto ``[0, 1]``.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights, any finite range.
    low, high : float or None, optional
        The input values that become 0 and 1.  ``None`` (the default) uses the
        minimum (for ``low``) or the maximum (for ``high``) of ``h``, so the
        result spans exactly ``[0, 1]``.  With a fixed range, values outside it
        are clipped.  Given together, ``low`` must be below ``high``.

    Returns
    -------
    out : (M, N) float32 ndarray
        ``clip((h - low) / (high - low), 0, 1)``.

    Notes
    -----
    When the range is empty (a flat input with both ends ``None``, or one
    given end that meets the data's other end) nothing is divided: the result
    is the step ``1 where h > low else 0``, which is all zeros for a flat map.

    Examples
    --------
    >>> normalize([[2.0, 4.0], [6.0, 10.0]]).tolist()
    [[0.0, 0.25], [0.5, 1.0]]
    >>> normalize([[3.0, 3.0]]).tolist()
    [[0.0, 0.0]]
    >>> normalize([[-1.0, 0.5, 2.0]], low=0.0, high=1.0).tolist()
    [[0.0, 0.5, 1.0]]
    """
    arr = check_heights(h)
    if low is not None:
        low = check_float(low, name="low")
    if high is not None:
        high = check_float(high, name="high")
    if low is not None and high is not None and not low < high:
        raise ParameterError(f"low must be below high, got low={low:g} and high={high:g}")
    work = arr.dtype.type  # keep every scalar in the array's precision
    lo = work(arr.min() if low is None else low) if arr.size else work(0)
    hi = work(arr.max() if high is None else high) if arr.size else work(1)
    span = hi - lo
    if not span > 0:
        return (arr > lo).astype(np.float32)
    out = arr - lo  # new array; h - lo == span exactly where h == hi
    out /= span
    np.clip(out, 0, 1, out=out)
    return out.astype(np.float32, copy=False)


def island_falloff(shape: Sequence[int], *, mode: str = "radial", width: float = 0.35) -> npt.NDArray[np.float32]:
    """Island mask: 1 in the middle, falling smoothly to 0 at the border.

    Parameters
    ----------
    shape : (rows, cols) tuple of int
        Size of the mask, the same as the heightmap it will shape.
    mode : {'radial', 'square', 'none'}, optional
        ``'radial'`` measures the Euclidean distance from the centre (a round
        island), ``'square'`` the larger of the two axis distances (an island
        that fills the square), ``'none'`` returns all ones.
    width : float, optional
        Fraction of the half-size over which the mask falls, within
        ``FALLOFF_WIDTH`` = (0.01, 1).  0.35 keeps the inner 65 % at 1.

    Returns
    -------
    mask : (rows, cols) float32 ndarray in [0, 1]

    Notes
    -----
    Coordinates run from -1 at the first row/column to +1 at the last, so the
    distance ``d`` is 1 on the whole border (more in the corners for
    ``'radial'``).  The mask is ``1 - smoothstep((d - (1 - width)) / width)``,
    clipped: 1 for ``d <= 1 - width``, 0 for ``d >= 1``, with zero slope at
    both ends of the fall.  Both modes are exactly 0 along the border.

    Examples
    --------
    >>> m = island_falloff((5, 5), mode="square", width=0.5)
    >>> float(m[2, 2]), float(m[0, 2]), float(m[2, 3])
    (1.0, 0.0, 1.0)
    >>> float(island_falloff((3, 3), mode="none").min())
    1.0
    """
    rows, cols = check_shape(shape, name="shape")
    check_choice(mode, name="mode", choices=FALLOFF_MODES)
    width = check_float(width, name="width", bounds=FALLOFF_WIDTH)
    if mode == "none":
        return np.ones((rows, cols), dtype=np.float32)
    y = np.abs(np.linspace(-1.0, 1.0, rows, dtype=np.float32)) if rows > 1 else np.zeros(1, np.float32)
    x = np.abs(np.linspace(-1.0, 1.0, cols, dtype=np.float32)) if cols > 1 else np.zeros(1, np.float32)
    if mode == "square":
        d = np.maximum(y[:, None], x[None, :])
    else:
        d = _radius(y, x)
    t = d  # reuse the buffer: t = (d - inner) / width
    t -= np.float32(1.0 - width)
    t /= np.float32(width)
    np.clip(t, 0, 1, out=t)
    mask = _smoothstep(t)
    np.subtract(1, mask, out=mask)
    return mask


def _radius(y: npt.NDArray[np.float32], x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """float32 ``hypot(y[:, None], x[None, :])`` the same on every machine: the squares of the
    float32 coordinates are exact in float64, their sum and root round once each (the C library's
    ``hypotf`` does the same on glibc, but it is the C library's)."""
    y64, x64 = y.astype(np.float64), x.astype(np.float64)
    return np.sqrt(y64[:, None] * y64[:, None] + x64[None, :] * x64[None, :]).astype(np.float32)


def falloff_window(
    shape: Sequence[int],
    rows: Sequence[int] | npt.NDArray[np.integer[Any]],
    cols: Sequence[int] | npt.NDArray[np.integer[Any]],
    *,
    mode: str = "radial",
    width: float = 0.35,
) -> npt.NDArray[np.float32]:
    """The part ``rows x cols`` of ``island_falloff(shape, ...)``, one sample at a time.

    Each sample's value depends only on its own global index ``(i, j)`` in a grid of ``shape``
    (the coordinate ``-1 + 2 i / (rows - 1)`` in float64, then rounded to float32), so two windows
    that share samples get the same bits there: a tiled world's one island over all its tiles.
    Indices may fall outside ``shape`` (a window's margin beyond the world's edge): the mask is 0
    there.  Within 1 ulp of ``island_falloff``'s coordinates, not bit-identical to it.

    Parameters
    ----------
    shape : (rows, cols) tuple of int
        The whole grid the island covers.
    rows, cols : range
        Global row and column indices of the window.
    mode, width
        As in :func:`island_falloff`.

    Returns
    -------
    mask : (len(rows), len(cols)) float32 ndarray in [0, 1]

    Examples
    --------
    >>> whole = island_falloff((9, 9), mode="square", width=0.5)
    >>> part = falloff_window((9, 9), range(2, 6), range(4, 9), mode="square", width=0.5)
    >>> bool(np.allclose(part, whole[2:6, 4:9], atol=1e-6))
    True
    """
    total_r, total_c = check_shape(shape, name="shape")
    check_choice(mode, name="mode", choices=FALLOFF_MODES)
    width = check_float(width, name="width", bounds=FALLOFF_WIDTH)
    if mode == "none":
        return np.ones((len(rows), len(cols)), dtype=np.float32)

    def axis(index: Sequence[int] | npt.NDArray[np.integer[Any]], total: int) -> npt.NDArray[np.float32]:
        i = np.asarray(index, np.float64)
        if total < 2:
            return np.where(i == 0, 0.0, 2.0).astype(np.float32)
        return np.abs(-1.0 + 2.0 * i / (total - 1)).astype(np.float32)

    y, x = axis(rows, total_r), axis(cols, total_c)
    d = np.maximum(y[:, None], x[None, :]) if mode == "square" else _radius(y, x)
    t = d
    t -= np.float32(1.0 - width)
    t /= np.float32(width)
    np.clip(t, 0, 1, out=t)
    mask = _smoothstep(t)
    np.subtract(1, mask, out=mask)
    return mask


def apply_falloff(
    h: npt.ArrayLike, mask: npt.ArrayLike, *, strength: float = 1.0, floor: float = 0.0
) -> npt.NDArray[np.float32]:
    """Pull heights towards ``floor`` where ``mask`` is below 1.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights.
    mask : (M, N) array_like of float
        Weights in [0, 1], e.g. from `island_falloff`; values outside are clipped.
    strength : float, optional
        Within ``FALLOFF_STRENGTH`` = (0, 1); 0 leaves ``h`` unchanged, 1 applies
        the full mask.
    floor : float, optional
        Height where the mask is 0, within ``FALLOFF_FLOOR`` = (0, 1).

    Returns
    -------
    out : (M, N) float32 ndarray
        ``floor + (h - floor) * w`` with ``w = 1 - strength * (1 - mask)``; with
        the defaults simply ``h * mask``.

    Examples
    --------
    >>> apply_falloff([[1.0, 0.5]], [[1.0, 0.0]]).tolist()
    [[1.0, 0.0]]
    >>> apply_falloff([[1.0, 0.5]], [[1.0, 0.0]], strength=0.5, floor=0.25).tolist()
    [[1.0, 0.375]]
    """
    arr = check_heights(h)
    m = check_heights(mask, name="mask")
    if m.shape != arr.shape:
        raise ParameterError(f"mask must have the shape of h {arr.shape}, got {m.shape}")
    strength = check_float(strength, name="strength", bounds=FALLOFF_STRENGTH)
    floor = check_float(floor, name="floor", bounds=FALLOFF_FLOOR)
    w = np.clip(m, 0, 1).astype(np.float32, copy=False)
    w = 1 - np.float32(strength) * (1 - w)
    out = np.subtract(arr, np.float32(floor), dtype=np.float32)
    out *= w
    out += np.float32(floor)
    return out


def redistribute(h: npt.ArrayLike, *, power: float) -> npt.NDArray[np.float32]:
    """Raise heights to a power: ``clip(h, 0, 1) ** power``.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights, clipped to [0, 1] first.
    power : float
        Exponent within ``POWER`` = (0.05, 8).  Above 1 it widens valleys and
        sharpens peaks; below 1 it lifts the lowlands into plateaus.

    Returns
    -------
    out : (M, N) float32 ndarray in [0, 1]
        0 and 1 are kept, and the order of heights is preserved.

    Examples
    --------
    >>> redistribute([[0.0, 0.5, 1.0]], power=2.0).tolist()
    [[0.0, 0.25, 1.0]]
    """
    arr = check_heights(h)
    power = check_float(power, name="power", bounds=POWER)
    out = np.clip(arr, 0, 1).astype(np.float64)
    return exact.pow(out, power).astype(np.float32)  # numpy's power differs between CPUs


def terrace(h: npt.ArrayLike, *, steps: int, sharpness: float = 0.5) -> npt.NDArray[np.float32]:
    """Cut heights into terraces.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights, clipped to [0, 1] first.
    steps : int
        Number of terraces within ``TERRACES`` = (0, 64); 0 returns the clipped
        heights unchanged.
    sharpness : float, optional
        Within ``SHARPNESS`` = (0, 1): 0 leaves heights unchanged, 1 gives hard
        flat steps at ``k / steps``; in between each step has a flat tread and a
        smooth riser.

    Returns
    -------
    out : (M, N) float32 ndarray in [0, 1]
        Monotone non-decreasing in ``h`` for every setting; 0 and 1 are kept.

    Notes
    -----
    With ``t = h * steps``, ``k = floor(t)`` and ``f = t - k``, the result is
    ``(k + g(f)) / steps``.  The riser ``r = clip((f - s) / (1 - s), 0, 1)``
    (``s`` = sharpness) is flat over the first ``s`` of each step and rises over
    the rest; ``g = r + s * (smoothstep(r) - r)`` rounds its corners more as
    the steps get sharper.  ``g`` is monotone with ``g(0) = 0`` and
    ``g(1) = 1``, so the result is continuous for ``s < 1``; at ``s = 1`` it is
    ``k / steps``.

    Examples
    --------
    >>> terrace([[0.0, 0.3, 0.6, 1.0]], steps=2, sharpness=1.0).tolist()
    [[0.0, 0.0, 0.5, 1.0]]
    >>> terrace([[0.3]], steps=2, sharpness=0.0).tolist()
    [[0.30000001192092896]]
    """
    arr = check_heights(h)
    steps = check_int(steps, name="steps", bounds=TERRACES)
    sharpness = check_float(sharpness, name="sharpness", bounds=SHARPNESS)
    out = np.clip(arr, 0, 1).astype(np.float32, copy=False)
    if steps == 0 or sharpness == 0.0:
        return out  # np.clip already made a new array
    out *= np.float32(steps)  # t
    k = np.floor(out)
    out -= k  # f in [0, 1)
    if sharpness == 1.0:
        out[...] = 0
    else:
        s = np.float32(sharpness)
        out -= s
        out /= np.float32(1.0 - sharpness)
        np.clip(out, 0, 1, out=out)  # r
        smooth = _smoothstep(out)
        smooth -= out
        smooth *= s
        out += smooth  # g
    out += k
    out /= np.float32(steps)
    np.clip(out, 0, 1, out=out)
    return out


def sea_level(h: npt.ArrayLike, *, level: float, floor: float | None = None) -> npt.NDArray[np.float32]:
    """Flatten (or gently compress) everything below the water line.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights on the [0, 1] scale.
    level : float
        Water line within ``SEA_LEVEL`` = (0, 1).  Heights at or above it are
        returned unchanged.
    floor : float or None, optional
        Height of the sea floor, within ``[0, level]``.  ``None`` (the
        default) means ``floor = level``: everything below the water line
        becomes exactly ``level``, a flat sea.

    Returns
    -------
    out : (M, N) float32 ndarray
        For ``h < level``: ``floor + (level - floor) * clip(h, 0, level) / level``,
        i.e. the under-water range ``[0, level)`` is squeezed linearly onto
        ``[floor, level)``.  ``floor = level`` flattens it, ``floor = 0`` leaves
        ``[0, level)`` unchanged, and values in between compress the sea bed
        while keeping its relief.  The result is continuous at ``level`` and
        monotone non-decreasing; heights below 0 count as 0 (so ``level = 0``
        only lifts negative heights to 0).

    Examples
    --------
    >>> print(sea_level([[0.1, 0.3, 0.8]], level=0.4))
    [[0.4 0.4 0.8]]
    >>> print(sea_level([[0.0, 0.2, 0.8]], level=0.4, floor=0.2))
    [[0.2 0.3 0.8]]
    """
    arr = check_heights(h)
    level = check_float(level, name="level", bounds=SEA_LEVEL)
    floor = level if floor is None else check_float(floor, name="floor", bounds=(0.0, level))
    out = arr.astype(np.float32, copy=True)
    below = out < np.float32(level)
    sub = np.clip(out[below], 0, None)
    sub *= np.float32((level - floor) / level if level > 0 else 0.0)
    sub += np.float32(floor)
    np.minimum(sub, np.float32(level), out=sub)  # stay continuous/monotone in float32
    out[below] = sub
    return out


def gradient(
    h: npt.ArrayLike, *, cell_size: float = 1.0, height_scale: float = 1.0
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Height gradient ``(dz/dx, dz/dy)`` in scene units.

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights, ``M, N >= 2``; columns run along +X, rows along +Y.
    cell_size : float, optional
        Sample spacing within ``CELL_SIZE``.
    height_scale : float, optional
        Height of 1.0 in scene units, within ``HEIGHT_SCALE``.

    Returns
    -------
    dzdx, dzdy : (M, N) float32 ndarray
        Central differences inside, one-sided (first-order) differences on the
        edges, as ``numpy.gradient`` does.

    Examples
    --------
    >>> gx, gy = gradient([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]], cell_size=0.5)
    >>> gx.tolist(), gy.tolist()
    ([[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    """
    arr = check_heights(h)
    if min(arr.shape) < 2:
        raise ParameterError(f"h must have at least 2 rows and 2 columns, got shape {arr.shape}")
    cell_size = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    height_scale = check_float(height_scale, name="height_scale", bounds=HEIGHT_SCALE)
    arr = arr.astype(np.float32, copy=False)
    dzdy, dzdx = np.gradient(arr, np.float32(cell_size))
    factor = np.float32(height_scale)
    dzdx *= factor
    dzdy *= factor
    return dzdx, dzdy


def slope_degrees(h: npt.ArrayLike, *, cell_size: float = 1.0, height_scale: float = 1.0) -> npt.NDArray[np.float32]:
    """Steepness of the terrain in degrees (0 = flat, towards 90 = a cliff).

    Parameters
    ----------
    h : (M, N) array_like of float
        Heights, ``M, N >= 2``.
    cell_size : float, optional
        Sample spacing in scene units, within ``CELL_SIZE``.
    height_scale : float, optional
        Height of 1.0 in scene units, within ``HEIGHT_SCALE``.

    Returns
    -------
    slope : (M, N) float32 ndarray in [0, 90)
        ``degrees(arctan(|grad z|))`` with the gradient from `gradient`.

    Examples
    --------
    >>> slope_degrees([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]).round(3).tolist()
    [[45.0, 45.0, 45.0], [45.0, 45.0, 45.0]]
    """
    dzdx, dzdy = gradient(h, cell_size=cell_size, height_scale=height_scale)
    out = np.empty(dzdx.shape, np.float32)
    band = max(1, exact.CHUNK // max(dzdx.shape[1], 1))  # rows at a time: float64 temporaries stay small
    for i in range(0, dzdx.shape[0], band):
        # |grad| in float64 (the squares of float32 are exact) and atan from core.exact: numpy's
        # float32 arctan and the C library's hypot differ between machines
        gx, gy = dzdx[i : i + band].astype(np.float64), dzdy[i : i + band].astype(np.float64)
        out[i : i + band] = exact.degrees_atan(np.sqrt(gx * gx + gy * gy))
    return out
