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
    _run(h, size, math.tan(math.radians(angle)), int(iterations), fraction)
    return h


def _run(h, size, slope, iterations, fraction):
    """Steps in place on ``h``, as one flat array: neighbours are the same array shifted by an
    offset (contiguous slices run several times faster than 2-D views), and the pairs that
    would wrap from one row's end to the next row's start are zeroed."""
    rows, cols = h.shape
    n = h.size
    flat = h.reshape(-1)
    diagonal = math.sqrt(2.0)
    # (offset, distance, first column whose pair wraps): right, down, down-right, down-left
    pairs = []
    if cols > 1:
        pairs.append((1, slope * size, cols - 1))
    if rows > 1:
        pairs.append((cols, slope * size, None))
    if rows > 1 and cols > 1:
        pairs.append((cols + 1, slope * size * diagonal, cols - 1))
        pairs.append((cols - 1, slope * size * diagonal, 0))
    settled = TOLERANCE * size  # the smaller of the two distances' tolerances
    total = np.empty(n)  # sum of a cell's excesses
    most = np.empty(n)  # its largest excess
    down = [np.empty(n - o) for o, _, _ in pairs]  # excess of a over its neighbour b
    up = [np.empty(n - o) for o, _, _ in pairs]  # excess of b over a
    for _ in range(iterations):
        total.fill(0.0)
        most.fill(0.0)
        for (o, limit, wrap), ab, ba in zip(pairs, down, up, strict=True):
            a, b = flat[: n - o], flat[o:]
            np.subtract(a, b, out=ab)
            np.subtract(-limit, ab, out=ba)
            ab -= limit
            np.maximum(ab, 0.0, out=ab)
            np.maximum(ba, 0.0, out=ba)
            if wrap is not None:
                ab[wrap::cols] = 0.0
                ba[wrap::cols] = 0.0
            total[: n - o] += ab
            total[o:] += ba
            np.maximum(most[: n - o], ab, out=most[: n - o])
            np.maximum(most[o:], ba, out=most[o:])
        if most.max() <= settled:
            break
        # each cell gives rate * most / 2, shared in proportion to its excesses
        most *= 0.5 * fraction
        np.divide(most, total, out=most, where=total > 0.0)
        for (o, _, _), ab, ba in zip(pairs, down, up, strict=True):
            ab *= most[: n - o]
            ba *= most[o:]
            ab -= ba  # net flow from a to b
            flat[: n - o] -= ab
            flat[o:] += ab
