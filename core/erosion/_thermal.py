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
import numpy.typing as npt

from .. import exact
from ..errors import ParameterError, short

__all__ = ["thermal", "TALUS", "RATE", "ITERATIONS", "TOLERANCE"]

#: Allowed talus angles (degrees), rates and iteration counts.
TALUS = (0.0, 89.0)
RATE = (0.0, 1.0)
ITERATIONS = (0, 100_000)
#: A slope may end this much (rise per metre) above tan(talus) when the steps stop early.
TOLERANCE = 1e-6
#: Cells per block of a step's passes (a few float64 arrays of it stay in the cache).
BLOCK = 1 << 16


def _number(value: float, name: str, low: float, high: float, *, low_open: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    ok = math.isfinite(x) and (low < x if low_open else low <= x) and x <= high
    if not ok or isinstance(value, bool):
        left, right = "(" if low_open else "[", ")" if math.isinf(high) else "]"
        raise ParameterError(f"{name} must be a number in {left}{low:g}, {high:g}{right}, got {short(value)}")
    return x


def thermal(
    heights: npt.ArrayLike, *, cell_size: float, talus: float = 35.0, iterations: int = 50, rate: float = 0.5
) -> npt.NDArray[np.float64]:
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
    _run(h, size, exact.tan(math.radians(angle)), int(iterations), fraction)  # math.tan is the C library's
    return h


def _run(h: npt.NDArray[np.float64], size: float, slope: float, iterations: int, fraction: float) -> None:
    """Steps in place on ``h``, as one flat array: neighbours are the same array shifted by an
    offset (contiguous slices run several times faster than 2-D views), the pairs that would
    wrap from one row's end to the next row's start zeroed.

    A step goes block by block, so its dozens of array operations work on data in the cache:
    the excesses of block k + 1 (into per-cell sums and maxima), then, with every sum up to the
    end of block k + 1 complete (a pair reaches at most a row and a cell ahead), block k's
    transfers from the excesses it kept, into ``delta``; ``delta`` is applied at the end of the
    step (every transfer from the same heights), or not at all when no excess is over the
    tolerance.
    """
    rows, cols = h.shape
    n = h.size
    flat = h.reshape(-1)
    diagonal = math.sqrt(2.0)
    pairs: list[
        tuple[int, float, int | None]
    ] = []  # (offset, talus drop, first column whose pair wraps): right, down, down-right, down-left
    if cols > 1:
        pairs.append((1, slope * size, cols - 1))
    if rows > 1:
        pairs.append((cols, slope * size, None))
    if rows > 1 and cols > 1:
        pairs.append((cols + 1, slope * size * diagonal, cols - 1))
        pairs.append((cols - 1, slope * size * diagonal, 0))
    settled = TOLERANCE * size  # the smaller of the two distances' tolerances
    factor = 0.5 * fraction
    block = max(BLOCK, 2 * (cols + 1))
    blocks = [(s, min(s + block, n)) for s in range(0, n, block)]
    total = np.empty(n)  # sum of a cell's excesses
    most = np.empty(n)  # its largest excess, then its share factor
    delta = np.empty(n)  # the step's change
    kept = [[(np.empty(block), np.empty(block)) for _ in pairs] for _ in range(2)]  # blocks k and k + 1

    def excesses(k: int) -> list[tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None]:
        """Block k's excesses over the neighbour at each offset (ab) and back (ba), into the sums."""
        s, e = blocks[k]
        out: list[tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None] = []
        for (o, limit, wrap), (ab_buf, ba_buf) in zip(pairs, kept[k % 2], strict=True):
            stop = min(e, n - o)
            if stop <= s:
                out.append(None)
                continue
            ab, ba = ab_buf[: stop - s], ba_buf[: stop - s]
            np.subtract(flat[s:stop], flat[s + o : stop + o], out=ab)
            np.subtract(-limit, ab, out=ba)
            ab -= limit
            np.maximum(ab, 0.0, out=ab)
            np.maximum(ba, 0.0, out=ba)
            if wrap is not None:
                first = (wrap - s) % cols
                ab[first::cols] = 0.0
                ba[first::cols] = 0.0
            total[s:stop] += ab
            total[s + o : stop + o] += ba
            np.maximum(most[s:stop], ab, out=most[s:stop])
            np.maximum(most[s + o : stop + o], ba, out=most[s + o : stop + o])
            out.append((stop, ab, ba))
        return out

    def transfers(k: int, got: list[tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None]) -> None:
        """Block k's transfers: each cell gives rate * most / 2, shared in proportion to its excesses."""
        s = blocks[k][0]
        for (o, _, _), item in zip(pairs, got, strict=True):
            if item is None:
                continue
            stop, ab, ba = item
            ab *= most[s:stop]
            ba *= most[s + o : stop + o]
            ab -= ba  # net flow from a to b
            delta[s:stop] -= ab
            delta[s + o : stop + o] += ab

    for _ in range(iterations):
        total.fill(0.0)
        most.fill(0.0)
        delta.fill(0.0)
        peak, done = 0.0, 0
        got = excesses(0)
        for k in range(len(blocks)):
            following = excesses(k + 1) if k + 1 < len(blocks) else None
            upto = blocks[k + 1][1] if following is not None else n  # sums complete up to here
            share, sums = most[done:upto], total[done:upto]
            peak = max(peak, float(share.max(initial=0.0)))
            share *= factor
            np.divide(share, sums, out=share, where=sums > 0.0)
            done = upto
            transfers(k, got)
            got = following  # type: ignore[assignment]  # None only after the last block
        if peak <= settled:
            break
        flat += delta
