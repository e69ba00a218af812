"""The evaluation engine behind :mod:`.noise`: octave plans, grid and point paths, threads.

A plan holds one field's octaves (frequency, offset, orientation and
amplitude drawn from the seed); it evaluates them on a regular grid (Perlin:
separable row and column factors, a few full-array passes per octave) or at
arbitrary points (cache-sized chunks through the ``_perlin``/``_simplex``
kernels), in chunks spread over a few threads. Every chunk does the same
operations whichever thread runs it, so the bytes never depend on threading.
"""

import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _perlin, _simplex, exact
from ._checks import Seed, make_rng
from ._perlin import Workspace

#: Octaves of the two warp fields (fewer if ``octaves`` is smaller).
WARP_OCTAVES = 3
MAX_OCTAVES = 16
# Points per chunk in the point kernels: a Perlin octave streams ~15 chunk-sized buffers, and at 32k
# points they stay in cache far better than at 128k (measured 1.1-1.2x faster single-threaded for
# fbm_at and the simplex grid, no slower with 2 threads). Bytes never depend on it.
POINT_CHUNK = 1 << 15
# Points per chunk when several threads share the work: numpy releases the GIL only inside each
# call, a call on 32k points lasts a few microseconds, and each hand-over of the GIL between
# threads (a futex wake; slow in a VM) costs about as much, so 2 threads on 32k chunks ran no
# faster than 1. Longer calls make the hand-overs rare. Bytes never depend on it.
THREAD_POINT_CHUNK = 1 << 17
# Rows of a warped grid per chunk (cells): its warp fields use the separable Perlin grid, which
# prefers longer chunks (measured 1.1x faster at 128k than at 32k).
WARP_GRID_CHUNK = 1 << 17
_GRID_CHUNK = 1 << 17  # cells per row chunk in the grid kernel (measured best with 2 threads)
_TABLE_BUDGET = 1 << 23  # float32 elements of Perlin column tables alive at once (32 MB)
_BAND_CELLS = 1 << 14  # below this many cells per band, gather rows instead of looping bands
# Chunks are independent and numpy releases the GIL, so they run on a few threads;
# every chunk does the same operations whichever thread runs it (same bytes).
_THREADS = max(1, min(4, os.cpu_count() or 1))
# Largest |noise coordinate| before floor() -> int64 could overflow (with margin).
REACH = float(2**62)


class OctaveField:
    """Random parameters of one noise field, drawn from a Generator in a fixed order.

    Always draws for ``OCTAVES[1]`` octaves, so changing ``octaves`` never
    changes the octaves that remain.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.perm = rng.permutation(_perlin.PERIOD).astype(np.int64)  # int32 on some platforms
        # real-valued per-octave offsets (no lattice lines up with another octave's)
        self.offsets = rng.random((MAX_OCTAVES, 2)) * _perlin.PERIOD
        # per-octave dihedral orientation: bit 2 swaps the axes, bits 0/1 flip them
        self.orientations = rng.integers(0, 8, size=MAX_OCTAVES)

    def perlin_tables(self, orientation: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return _cached_tables(self.perm.tobytes(), int(orientation))

    def simplex_tables(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return _cached_tables(self.perm.tobytes(), "simplex")


@functools.lru_cache(maxsize=64)
def _cached_tables(
    perm_bytes: bytes, orientation: int | str
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Gradient tables of a permutation (a pure function of its arguments; read-only)."""
    perm = np.frombuffer(perm_bytes, dtype=np.int64)
    if orientation == "simplex":
        tables = _simplex.gradient_tables(perm)
    else:
        tables = _perlin.gradient_tables(perm, int(orientation))
    for t in tables:
        t.flags.writeable = False
    return tables


def make_fields(seed: Seed) -> tuple[OctaveField, OctaveField, OctaveField]:
    rng = make_rng(seed)
    return OctaveField(rng), OctaveField(rng), OctaveField(rng)  # main, warp x, warp y


#: Musgrave's gain: how strongly a ridged octave's signal feeds the next octave's weight.
RIDGE_GAIN = 2.0


