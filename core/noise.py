"""Fractal noise fields: fBm, ridged and billow over Perlin or simplex noise.

Pure numpy, deterministic to the byte: only IEEE-exact elementwise operations
(+ - * /, floor, integer maths and table look-ups) run on the data, so the same
arguments give the same bytes on any machine, and tiles generated separately
share their edges exactly.

Public functions
----------------
fbm(shape, ...)     a (rows, cols) grid; sample (i, j) is at world (offset[0] + j, offset[1] + i)
fbm_at(x, y, ...)   the same field at arbitrary float64 world coordinates
noise2(x, y, ...)   one octave of the basis noise

The bounds below are module constants because the Blender property groups and
the recipe reader import them for their min/max.
"""

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from . import _perlin, _simplex, exact
from ._checks import (
    MAX_CELLS,
    Seed,
    check_array,
    check_choice,
    check_float,
    check_int,
    check_pair,
    check_shape,
    make_rng,
)
from ._fractal import (
    MAX_OCTAVES,
    REACH,
    RIDGE_GAIN,
    WARP_GRID_CHUNK,
    WARP_OCTAVES,
    OctaveField,
    WarpPlan,
    grid_coords,
    make_fields,
    point_chunk,
    run_parallel,
    warp_into,
    warp_plans,
)
from ._perlin import Workspace
from .errors import ParameterError

__all__ = [
    "fbm",
    "fbm_at",
    "noise2",
    "OCTAVES",
    "SCALE",
    "PERSISTENCE",
    "LACUNARITY",
    "WARP",
    "OFFSET",
    "BASES",
    "KINDS",
    "WARP_OCTAVES",
    "RIDGE_GAIN",
]

#: Number of octaves.
OCTAVES = (1, MAX_OCTAVES)
#: Feature size of the first octave, in grid units (cells).
SCALE = (0.001, 1_000_000.0)
#: Amplitude factor from one octave to the next.
PERSISTENCE = (0.0, 1.0)
#: Frequency factor from one octave to the next.
LACUNARITY = (1.0, 4.0)
#: Domain-warp strength, in units of the first octave's feature size.
WARP = (0.0, 4.0)
#: World offset of the grid, in grid units (each coordinate).
OFFSET = (-1.0e9, 1.0e9)
#: Basis noises.
BASES = ("perlin", "simplex")
#: Octave combinations.
KINDS = ("fbm", "ridged", "billow")

# ---------------------------------------------------------------------------
# parameters


def _check_params(
    scale: float, octaves: int, persistence: float, lacunarity: float, basis: str, kind: str, warp: float
) -> tuple[float, int, float, float, str, str, float]:
    return (
        check_float(scale, name="scale", bounds=SCALE),
        check_int(octaves, name="octaves", bounds=OCTAVES),
        check_float(persistence, name="persistence", bounds=PERSISTENCE),
        check_float(lacunarity, name="lacunarity", bounds=LACUNARITY),
        check_choice(basis, name="basis", choices=BASES),
        check_choice(kind, name="kind", choices=KINDS),
        check_float(warp, name="warp", bounds=WARP),
    )


def _check_reach(max_abs: float, scale: float, octaves: int, lacunarity: float, warp: float, name: str) -> bool:
    """Refuse coordinates whose noise coordinates would overflow the lattice index.

    Returns True if every noise coordinate is below ``_perlin.MAGIC_REACH`` (the
    Perlin point kernel's fast cell index applies).
    """
    f_max = exact.pow(lacunarity, octaves - 1) / scale
    reach = (max_abs + warp * scale + 2.0) * f_max + 2.0 * _perlin.PERIOD
    if not reach < REACH:
        limit = REACH / f_max - warp * scale - 2.0 * _perlin.PERIOD / f_max - 2.0
        raise ParameterError(
            f"{name} reaches {max_abs:g} grid units, too far for scale {scale:g}, lacunarity "
            f"{lacunarity:g} and {octaves} octaves (at most {max(limit, 0.0):g})"
        )
    return reach < _perlin.MAGIC_REACH


# ---------------------------------------------------------------------------
# public API


