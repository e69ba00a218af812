"""Phase 2 of a tiled world's erosion: blending the windows that cover a tile, and the seam report.

Every sample ``s`` of the world takes ``base(s) + sum_i w_i(s) delta_i(s)`` over the windows ``i``
that cover it (float64, in the fixed tile order (z, x)), ``w_i`` the separable tent of window ``i``:
along each axis 1 within the tile ``H`` cells from a neighbour, falling linearly to 0.5 on the
shared border and to 0 ``H`` cells into the neighbour (``(j + H) / 2H``); 1 up to the window's edge
towards the world's edge.  Along an axis the two tents of a border sum to 1, so the weights of a
sample always sum to 1 (a corner sample: four windows of 0.25).  Both tiles of a border compute
the same windows' weights from the same global indices and add them in the same order: their
shared samples get the same bits.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ._grid import WorldGrid

__all__ = ["axis_weights", "blend_windows", "seam_report", "KEYS"]

#: The blended maps of a window file.
KEYS = ("delta", "eroded", "deposited", "flow")


def axis_weights(local: npt.NDArray[np.int64], n: int, halo: int, *, low: bool, high: bool) -> npt.NDArray[np.float64]:
    """Tent weights (float64) of a window along one axis at the tile-local indices ``local``.

    ``n`` samples a tile side, ``halo`` cells of window beyond it; ``low`` / ``high``: whether a
    neighbouring tile lies towards smaller / larger indices.  0 outside the window.

    >>> axis_weights(np.arange(-3, 8), 5, 2, low=True, high=False).tolist()
    [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    >>> axis_weights(np.arange(-1, 6), 5, 0, low=True, high=True).tolist()
    [0.0, 0.5, 1.0, 1.0, 1.0, 0.5, 0.0]
    """
    j = np.asarray(local, np.int64)
    inside = (j >= -halo) & (j <= n - 1 + halo)
    jf = j.astype(np.float64)
    w = np.ones(j.shape, np.float64)
    if halo > 0:
        if low:
            w = np.minimum(w, (jf + halo) / (2.0 * halo))
        if high:
            w = np.minimum(w, (n - 1 + halo - jf) / (2.0 * halo))
    else:
        if low:
            w = np.where(j == 0, 0.5, w)
        if high:
            w = np.where(j == n - 1, 0.5, w)
    return np.where(inside, np.clip(w, 0.0, 1.0), 0.0)


def _window_axes(grid: WorldGrid, tx: int, tz: int) -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """``(low, high)`` neighbour flags of window ``(tx, tz)`` along rows and along columns.

    Rows grow towards Blender +Y, i.e. Unity -Z (tile z - 1); columns towards Blender +X, Unity -X.
    """
    rows = (grid.contains(tx, tz + 1), grid.contains(tx, tz - 1))
    cols = (grid.contains(tx + 1, tz), grid.contains(tx - 1, tz))
    return rows, cols


def blend_windows(
    grid: WorldGrid,
    x: int,
    z: int,
    margin: int,
    load: Callable[[int, int, Sequence[str]], Mapping[str, npt.NDArray[Any]] | None],
    keys: Sequence[str] = KEYS,
) -> dict[str, npt.NDArray[np.float64]]:
    """``{key: float64 (n + 2 margin)^2}``: the weighted sum of the windows' maps over tile ``(x, z)``
    and ``margin`` cells around it; keys absent from the windows are left out.

    ``load(tx, tz, keys)`` returns window ``(tx, tz)``'s arrays (each ``(n + 2H)^2``).
    """
    n, h = grid.resolution, grid.halo_cells
    side = n + 2 * margin
    local = np.arange(-margin, n + margin)
    r0, c0 = grid.origin(x, z)
    acc = {}
    for tz in (z - 1, z, z + 1):
        for tx in (x - 1, x, x + 1):
            if not grid.contains(tx, tz):
                continue
            wr0, wc0 = grid.origin(tx, tz)
            rl, cl = local + (r0 - wr0), local + (c0 - wc0)  # our samples in the window tile's indices
            (rlow, rhigh), (clow, chigh) = _window_axes(grid, tx, tz)
            wr = axis_weights(rl, n, h, low=rlow, high=rhigh)
            wc = axis_weights(cl, n, h, low=clow, high=chigh)
            rs, cs = np.flatnonzero(wr), np.flatnonzero(wc)
            if not len(rs) or not len(cs):
                continue
            data = load(tx, tz, keys)
            if data is None:
                raise ParameterError(f"the erosion window of tile ({tx}, {tz}) is missing")
            a, b = slice(rs[0], rs[-1] + 1), slice(cs[0], cs[-1] + 1)
            wa = slice(rl[rs[0]] + h, rl[rs[-1]] + h + 1)
            wb = slice(cl[cs[0]] + h, cl[cs[-1]] + h + 1)
            w2 = wr[a, None] * wc[None, b]
            for key in keys:
                if key not in data:
                    continue
                if key not in acc:
                    acc[key] = np.zeros((side, side), np.float64)
                acc[key][a, b] += w2 * data[key][wa, wb]
            del data
    return acc


def seam_report(
    grid: WorldGrid,
    load: str | Callable[[int, int, Sequence[str]], Mapping[str, npt.NDArray[Any]] | None],
    *,
    key: str = "delta",
) -> dict[str, float]:
    """How far neighbouring windows disagree on their shared borders before blending.

    Parameters
    ----------
    grid : WorldGrid
    load : callable
        ``load(tx, tz, keys)`` -> the window's arrays and its ``relief`` ([min, max] metres), as
        ``blend_windows`` takes it; or a cache folder (str), whose ``window_<x>_<z>.npz`` are read.
    key : str
        The map compared: ``"delta"`` (eroded minus base heights, metres).

    Returns
    -------
    report : dict
        ``max_m``, ``mean_m``: the largest and mean ``|delta_A - delta_B|`` over every shared
        border sample; ``relief_m``: the world's height range (the windows' eroded heights);
        ``max``, ``mean``: the jumps as fractions of the relief; ``borders``: borders compared.
    """
    if isinstance(load, str):
        from ._window import load_window, window_path

        folder = load

        def load(tx: int, tz: int, keys: Sequence[str]) -> Mapping[str, npt.NDArray[Any]] | None:
            return load_window(window_path(folder, tx, tz), keys=keys)

    n, h = grid.resolution, grid.halo_cells
    inner = slice(h, h + n)
    lo, hi, total, count, worst, borders = np.inf, -np.inf, 0.0, 0, 0.0, 0
    for tx, tz in grid.tiles():
        a = load(tx, tz, (key, "relief"))
        assert a is not None, f"the window of tile ({tx}, {tz}) is not in the cache"
        lo, hi = min(lo, float(a["relief"][0])), max(hi, float(a["relief"][1]))
        for nx_, nz_, mine, theirs in (
            (tx + 1, tz, (inner, h), (inner, h + n - 1)),  # tile x + 1: our column 0 is its last
            (tx, tz + 1, (h, inner), (h + n - 1, inner)),  # tile z + 1: our row 0 is its last
        ):
            if not grid.contains(nx_, nz_):
                continue
            b = load(nx_, nz_, (key,))
            assert b is not None, f"the window of tile ({nx_}, {nz_}) is not in the cache"
            if key not in a or key not in b:
                continue
            jump = np.abs(a[key][mine].astype(np.float64) - b[key][theirs].astype(np.float64))
            worst = max(worst, float(jump.max()))
            total += float(jump.sum())
            count += jump.size
            borders += 1
    relief = max(hi - lo, 0.0) if np.isfinite(lo) else 0.0
    mean = total / count if count else 0.0
    scale = relief if relief > 0 else 1.0
    return {
        "max_m": worst,
        "mean_m": mean,
        "relief_m": relief,
        "max": worst / scale,
        "mean": mean / scale,
        "borders": borders,
    }