class WarpPlan:
    """Octave list of one field: frequency, offset, orientation, amplitude."""

    def __init__(
        self,
        field: OctaveField,
        basis: str,
        kind: str,
        scale: float,
        octaves: int,
        persistence: float,
        lacunarity: float,
        near: bool = False,
    ) -> None:
        self.field, self.basis, self.kind = field, basis, kind
        self.near = near  # noise coordinates below _perlin.MAGIC_REACH
        # (f, ox, oy, gx, gy, amp) per Perlin octave, (f, sx, sy, swap, ox, oy, gx, gy, amp) per simplex one
        self.octaves: list[tuple[Any, ...]] = []
        total = 0.0
        for o in range(octaves):
            amp = exact.pow(persistence, o)  # not **: the C library's pow differs between machines
            total += amp
            f = exact.pow(lacunarity, o) / scale
            orient = int(field.orientations[o])
            swap, sx, sy = orient & 4, (-1.0 if orient & 1 else 1.0), (-1.0 if orient & 2 else 1.0)
            ox, oy = (float(v) for v in field.offsets[o])
            if basis == "perlin":
                # noise(M q + o) = noise'(q + M^T o) with a remapped gradient table
                eff = (sy * oy, sx * ox) if swap else (sx * ox, sy * oy)
                gx, gy = field.perlin_tables(orient)
                w = np.float32(self.octave_weight(amp))
                if w != 1:  # the weight is folded into the gradients (exact: g in {0, +-1})
                    gx, gy = gx * w, gy * w
                self.octaves.append((f, eff[0], eff[1], gx, gy, amp))
            else:
                gx, gy = field.simplex_tables()
                self.octaves.append((f, sx, sy, bool(swap), ox, oy, gx, gy, amp))
        self.inv_total = np.float32(1.0 / total)

    # -- per-octave shaping, shared by the grid and the point paths -------------
    def octave_weight(self, amp: float) -> float:
        """Amplitude folded into the basis (fbm) or applied after shaping (others)."""
        return amp if self.kind == "fbm" else 1.0

    def shape_into(
        self,
        n: npt.NDArray[np.float32],
        amp: float,
        acc: npt.NDArray[np.float32],
        weight: npt.NDArray[np.float32] | None = None,
    ) -> None:
        """acc += amp * shape(n) for ridged/billow (n is overwritten).

        Ridged is Musgrave's ridged multifractal: each octave's ridge signal
        ``(1 - |n|)^2`` is multiplied by ``weight`` (1 for the first octave),
        and the next octave's weight is ``clip(signal * RIDGE_GAIN, 0, 1)``, so
        detail gathers on the ridges and the valleys stay smooth.
        """
        np.abs(n, out=n)
        if self.kind == "ridged":
            assert weight is not None, "a ridged octave needs its weight"
            np.subtract(np.float32(1), n, out=n)
            n *= n  # (1 - |n|)^2 in [0, 1]
            n *= weight
            np.multiply(n, np.float32(RIDGE_GAIN), out=weight)
            np.clip(weight, np.float32(0), np.float32(1), out=weight)
        n *= np.float32(2)
        n -= np.float32(1)  # -> [-1, 1]
        n *= np.float32(amp)
        acc += n

    def finish(
        self, acc: npt.NDArray[np.float32], out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        out = acc if out is None else out
        np.multiply(acc, self.inv_total, out=out)
        np.clip(out, np.float32(-1), np.float32(1), out=out)
        return out

    # -- arbitrary points -------------------------------------------------------
    def points(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        out: npt.NDArray[np.float32],
        ws: Workspace,
        grid: bool = False,
    ) -> npt.NDArray[np.float32]:
        """Evaluate the field at 1-D float64 x, y (one chunk) into float32 ``out``.

        ``ws`` is a ``_perlin.Workspace`` of at least ``len(out)`` points; the
        octaves are summed in its (page-offset placed) accumulator. ``grid``
        (simplex only): x, y are the columns and rows of a grid and ``out`` is
        its flat row-major block (the same bytes as the points of that grid).
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
                f, ox, oy, gx, gy, _ = octave  # weight already in gx, gy
                _perlin.point_octave(x, y, f, ox, oy, gx, gy, 1.0, n, ws, near=self.near)
            else:
                f, sx, sy, swap, ox, oy, gx, gy, _ = octave
                kernel = _simplex.grid_octave if grid else _simplex.point_octave
                kernel(x, y, sx, sy, swap, f, ox, oy, gx, gy, w, n, ws, near=self.near)
            if not linear:
                self.shape_into(n, amp, acc, weight)
        return self.finish(acc, out)

    def eval_points(
        self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], out: npt.NDArray[np.float32], threads: bool = True
    ) -> npt.NDArray[np.float32]:
        """Evaluate at 1-D float64 x, y into 1-D float32 ``out``, chunk by chunk."""

        def work(s: int, e: int, ws: Workspace) -> None:
            self.points(x[s:e], y[s:e], out[s:e], ws)

        run_parallel(len(out), point_chunk(len(out), threads), work, threads)
        return out

    # -- regular grid -----------------------------------------------------------
    def grid(
        self,
        xs: npt.NDArray[np.float64],
        ys: npt.NDArray[np.float64],
        out: npt.NDArray[np.float32],
        threads: bool = True,
    ) -> npt.NDArray[np.float32]:
        """Evaluate at every (ys[i], xs[j]) into ``out`` (rows, cols) float32."""
        if self.basis != "perlin":
            return self._simplex_grid(xs, ys, out, threads)
        rows, cols = out.shape
        # Perlin tables: at most 256 distinct lattice rows (the lattice wraps)
        table_rows = []
        for f, _ox, oy, *_ in self.octaves:
            ly = np.floor(np.multiply(ys[[0, -1]], f) + oy)
            table_rows.append(int(min(_perlin.PERIOD, ly[1] - ly[0] + 2)))
        block = int(max(64, min(cols, _TABLE_BUDGET // (2 * sum(table_rows)))))
        for c0 in range(0, cols, block):
            self._perlin_block(xs[c0 : c0 + block], ys, out[:, c0 : c0 + block], threads)
        return out

    def _simplex_grid(
        self, xs: npt.NDArray[np.float64], ys: npt.NDArray[np.float64], out: npt.NDArray[np.float32], threads: bool
    ) -> npt.NDArray[np.float32]:
        rows, cols = out.shape
        step = max(1, point_chunk(rows * cols, threads) // cols)

        def work(r0: int, r1: int, ws: Workspace) -> None:
            self.points(xs, ys[r0:r1], out[r0:r1].reshape(-1), ws, grid=True)

        run_parallel(rows, step, work, threads, size=step * cols)
        return out

    def _perlin_block(
        self, xs: npt.NDArray[np.float64], ys: npt.NDArray[np.float64], out: npt.NDArray[np.float32], threads: bool
    ) -> npt.NDArray[np.float32]:
        rows, cols = out.shape
        prepared = []
        for f, ox, oy, gx, gy, amp in self.octaves:  # weight already in gx, gy
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

        def work(r0: int, r1: int, ws: Workspace) -> None:
            buf = ws.flt[0][: step * cols].reshape(step, cols)
            acc = out[r0:r1]
            acc[...] = 0
            n = acc if linear else ws.octave[: (r1 - r0) * cols].reshape(r1 - r0, cols)
            weight = ws.ridge[: (r1 - r0) * cols].reshape(r1 - r0, cols) if self.kind == "ridged" else None
            if weight is not None:
                weight.fill(1)
            for p_tab, q_tab, (r1_, r2_, r3_, r4_), trow, trow1, bounds, banded, amp in prepared:
                if not linear:
                    n[...] = 0
                terms = ((p_tab, r1_, trow), (q_tab, r2_, trow), (p_tab, r3_, trow1), (q_tab, r4_, trow1))
                if banded:  # tall bands: four outer products per band
                    b = int(np.searchsorted(bounds, r0, side="right")) - 1
                    while bounds[b] < r1:
                        a, z = max(bounds[b], r0), min(bounds[b + 1], r1)
                        seg = n[a - r0 : z - r0]
                        tmp = buf[: z - a]
                        for tab, rf, tr in terms:
                            np.multiply(rf[a:z, None], tab[tr[a]], out=tmp)
                            seg += tmp
                        b += 1
                else:  # thin bands: gather each row's table row, then multiply
                    g = buf[: r1 - r0]
                    for tab, rf, tr in terms:
                        np.take(tab, tr[r0:r1], axis=0, out=g)
                        g *= rf[r0:r1, None]
                        n += g
                if not linear:
                    self.shape_into(n, amp, acc, weight)
            self.finish(acc)

        run_parallel(rows, step, work, threads, size=step * cols)
        return out


def point_chunk(total: int, threads: bool = True) -> int:
    """Points per chunk for ``total`` points: ``POINT_CHUNK`` on one thread, longer on several.

    Several threads get ``THREAD_POINT_CHUNK`` (fewer GIL hand-overs), but no more than
    an equal share of ``total`` each, so that a small input still keeps every thread busy.
    """
    n_threads = _THREADS if threads else 1
    if n_threads <= 1:
        return POINT_CHUNK
    return max(POINT_CHUNK, min(THREAD_POINT_CHUNK, -(-total // n_threads)))


def run_parallel(
    total: int, step: int, work: Callable[[int, int, Workspace], None], threads: bool = True, size: int | None = None
) -> None:
    """Run ``work(start, stop, ws)`` over [0, total) in chunks of ``step``.

    Up to ``_THREADS`` threads, each with its own ``_perlin.Workspace`` of ``size``
    points (default ``step``), take the next chunk whenever they are free: on a
    shared machine one core may be slowed by other processes, and a fixed split
    would leave the other idle at the end (the bytes never depend on who runs a chunk).
    """
    starts = range(0, total, step)
    n_threads = min(_THREADS if threads else 1, len(starts))
    size = min(step, total) if size is None else size
    queue = iter(starts)
    lock = threading.Lock()

    def worker() -> None:
        ws = _perlin.Workspace(size)
        while True:
            with lock:
                s = next(queue, None)
            if s is None:
                return
            work(s, min(total, s + step), ws)

    if n_threads <= 1:
        worker()
        return
    with ThreadPoolExecutor(n_threads) as pool:
        for f in [pool.submit(worker) for _ in range(n_threads)]:
            f.result()


def grid_coords(
    xs: npt.NDArray[np.float64], ys: npt.NDArray[np.float64], ws: Workspace
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Flat float64 (x, y) of the grid rows ``ys`` x columns ``xs``, in workspace buffers."""
    m = len(xs) * len(ys)
    x, y = ws.coords[0][:m], ws.coords[1][:m]
    np.copyto(x.reshape(len(ys), len(xs)), xs[None, :])
    np.copyto(y.reshape(len(ys), len(xs)), ys[:, None])
    return x, y


def warp_into(
    plan: WarpPlan,
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    wx: npt.NDArray[np.float32],
    wy: npt.NDArray[np.float32],
    reach: float,
    out: npt.NDArray[np.float32],
    ws: Workspace,
) -> None:
    """Move (x, y) (in place) by reach * (wx, wy), float64, and evaluate ``plan`` there."""
    d = ws.coords[2][: len(x)]
    np.multiply(wx, reach, out=d, dtype=np.float64)
    x += d
    np.multiply(wy, reach, out=d, dtype=np.float64)
    y += d
    plan.points(x, y, out, ws)


def warp_plans(
    fields: Sequence[OctaveField],
    basis: str,
    scale: float,
    octaves: int,
    persistence: float,
    lacunarity: float,
    near: bool,
) -> list[WarpPlan]:
    k = min(octaves, WARP_OCTAVES)
    return [WarpPlan(fd, basis, "fbm", scale, k, persistence, lacunarity, near) for fd in fields[1:]]