def fbm(
    shape: Sequence[int],
    *,
    scale: float = 64.0,
    octaves: int = 6,
    persistence: float = 0.5,
    lacunarity: float = 2.0,
    seed: Seed = 0,
    offset: tuple[float, float] = (0.0, 0.0),
    basis: str = "perlin",
    kind: str = "fbm",
    warp: float = 0.0,
) -> npt.NDArray[np.float32]:
    """Fractal noise on a regular grid, values in [-1, 1].

    Sample ``(i, j)`` lies at world position ``x = offset[0] + j``,
    ``y = offset[1] + i`` (float64, grid units). Octave ``o`` samples the basis
    at ``M_o (x, y) * lacunarity**o / scale + t_o`` with weight
    ``persistence**o``; ``t_o`` is a real-valued offset and ``M_o`` one of the
    8 axis swaps/flips, both drawn from the seed. For Perlin the orientation is
    applied by remapping the gradient lattice (the fade weights are symmetric
    under those maps), which keeps the separable fast path valid: within a
    band of rows sharing a lattice row an octave is four outer products.

    Parameters
    ----------
    shape : (rows, cols) tuple of int
        At most ``MAX_CELLS`` cells in total (refused before allocating).
    scale : float, within ``SCALE``
        Feature size of the first octave, in grid units.
    octaves : int, within ``OCTAVES`` = (1, 16)
    persistence : float, within ``PERSISTENCE``
        Amplitude factor per octave.
    lacunarity : float, within ``LACUNARITY``
        Frequency factor per octave.
    seed : int >= 0 or numpy.random.Generator
        Everything random (permutation, octave offsets and orientations, warp
        fields) is drawn from ``numpy.random.default_rng(seed)``; the same seed
        gives the same bytes. A Generator is consumed.
    offset : (float, float), each within ``OFFSET``
        World position of sample (0, 0); tiles with offsets a tile apart agree
        exactly (bit for bit) on shared rows and columns.
    basis : {'perlin', 'simplex'}
        Improved Perlin (2002) or OpenSimplex2-style simplex noise.
    kind : {'fbm', 'ridged', 'billow'}
        fbm sums the octaves; billow sums ``2|n| - 1``; ridged is Musgrave's
        ridged multifractal, summing ``2 s - 1`` with ``s = w (1 - |n|)^2`` and
        each octave's weight ``w`` from the previous octave's ``s`` (see
        ``RIDGE_GAIN``). Every kind is divided by the sum of the weights.
    warp : float, within ``WARP``
        Domain warp: the sample position moves by ``warp * scale`` times two
        independent ``min(octaves, WARP_OCTAVES)``-octave fbm fields drawn
        from the seed, then the field is evaluated there.

    Returns
    -------
    height : (rows, cols) float32 ndarray
        Values within [-1, 1] (each basis octave is within [-1, 1]; the sum is
        normalised by the weights and clipped against rounding).

    Raises
    ------
    ParameterError
        A parameter is out of range, not finite or of the wrong type; the
        message names it, shows the value and the allowed range.

    See Also
    --------
    fbm_at : the same field at arbitrary coordinates.

    Notes
    -----
    The Perlin lattice repeats every 256 cells of each octave, so the first
    octave repeats every ``256 * scale`` grid units (offsets and orientations
    differ per octave, so the sum does not line up earlier).

    Examples
    --------
    >>> h = fbm((64, 96), scale=32.0, octaves=4, seed=7)
    >>> h.shape, h.dtype
    ((64, 96), dtype('float32'))
    >>> bool(h.min() >= -1.0 and h.max() <= 1.0)
    True
    >>> right = fbm((64, 96), scale=32.0, octaves=4, seed=7, offset=(95.0, 0.0))
    >>> bool((right[:, 0] == h[:, -1]).all())
    True
    """
    rows, cols = check_shape(shape, name="shape", max_cells=MAX_CELLS)
    scale, octaves, persistence, lacunarity, basis, kind, warp = _check_params(
        scale, octaves, persistence, lacunarity, basis, kind, warp
    )
    ox, oy = check_pair(offset, name="offset", bounds=OFFSET)
    near = _check_reach(max(abs(ox), abs(oy)) + max(rows, cols), scale, octaves, lacunarity, warp, "offset")
    fields = make_fields(seed)
    plan = WarpPlan(fields[0], basis, kind, scale, octaves, persistence, lacunarity, near)
    xs = np.arange(cols, dtype=np.float64) + ox
    ys = np.arange(rows, dtype=np.float64) + oy
    out = np.empty((rows, cols), np.float32)
    if warp == 0.0:
        return plan.grid(xs, ys, out)
    warps = warp_plans(fields, basis, scale, octaves, persistence, lacunarity, near)
    step = max(1, WARP_GRID_CHUNK // cols)

    def work(r0: int, r1: int, ws: Workspace) -> None:
        m = (r1 - r0) * cols
        wx = warps[0].grid(xs, ys[r0:r1], ws.warp[0][:m].reshape(r1 - r0, cols), threads=False)
        wy = warps[1].grid(xs, ys[r0:r1], ws.warp[1][:m].reshape(r1 - r0, cols), threads=False)
        x, y = grid_coords(xs, ys[r0:r1], ws)
        warp_into(plan, x, y, wx.reshape(-1), wy.reshape(-1), warp * scale, out[r0:r1].reshape(-1), ws)

    run_parallel(rows, step, work, size=step * cols)
    return out


def fbm_at(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    scale: float = 64.0,
    octaves: int = 6,
    persistence: float = 0.5,
    lacunarity: float = 2.0,
    seed: Seed = 0,
    basis: str = "perlin",
    kind: str = "fbm",
    warp: float = 0.0,
) -> npt.NDArray[np.float32]:
    """The :func:`fbm` field at arbitrary world coordinates (grid units).

    ``fbm(shape, offset=o, ...)[i, j]`` equals ``fbm_at(o[0] + j, o[1] + i, ...)``
    bit for bit (same parameters); the grid path is only faster.

    Parameters
    ----------
    x, y : array_like of float
        World coordinates; broadcast together, finite, at most ``MAX_CELLS``
        points.
    scale, octaves, persistence, lacunarity, seed, basis, kind, warp
        As in :func:`fbm`.

    Returns
    -------
    values : float32 ndarray of the broadcast shape, within [-1, 1]

    Examples
    --------
    >>> grid = fbm((4, 5), scale=8.0, octaves=3, seed=1, offset=(10.0, 20.0))
    >>> pts = fbm_at(10.0 + np.arange(5.0), 20.0 + np.arange(4.0)[:, None],
    ...              scale=8.0, octaves=3, seed=1)
    >>> bool((pts == grid).all())
    True
    """
    scale, octaves, persistence, lacunarity, basis, kind, warp = _check_params(
        scale, octaves, persistence, lacunarity, basis, kind, warp
    )
    x, y, max_abs = _check_points(x, y)
    near = _check_reach(max_abs, scale, octaves, lacunarity, warp, "x, y")
    shape = x.shape
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    fields = make_fields(seed)
    plan = WarpPlan(fields[0], basis, kind, scale, octaves, persistence, lacunarity, near)
    out = np.empty(x.size, np.float32)
    if warp == 0.0:
        return plan.eval_points(x, y, out).reshape(shape)
    warps = warp_plans(fields, basis, scale, octaves, persistence, lacunarity, near)

    def work(s: int, e: int, ws: Workspace) -> None:
        m = e - s
        wx = warps[0].points(x[s:e], y[s:e], ws.warp[0][:m], ws)
        wy = warps[1].points(x[s:e], y[s:e], ws.warp[1][:m], ws)
        xw, yw = ws.coords[0][:m], ws.coords[1][:m]
        np.copyto(xw, x[s:e])
        np.copyto(yw, y[s:e])
        warp_into(plan, xw, yw, wx, wy, warp * scale, out[s:e], ws)

    run_parallel(x.size, point_chunk(x.size), work)
    return out.reshape(shape)


def _check_points(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """x, y as broadcast arrays, and the largest ``|coordinate|`` (0 if empty).

    Finiteness is read from each array's min and max (NaN and inf reach them),
    which the reach check needs anyway: no ``isfinite`` pass and no ``abs``
    copy (4M points: 4 MB and 32 MB temporaries, ~8 ms each).
    """
    x = check_array(x, name="x", finite=False)
    y = check_array(y, name="y", finite=False)
    reach = 0.0
    for name, a in (("x", x), ("y", y)):
        if a.size:
            lo, hi = float(a.min()), float(a.max())
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise ParameterError(f"{name} must contain only finite values (found NaN or inf)")
            reach = max(reach, -lo, hi)
    try:
        x, y = np.broadcast_arrays(x, y)
    except ValueError:
        raise ParameterError(f"x and y must broadcast together, got shapes {x.shape} and {y.shape}") from None
    if x.size > MAX_CELLS:
        raise ParameterError(f"x, y have {x.size:,} points, more than the {MAX_CELLS:,} allowed")
    return x, y, reach


def noise2(x: npt.ArrayLike, y: npt.ArrayLike, *, seed: Seed = 0, basis: str = "perlin") -> npt.NDArray[np.float32]:
    """One octave of the basis noise at world (x, y) (noise units), within [-1, 1].

    No octave offset or orientation is applied: this is the raw basis with the
    seed's permutation. Perlin noise is 0 at every integer lattice point.

    Parameters
    ----------
    x, y : array_like of float
        Coordinates, broadcast together.
    seed : int >= 0 or numpy.random.Generator
    basis : {'perlin', 'simplex'}

    Returns
    -------
    values : float32 ndarray of the broadcast shape

    Examples
    --------
    >>> noise2([0.0, 3.0], [0.0, -7.0], seed=3)
    array([0., 0.], dtype=float32)
    >>> bool(abs(noise2(0.5, 0.25, seed=3, basis="simplex")) <= 1.0)
    True
    """
    basis = check_choice(basis, name="basis", choices=BASES)
    x, y, max_abs = _check_points(x, y)
    near = _check_reach(max_abs, 1.0, 1, 1.0, 0.0, "x, y")
    field = OctaveField(make_rng(seed))
    shape = x.shape
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    out = np.zeros(x.size, np.float32)
    ws = _perlin.Workspace(x.size)
    if basis == "perlin":
        gx, gy = field.perlin_tables(0)
        _perlin.point_octave(x, y, 1.0, 0.0, 0.0, gx, gy, 1.0, out, ws, near=near)
    else:
        gx, gy = field.simplex_tables()
        _simplex.point_octave(x, y, 1.0, 1.0, False, 1.0, 0.0, 0.0, gx, gy, 1.0, out, ws)
    np.clip(out, np.float32(-1), np.float32(1), out=out)
    return out.reshape(shape)
