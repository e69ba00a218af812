"""Thermal erosion: material slides off slopes steeper than the talus angle (numpy, whole-array steps).

Each step (Musgrave et al. 1989, Olsen 2004's distribution): for every cell ``p`` and each of
its 8 neighbours ``q`` at horizontal distance ``d`` (the cell size, or sqrt 2 times it on the
diagonals), the *excess* is ``max(0, h_p - h_q - tan(talus) * d)``, how far the drop exceeds
the talus slope. A cell whose largest excess is ``m`` gives away ``rate * m / 2`` (with rate 1
a single steepest pair ends exactly at the talus slope), shared among its neighbours in
proportion to their excess. Every transfer is taken from one cell and added to the other as
the same float, so the total volume is kept to rounding (nothing leaves across the edge); the
steps stop early once no drop exceeds the talus slope by more than :data:`TOLERANCE` per metre.
"""

import math

import numpy as np

from ..errors import ParameterError, short

__all__ = ["thermal", "TALUS", "RATE", "ITERATIONS", "TOLERANCE"]

#: Allowed talus angles (degrees), rates and iteration counts.
TALUS = (0.0, 89.0)
RATE = (0.0, 1.0)
ITERATIONS = (0, 100_000)
#: A slope may end this much (rise per metre) above tan(talus) when the steps stop early.
TOLERANCE = 1e-6

#: The four neighbours that reach every 8-neighbour pair once: right, down, down-right, down-left.
_PAIRS = ((0, 1), (1, 0), (1, 1), (1, -1))


def _number(value, name, low, high, *, low_open=False):
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    ok = math.isfinite(x) and (low < x if low_open else low <= x) and x <= high
    if not ok or isinstance(value, bool):
        bracket = "(" if low_open else "["
        raise ParameterError(f"{name} must be a number in {bracket}{low:g}, {high:g}], got {short(value)}")
    return x


def _views(shape, dy, dx):
    """Slices (a, b) of two same-shaped views: b is a's neighbour at (dy, dx)."""
    rows, cols = shape
    ra, rb = slice(0, rows - dy), slice(dy, rows)
    if dx >= 0:
        ca, cb = slice(0, cols - dx), slice(dx, cols)
    else:
        ca, cb = slice(-dx, cols), slice(0, cols + dx)
    return (ra, ca), (rb, cb)


def thermal(heights, *, cell_size, talus=35.0, iterations=50, rate=0.5):
    """Let slopes steeper than ``talus`` degrees slump until they are not (or ``iterations`` run out).

    Parameters
    ----------
    heights : (H, W) array of float, metres
    cell_size : float, metres between neighbouring samples
    talus : float in [0, 89], degrees; the steepest slope that stays put
    iterations : int in [0, 100000]; most steps to run (fewer when the slopes settle)
    rate : float in (0, 1]; fraction of the excess moved per step

    Returns
    -------
    (H, W) float64 array, metres, with the same total (to rounding: relative 1e-12).

    >>> h = np.zeros((3, 5)); h[1, 2] = 10.0
    >>> out = thermal(h, cell_size=1.0, talus=30.0, iterations=500)
    >>> round(float(out.sum()), 9), bool(out[1, 2] < 10.0)
    (10.0, True)
    """
    h = np.asarray(heights)
    if h.ndim != 2 or h.size == 0:
        raise ParameterError(f"heights must be a non-empty 2-D array, got shape {h.shape}")
    if not np.issubdtype(h.dtype, np.number) or np.issubdtype(h.dtype, np.complexfloating):
        raise ParameterError(f"heights must be real numbers, got dtype {h.dtype}")
    h = np.array(h, dtype=np.float64)  # a copy: the caller's array is left alone
    if not np.isfinite(h).all():
        raise ParameterError(f"heights must be finite, got {int((~np.isfinite(h)).sum())} non-finite values")
    size = _number(cell_size, "cell_size", 0.0, math.inf, low_open=True)
    angle = _number(talus, "talus", *TALUS)
    fraction = _number(rate, "rate", *RATE, low_open=True)
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
        raise ParameterError(
            f"iterations must be an integer in [{ITERATIONS[0]}, {ITERATIONS[1]}], got {short(iterations)}"
        )
    if not ITERATIONS[0] <= iterations <= ITERATIONS[1]:
        raise ParameterError(f"iterations must be an integer in [{ITERATIONS[0]}, {ITERATIONS[1]}], got {iterations}")
    if min(h.shape) < 2 and max(h.shape) < 2:
        return h
    _run(h, size, math.tan(math.radians(angle)), int(iterations), fraction)
    return h


def _run(h, size, slope, iterations, fraction):
    shape = h.shape
    pairs = []
    for dy, dx in _PAIRS:
        a, b = _views(shape, dy, dx)
        if h[a].size == 0:
            continue
        distance = size * (math.sqrt(2.0) if dy and dx else 1.0)
        pairs.append((a, b, slope * distance, TOLERANCE * distance))
    total = np.empty(shape)  # sum of a cell's excesses
    most = np.empty(shape)  # its largest excess
    share = np.empty(shape)
    down = [np.empty(h[a].shape) for a, _, _, _ in pairs]  # excess of a over b
    up = [np.empty(h[a].shape) for a, _, _, _ in pairs]  # excess of b over a
    for _ in range(iterations):
        total.fill(0.0)
        most.fill(0.0)
        settled = True
        for (a, b, limit, tol), ab, ba in zip(pairs, down, up, strict=True):
            np.subtract(h[a], h[b], out=ab)
            np.negative(ab, out=ba)
            ab -= limit
            ba -= limit
            if settled and (ab.max() > tol or ba.max() > tol):
                settled = False
            np.maximum(ab, 0.0, out=ab)
            np.maximum(ba, 0.0, out=ba)
            total[a] += ab
            total[b] += ba
            np.maximum(most[a], ab, out=most[a])
            np.maximum(most[b], ba, out=most[b])
        if settled:
            break
        # each cell gives rate * most / 2, shared in proportion to its excesses
        np.multiply(most, 0.5 * fraction, out=share)
        np.divide(share, total, out=share, where=total > 0.0)
        for (a, b, _, _), ab, ba in zip(pairs, down, up, strict=True):
            ab *= share[a]
            ba *= share[b]
            ab -= ba  # net flow from a to b
            h[a] -= ab
            h[b] += ab
