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
from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _perlin, _simplex
from ._checks import (MAX_CELLS, ParameterError, check_array, check_choice, check_float,
                      check_int, check_pair, check_shape, make_rng)

__all__ = ["fbm", "fbm_at", "noise2", "OCTAVES", "SCALE", "PERSISTENCE", "LACUNARITY", "WARP",
           "OFFSET", "BASES", "KINDS", "WARP_OCTAVES"]

#: Number of octaves.
OCTAVES = (1, 16)
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
#: Octaves of the two warp fields (fewer if ``octaves`` is smaller).
WARP_OCTAVES = 3

_MAX_OCTAVES = OCTAVES[1]
_CHUNK = 1 << 17          # points per chunk in the point kernels (measured best with 2 threads)
_GRID_CHUNK = 1 << 17     # cells per row chunk in the grid kernel (measured best with 2 threads)
_TABLE_BUDGET = 1 << 23   # float32 elements of Perlin column tables alive at once (32 MB)
_BAND_CELLS = 1 << 14     # below this many cells per band, gather rows instead of looping bands
# Chunks are independent and numpy releases the GIL, so they run on a few threads;
# every chunk does the same operations whichever thread runs it (same bytes).
_THREADS = max(1, min(4, os.cpu_count() or 1))
# Largest |noise coordinate| before floor() -> int64 could overflow (with margin).
_REACH = float(2 ** 62)


# ---------------------------------------------------------------------------
# parameters

def _check_params(scale, octaves, persistence, lacunarity, basis, kind, warp):
    return (check_float(scale, name="scale", bounds=SCALE),
            check_int(octaves, name="octaves", bounds=OCTAVES),
            check_float(persistence, name="persistence", bounds=PERSISTENCE),
            check_float(lacunarity, name="lacunarity", bounds=LACUNARITY),
            check_choice(basis, name="basis", choices=BASES),
            check_choice(kind, name="kind", choices=KINDS),
            check_float(warp, name="warp", bounds=WARP))


def _check_reach(max_abs, scale, octaves, lacunarity, warp, name):
    """Refuse coordinates whose noise coordinates would overflow the lattice index.

    Returns True if every noise coordinate is below ``_perlin.MAGIC_REACH`` (the
    Perlin point kernel's fast cell index applies).
    """
    f_max = lacunarity ** (octaves - 1) / scale
    reach = (max_abs + warp * scale + 2.0) * f_max + 2.0 * _perlin.PERIOD
    if not reach < _REACH:
        limit = _REACH / f_max - warp * scale - 2.0 * _perlin.PERIOD / f_max - 2.0
        raise ParameterError(
            f"{name} reaches {max_abs:g} grid units, too far for scale {scale:g}, lacunarity "
            f"{lacunarity:g} and {octaves} octaves (at most {max(limit, 0.0):g})")
    return reach < _perlin.MAGIC_REACH


class _Field:
    """Random parameters of one noise field, drawn from a Generator in a fixed order.

    Always draws for ``OCTAVES[1]`` octaves, so changing ``octaves`` never
    changes the octaves that remain.
    """

    def __init__(self, rng):
        self.perm = rng.permutation(_perlin.PERIOD).astype(np.int64)   # int32 on some platforms
        # real-valued per-octave offsets (no lattice lines up with another octave's)
        self.offsets = rng.random((_MAX_OCTAVES, 2)) * _perlin.PERIOD
        # per-octave dihedral orientation: bit 2 swaps the axes, bits 0/1 flip them
        self.orientations = rng.integers(0, 8, size=_MAX_OCTAVES)

    def perlin_tables(self, orientation):
        return _cached_tables(self.perm.tobytes(), int(orientation))

    def simplex_tables(self):
        return _cached_tables(self.perm.tobytes(), "simplex")


@functools.lru_cache(maxsize=64)
def _cached_tables(perm_bytes, orientation):
    """Gradient tables of a permutation (a pure function of its arguments; read-only)."""
    perm = np.frombuffer(perm_bytes, dtype=np.int64)
    if orientation == "simplex":
        tables = _simplex.gradient_tables(perm)
    else:
        tables = _perlin.gradient_tables(perm, orientation)
    for t in tables:
        t.flags.writeable = False
    return tables


def _fields(seed):
    rng = make_rng(seed)
    return _Field(rng), _Field(rng), _Field(rng)      # main, warp x, warp y


#: Musgrave's gain: how strongly a ridged octave's signal feeds the next octave's weight.
RIDGE_GAIN = 2.0


class _Plan:
    """Octave list of one field: frequency, offset, orientation, amplitude."""

    def __init__(self, field, basis, kind, scale, octaves, persistence, lacunarity, near=False):
        self.field, self.basis, self.kind = field, basis, kind
        self.near = near          # noise coordinates below _perlin.MAGIC_REACH
        self.octaves = []
        total = 0.0
        for o in range(octaves):
            amp = persistence ** o
            total += amp
            f = lacunarity ** o / scale
            orient = int(field.orientations[o])
            swap, sx, sy = orient & 4, (-1.0 if orient & 1 else 1.0), (-1.0 if orient & 2 else 1.0)
            ox, oy = (float(v) for v in field.offsets[o])
            if basis == "perlin":
                # noise(M q + o) = noise'(q + M^T o) with a remapped gradient table
                eff = (sy * oy, sx * ox) if swap else (sx * ox, sy * oy)
                gx, gy = field.perlin_tables(orient)
                w = np.float32(self.octave_weight(amp))
                if w != 1:        # the weight is folded into the gradients (exact: g in {0, +-1})
                    gx, gy = gx * w, gy * w
                self.octaves.append((f, eff[0], eff[1], gx, gy, amp))
            else:
                gx, gy = field.simplex_tables()
                self.octaves.append((f, sx, sy, bool(swap), ox, oy, gx, gy, amp))
        self.inv_total = np.float32(1.0 / total)

    # -- per-octave shaping, shared by the grid and the point paths -------------
    def octave_weight(self, amp):
        """Amplitude folded into the basis (fbm) or applied after shaping (others)."""
        return amp if self.kind == "fbm" else 1.0

    def shape_into(self, n, amp, acc, weight=None):
        """acc += amp * shape(n) for ridged/billow (n is overwritten).

        Ridged is Musgrave's ridged multifractal: each octave's ridge signal
        ``(1 - |n|)^2`` is multiplied by ``weight`` (1 for the first octave),
        and the next octave's weight is ``clip(signal * RIDGE_GAIN, 0, 1)``, so
        detail gathers on the ridges and the valleys stay smooth.
        """
        np.abs(n, out=n)
        if self.kind == "ridged":
            np.subtract(np.float32(1), n, out=n)
            n *= n                                    # (1 - |n|)^2 in [0, 1]
            n *= weight
            np.multiply(n, np.float32(RIDGE_GAIN), out=weight)
            np.clip(weight, np.float32(0), np.float32(1), out=weight)
        n *= np.float32(2)
        n -= np.float32(1)                            # -> [-1, 1]
        n *= np.float32(amp)
        acc += n

    def finish(self, acc, out=None):
        out = acc if out is None else out
        np.multiply(acc, self.inv_total, out=out)
        np.clip(out, np.float32(-1), np.float32(1), out=out)
        return out

    # -- arbitrary points -------------------------------------------------------
    def points(self, x, y, out, ws):
        """Evaluate the field at 1-D float64 x, y (one chunk) into float32 ``out``.

        ``ws`` is a ``_perlin.Workspace`` of at least ``len(out)`` points; the
        octaves are summed in its (page-offset placed) accumulator.
        """
        m = out.shape[0]
        acc = ws.acc[:m]
        acc.fill(0)
        linear = self.kind == "fbm"
        n = acc if linear else ws.octave[:m]
        weight = ws.ridge[:m] if self.kind == "ridged" else None
        if weight is not None:
            weight.fill(1)
        for octave in self.octaves:
            amp = octave[-1]
            w = self.octave_weight(amp)
            if not linear:
                n.fill(0)
            if self.basis == "perlin":
                f, ox, oy, gx, gy, _ = octave      # weight already in gx, gy
                _perlin.point_octave(x, y, f, ox, oy, gx, gy, 1.0, n, ws, near=self.near)
            else:
                f, sx, sy, swap, ox, oy, gx, gy, _ = octave
                _simplex.point_octave(x, y, sx, sy, swap, f, ox, oy, gx, gy, w, n, ws)
            if not linear:
                self.shape_into(n, amp, acc, weight)
        return self.finish(acc, out)

    def eval_points(self, x, y, out, threads=True):
        """Evaluate at 1-D float64 x, y into 1-D float32 ``out``, chunk by chunk."""
        def work(s, e, ws):
            self.points(x[s:e], y[s:e], out[s:e], ws)
        _parallel(len(out), _CHUNK, work, threads)
        return out

    # -- regular grid -----------------------------------------------------------
    def grid(self, xs, ys, out, threads=True):
        """Evaluate at every (ys[i], xs[j]) into ``out`` (rows, cols) float32."""
        if self.basis != "perlin":
            return self._grid_by_points(xs, ys, out, threads)
        rows, cols = out.shape
        # Perlin tables: at most 256 distinct lattice rows (the lattice wraps)
        table_rows = []
        for f, ox, oy, *_ in self.octaves:
            ly = np.floor(np.multiply(ys[[0, -1]], f) + oy)
            table_rows.append(int(min(_perlin.PERIOD, ly[1] - ly[0] + 2)))
        block = int(max(64, min(cols, _TABLE_BUDGET // (2 * sum(table_rows)))))
        for c0 in range(0, cols, block):
            self._perlin_block(xs[c0:c0 + block], ys, out[:, c0:c0 + block], threads)
        return out

    def _grid_by_points(self, xs, ys, out, threads):
        rows, cols = out.shape
        step = max(1, _CHUNK // cols)

        def work(r0, r1, ws):
            x, y = _grid_coords(xs, ys[r0:r1], ws)
            self.points(x, y, out[r0:r1].reshape(-1), ws)
        _parallel(rows, step, work, threads, size=step * cols)
        return out

    def _perlin_block(self, xs, ys, out, threads):
        rows, cols = out.shape
        prepared = []
        for f, ox, oy, gx, gy, amp in self.octaves:          # weight already in gx, gy
            ix, u = _perlin.lattice(xs, f, ox)
            alp, bet, gam, fu = _perlin.factors(u)
            ny = np.multiply(ys, f)
            ny += oy
            fl = np.floor(ny)
            ny -= fl
            ly = fl.astype(np.int64)
            a_v, b_v, c_v, d_v = _perlin.factors(ny.astype(np.float32))
            r = (c_v, a_v, d_v, b_v)
            l0 = int(ly[0])
            n_l = int(ly[-1]) - l0 + 2
            if n_l <= _perlin.PERIOD:
                wrapped = (l0 + np.arange(n_l)) & (_perlin.PERIOD - 1)
                trow = (ly - l0).astype(np.intp)
                trow1 = trow + 1
            else:
                wrapped = np.arange(_perlin.PERIOD)
                trow = (ly & (_perlin.PERIOD - 1)).astype(np.intp)
                trow1 = ((ly + 1) & (_perlin.PERIOD - 1)).astype(np.intp)
            # column tables P[t, c], Q[t, c] of lattice row wrapped[t] (same rounding as point_octave)
            gx2 = gx.reshape(_perlin.PERIOD + 1, -1)[wrapped]
            gy2 = gy.reshape(_perlin.PERIOD + 1, -1)[wrapped]
            p_tab = np.take(gx2, ix, axis=1)
            p_tab *= alp
            side = np.take(gx2, ix + 1, axis=1)
            side *= bet
            p_tab += side
            q_tab = np.take(gy2, ix, axis=1)
            q_tab *= gam
            np.take(gy2, ix + 1, axis=1, out=side)
            side *= fu
            q_tab += side
            del side
            bounds = np.concatenate([[0], np.flatnonzero(np.diff(ly)) + 1, [rows]])
            banded = rows * cols >= _BAND_CELLS * (len(bounds) - 1)
            prepared.append((p_tab, q_tab, r, trow, trow1, bounds, banded, amp))

        step = max(1, min(rows, _GRID_CHUNK // cols))
        linear = self.kind == "fbm"

        def work(r0, r1, ws):
            buf = ws.flt[0][:step * cols].reshape(step, cols)
            acc = out[r0:r1]
            acc[...] = 0
            n = acc if linear else ws.octave[:(r1 - r0) * cols].reshape(r1 - r0, cols)
            weight = ws.ridge[:(r1 - r0) * cols].reshape(r1 - r0, cols) if self.kind == "ridged" else None
            if weight is not None:
                weight.fill(1)
            for p_tab, q_tab, (r1_, r2_, r3_, r4_), trow, trow1, bounds, banded, amp in prepared:
                if not linear:
                    n[...] = 0
                terms = ((p_tab, r1_, trow), (q_tab, r2_, trow), (p_tab, r3_, trow1), (q_tab, r4_, trow1))
                if banded:        # tall bands: four outer products per band
                    b = int(np.searchsorted(bounds, r0, side="right")) - 1
                    while bounds[b] < r1:
                        a, z = max(bounds[b], r0), min(bounds[b + 1], r1)
                        seg = n[a - r0:z - r0]
                        tmp = buf[:z - a]
                        for tab, rf, tr in terms:
                            np.multiply(rf[a:z, None], tab[tr[a]], out=tmp)
                            seg += tmp
                        b += 1
                else:             # thin bands: gather each row's table row, then multiply
                    g = buf[:r1 - r0]
                    for tab, rf, tr in terms:
                        np.take(tab, tr[r0:r1], axis=0, out=g)
                        g *= rf[r0:r1, None]
                        n += g
                if not linear:
                    self.shape_into(n, amp, acc, weight)
            self.finish(acc)
        _parallel(rows, step, work, threads, size=step * cols)
        return out


def _parallel(total, step, work, threads=True, size=None):
    """Run ``work(start, stop, ws)`` over [0, total) in chunks of ``step``.

    Chunks are dealt round-robin to up to ``_THREADS`` threads, each with its own
    ``_perlin.Workspace`` of ``size`` points (default ``step``).
    """
    starts = range(0, total, step)
    n_threads = min(_THREADS if threads else 1, len(starts))
    size = min(step, total) if size is None else size

    def worker(w):
        ws = _perlin.Workspace(size)
        for s in starts[w::n_threads]:
            work(s, min(total, s + step), ws)
    if n_threads <= 1:
        worker(0)
        return
    with ThreadPoolExecutor(n_threads) as pool:
        for f in [pool.submit(worker, w) for w in range(n_threads)]:
            f.result()


def _grid_coords(xs, ys, ws):
    """Flat float64 (x, y) of the grid rows ``ys`` x columns ``xs``, in workspace buffers."""
    m = len(xs) * len(ys)
    x, y = ws.coords[0][:m], ws.coords[1][:m]
    np.copyto(x.reshape(len(ys), len(xs)), xs[None, :])
    np.copyto(y.reshape(len(ys), len(xs)), ys[:, None])
    return x, y


def _warp_into(plan, x, y, wx, wy, reach, out, ws):
    """Move (x, y) (in place) by reach * (wx, wy), float64, and evaluate ``plan`` there."""
    d = ws.coords[2][:len(x)]
    np.multiply(wx, reach, out=d, dtype=np.float64)
    x += d
    np.multiply(wy, reach, out=d, dtype=np.float64)
    y += d
    plan.points(x, y, out, ws)


def _warp_plans(fields, basis, scale, octaves, persistence, lacunarity, near):
    k = min(octaves, WARP_OCTAVES)
    return [_Plan(fd, basis, "fbm", scale, k, persistence, lacunarity, near) for fd in fields[1:]]


# ---------------------------------------------------------------------------
# public API

def fbm(shape, *, scale=64.0, octaves=6, persistence=0.5, lacunarity=2.0, seed=0,
        offset=(0.0, 0.0), basis="perlin", kind="fbm", warp=0.0):
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
        scale, octaves, persistence, lacunarity, basis, kind, warp)
    ox, oy = check_pair(offset, name="offset", bounds=OFFSET)
    near = _check_reach(max(abs(ox), abs(oy)) + max(rows, cols), scale, octaves, lacunarity, warp, "offset")
    fields = _fields(seed)
    plan = _Plan(fields[0], basis, kind, scale, octaves, persistence, lacunarity, near)
    xs = np.arange(cols, dtype=np.float64) + ox
    ys = np.arange(rows, dtype=np.float64) + oy
    out = np.empty((rows, cols), np.float32)
    if warp == 0.0:
        return plan.grid(xs, ys, out)
    warps = _warp_plans(fields, basis, scale, octaves, persistence, lacunarity, near)
    step = max(1, _CHUNK // cols)

    def work(r0, r1, ws):
        m = (r1 - r0) * cols
        wx = warps[0].grid(xs, ys[r0:r1], ws.warp[0][:m].reshape(r1 - r0, cols), threads=False)
        wy = warps[1].grid(xs, ys[r0:r1], ws.warp[1][:m].reshape(r1 - r0, cols), threads=False)
        x, y = _grid_coords(xs, ys[r0:r1], ws)
        _warp_into(plan, x, y, wx.reshape(-1), wy.reshape(-1), warp * scale, out[r0:r1].reshape(-1), ws)
    _parallel(rows, step, work, size=step * cols)
    return out


def fbm_at(x, y, *, scale=64.0, octaves=6, persistence=0.5, lacunarity=2.0, seed=0,
           basis="perlin", kind="fbm", warp=0.0):
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
        scale, octaves, persistence, lacunarity, basis, kind, warp)
    x, y = _check_points(x, y)
    max_abs = max(float(np.abs(x).max(initial=0.0)), float(np.abs(y).max(initial=0.0)))
    near = _check_reach(max_abs, scale, octaves, lacunarity, warp, "x, y")
    shape = x.shape
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    fields = _fields(seed)
    plan = _Plan(fields[0], basis, kind, scale, octaves, persistence, lacunarity, near)
    out = np.empty(x.size, np.float32)
    if warp == 0.0:
        return plan.eval_points(x, y, out).reshape(shape)
    warps = _warp_plans(fields, basis, scale, octaves, persistence, lacunarity, near)

    def work(s, e, ws):
        m = e - s
        wx = warps[0].points(x[s:e], y[s:e], ws.warp[0][:m], ws)
        wy = warps[1].points(x[s:e], y[s:e], ws.warp[1][:m], ws)
        xw, yw = ws.coords[0][:m], ws.coords[1][:m]
        np.copyto(xw, x[s:e])
        np.copyto(yw, y[s:e])
        _warp_into(plan, xw, yw, wx, wy, warp * scale, out[s:e], ws)
    _parallel(x.size, _CHUNK, work)
    return out.reshape(shape)


def _check_points(x, y):
    x = check_array(x, name="x")
    y = check_array(y, name="y")
    try:
        x, y = np.broadcast_arrays(x, y)
    except ValueError:
        raise ParameterError(f"x and y must broadcast together, got shapes {x.shape} and {y.shape}") from None
    if x.size > MAX_CELLS:
        raise ParameterError(f"x, y have {x.size:,} points, more than the {MAX_CELLS:,} allowed")
    return x, y


def noise2(x, y, *, seed=0, basis="perlin"):
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
    x, y = _check_points(x, y)
    max_abs = max(float(np.abs(x).max(initial=0.0)), float(np.abs(y).max(initial=0.0)))
    near = _check_reach(max_abs, 1.0, 1, 1.0, 0.0, "x, y")
    field = _Field(make_rng(seed))
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
