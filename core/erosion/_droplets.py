"""The lock-step droplet engine of :mod:`core.erosion._hydraulic`: the brush, the batch stepper with
its brush stamps and running ledger, and the levelling of the pits it leaves.

:func:`core.erosion._hydraulic.hydraulic` checks the arguments, draws the start points and hands
them here a batch at a time; the method and its reasons are told in that module's docstring.
"""

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from .. import exact

#: The rates are given per this distance travelled (metres); Lague's values are per step of one 1 m cell.
REFERENCE_STEP = 1.0
#: Most (edge cell, brush cell) pairs weighed at once when the brush's in-map weights are set up
#: (bounded memory: 4 M pairs are ~50 MB, whatever the map and the brush).
EDGE_CHUNK = 1 << 22
#: Rounds of pit levelling before giving up (each round levels every new pit at once).
PIT_ROUNDS = 10_000
TINY = 1e-300


def _per_step(rate: float, step: float) -> float:
    """A rate per ``REFERENCE_STEP`` metres turned into the rate per step of ``step`` metres."""
    return 1.0 - exact.pow(1.0 - rate, step / REFERENCE_STEP)  # not **: the C library's pow


def brush(radius_cells: float) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Lague's erosion brush: offsets ``(dy, dx)`` with ``dx^2 + dy^2 < r^2`` and weights
    ``1 - d / r`` summing to 1 (the centre alone when ``r <= 1``).

    >>> oy, ox, w = brush(1.5)
    >>> len(w), float(round(w.sum(), 12)), bool(w[(oy == 0) & (ox == 0)][0] == w.max())
    (9, 1.0, True)
    """
    reach = max(int(math.ceil(radius_cells)) - 1, 0)
    oy, ox = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    d = np.sqrt(oy * oy + ox * ox)
    inside = d < radius_cells
    inside[reach, reach] = True
    w = np.maximum(1.0 - d[inside] / max(radius_cells, 1e-9), 0.0)
    if w.sum() <= 0:
        w = (d[inside] == 0).astype(np.float64)
    return oy[inside].astype(np.int64), ox[inside].astype(np.int64), w / w.sum()


def new_pits(before: npt.NDArray[np.float64], after: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Interior cells of ``after`` lower than all 8 neighbours that were not so in ``before``.

    >>> h = np.ones((4, 5)); g = h.copy(); g[1, 2] = 0.5
    >>> np.argwhere(new_pits(h, g)).tolist()
    [[1, 2]]
    """
    return _strict_minima(after) & ~_strict_minima(before)


def _strict_minima(h: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Interior cells lower than all 8 neighbours (contiguous flat slices: one pass per neighbour)."""
    h = np.asarray(h)
    rows, cols = h.shape
    out = np.zeros(h.shape, dtype=bool)
    if rows < 3 or cols < 3:
        return out
    flat = h.reshape(-1)
    lo, hi = cols + 1, rows * cols - cols - 1  # cells 1 .. rows-2 (rows), all columns but the two ends
    low = np.minimum(flat[lo - 1 : hi - 1], flat[lo + 1 : hi + 1])
    for off in (-cols - 1, -cols, -cols + 1, cols - 1, cols, cols + 1):
        np.minimum(low, flat[lo + off : hi + off], out=low)
    inner = out.reshape(-1)[lo:hi]
    np.less(flat[lo:hi], low, out=inner)
    out[:, 0] = False
    out[:, -1] = False
    return out


def _is_pit(
    flat: npt.NDArray[np.float64], cells: npt.NDArray[np.int64], offsets: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Which of ``cells`` (interior, flat indices) are lower than all 8 neighbours."""
    return flat[cells] < flat[cells[:, None] + offsets].min(axis=1)


def _level_pits(
    h: npt.NDArray[np.float64],
    original: npt.NDArray[np.float64],
    eroded: npt.NDArray[np.float64],
    deposited: npt.NDArray[np.float64],
) -> float:
    """Level every new strict minimum with its lowest neighbour (both become their mean), in rounds.

    Works on the flat views in place; returns the height moved (sum of the raises, metres).
    Each round takes every new pit whose lowest neighbour no other pit of that round takes; the
    next round looks only around the cells that changed.
    """
    rows, cols = h.shape
    flat, ero, dep, old = h.reshape(-1), eroded.reshape(-1), deposited.reshape(-1), original.reshape(-1)
    moved = 0.0
    offsets = np.array([dy * cols + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx])
    pits = np.flatnonzero(_strict_minima(h))
    for _ in range(PIT_ROUNDS):
        pits = pits[~_is_pit(old, pits, offsets)]  # pits of the input stay
        if pits.size == 0:
            return moved
        around = flat[pits[:, None] + offsets]
        q = pits + offsets[np.argmin(around, axis=1)]
        q, first = np.unique(q, return_index=True)
        p = pits[first]
        hp, hq = flat[p], flat[q]
        mid = 0.5 * (hp + hq)
        mid = np.where(mid > hp, mid, hq)  # hp and hq one ulp apart: take hq
        flat[p] = mid
        flat[q] = mid
        dep[p] += mid - hp
        ero[q] += hq - mid
        moved += float(np.sum(mid - hp))
        near = np.unique((np.concatenate((p, q, pits))[:, None] + np.append(offsets, 0)).reshape(-1))
        r, col = np.divmod(near, cols)
        near = near[(r > 0) & (r < rows - 1) & (col > 0) & (col < cols - 1)]
        pits = near[_is_pit(flat, near, offsets)]
    raise RuntimeError("pit levelling did not converge")  # pragma: no cover - a bug if it happens


class Simulation:
    """The heights being eroded (with a margin of the brush's reach on every side, so every brush
    stamp is one flat-index offset table), the brush tables, and the running ledger.

    The droplets read and change a float32 copy of the heights (half the memory: the scattered
    reads and writes of a batch stay in cache far more, about 3x faster at 1025^2); every amount is
    also summed in float64 (eroded and laid with the brush per brush centre, filled per cell), and
    the result is built from those sums, so the ledger is exact whatever float32 rounded.

    Where the time goes (bench/bench_erosion_hydraulic.py --profile): the brush stamps on the working
    map, one ``np.add.at`` per brush offset (~1.5-3 ns a cell, about half the time), then the gathers
    and ~80 elementwise passes a step over the batch (a few thousand droplets: numpy's fixed cost a
    call counts); a compiled loop would do the stamp in L1 (the numba port: ~1.3-1.6x faster).

    Brush stamps near the edge spill into the margin: a stamp's amount is divided by the brush weight
    that falls inside the map there (Lague renormalises the same way), so the map gets exactly the
    amount and the margin's values are never read.
    """

    def __init__(
        self, h: npt.NDArray[np.float64], cell: float, s: Mapping[str, float], edge_chunk: int | None = None
    ) -> None:
        # edge_chunk: EDGE_CHUNK unless given (hydraulic_steps passes core.erosion._hydraulic's, read at call time)
        edge_chunk = EDGE_CHUNK if edge_chunk is None else edge_chunk
        self.rows, self.cols = rows, cols = h.shape
        self.by, self.bx, self.bw = brush(s["radius"] / cell)
        r = self.reach = int(max(np.abs(self.by).max(), np.abs(self.bx).max()))
        self.pcols = pc = cols + 2 * r
        self.padded = np.zeros((rows + 2 * r, pc), dtype=np.float32)
        # centred on the middle height: float32 then resolves the relief, whatever the heights' offset
        self.padded[r : r + rows, r : r + cols] = h - 0.5 * (float(h.min()) + float(h.max()))
        self.flat = self.padded.reshape(-1)
        self.base = r * pc + r
        self.boff = self.by * pc + self.bx
        self.cell = cell
        self.area = cell * cell
        self.steps = max(1, int(round(s["lifetime"] / cell)))
        self.inertia = exact.pow(s["inertia"], cell / REFERENCE_STEP)
        self.k_erode = _per_step(s["erosion_rate"], cell)
        self.k_deposit = _per_step(s["deposition_rate"], cell)
        self.keep_water = exact.pow(1.0 - s["evaporation"], cell / REFERENCE_STEP)
        self.capacity = s["capacity"]
        self.min_slope = s["min_slope"]
        self.gravity = s["gravity"]
        self.water0 = s["initial_water"]
        self.speed0 = s["initial_speed"]
        # 1 / (brush weight inside the map) for every node, in the padded layout: 1 but within the
        # brush's reach of the edge
        self.spread = np.zeros(self.flat.size)
        self.spread.reshape(self.padded.shape)[r : r + rows, r : r + cols] = 1.0 / self.bw.sum()
        inside = self.spread > 0
        ends = np.unique(np.r_[0 : min(r, rows), max(rows - r, 0) : rows])  # rows near the top and bottom
        sides = np.unique(np.r_[0 : min(r, cols), max(cols - r, 0) : cols])  # columns near the sides
        middle = np.setdiff1d(np.arange(rows), ends)
        i = np.concatenate((np.repeat(ends, cols), np.repeat(middle, sides.size)))
        j = np.concatenate((np.tile(np.arange(cols), ends.size), np.tile(sides, middle.size)))
        edge = (i + r) * pc + j + r
        chunk = max(1, edge_chunk // self.boff.size)  # (edge cells x brush cells) a chunk at a time
        for k in range(0, edge.size, chunk):
            part = edge[k : k + chunk]
            # a row sum, not a BLAS product: the same bytes whatever the chunk, the machine and its threads
            self.spread[part] = 1.0 / (inside[part[:, None] + self.boff] * self.bw).sum(axis=1)
        # a step takes at most drop x 1 m^2 (Lague's "no more than the height difference" on 1 m cells,
        # the same per metre travelled on any cells)
        self.cap_area = REFERENCE_STEP * REFERENCE_STEP
        # droplets near each other share the step's caps: counts on blocks of the brush's radius
        # (plus a cell; blocks of its diameter shared too often, and dense batches eroded less)
        self.block = r + 1
        self.gcols = -(-cols // self.block)
        self.gcells = -(-rows // self.block) * self.gcols
        # a node's block from two small tables (an int64 division costs ~10 ns an element)
        self.col_block = np.arange(cols) // self.block
        self.row_block = (np.arange(rows) // self.block) * self.gcols
        self.pos_weights = (self.bw / self.area).astype(np.float32)
        groups: dict[float, list[int]] = {}  # brush offsets by their float32 weight (offsets at one distance share it)
        for off, w in zip(self.boff.tolist(), self.pos_weights.tolist()):
            groups.setdefault(w, []).append(off)
        self.boff_min = int(self.boff.min())
        self.corners = np.array([[0], [1], [pc], [pc + 1]])  # a cell's four corners, as offsets
        # each offset's shifted view of the working map, read at (node + lowest offset): no index array per offset
        self.stamp_groups = [
            (np.float32(w), [self.flat[off - self.boff_min :] for off in offs]) for w, offs in groups.items()
        ]
        # volumes per brush centre (already divided by the in-map weight), laid (also by dying
        # droplets) in the first half, eroded in the second (one np.add.at a step for both); the
        # deposited and eroded maps are their convolutions with the brush, made once at the end
        self.ledger_centres = np.zeros(2 * self.flat.size)
        self.laid, self.centre = self.ledger_centres[: self.flat.size], self.ledger_centres[self.flat.size :]
        self.deposited = np.zeros(self.flat.size)  # metres laid on each node (float64: the ledger's)
        self.lost = 0.0
        self.at_death = 0.0

    def _convolve(self, values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``out[p] = sum over the brush of w(o) * values[p + o]`` on the padded flat layout (the
        margin of ``values`` must be 0; the margin of ``out`` is junk)."""
        out = np.zeros_like(values)
        tmp = np.empty_like(values)
        r = self.reach
        lo, hi = r * self.pcols + r, values.size - r * self.pcols - r
        groups: dict[float, list[int]] = {}  # offsets at the same distance share a weight: add them up, multiply once
        for off, w in zip(self.boff.tolist(), self.bw.tolist()):
            groups.setdefault(w, []).append(off)
        for w, offs in groups.items():
            np.add(values[lo + offs[0] : hi + offs[0]], 0.0, out=tmp[lo:hi])
            for off in offs[1:]:
                tmp[lo:hi] += values[lo + off : hi + off]
            tmp[lo:hi] *= w
            out[lo:hi] += tmp[lo:hi]
        return out

    def run(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> None:
        """Simulate droplets starting at ``(x, y)`` (cells, float) to their end.

        The state lives in arrays that shrink as droplets leave (swap-remove); most passes write into
        the arrays they read (fewer buffers stay in cache). (Every ``take`` is ``mode="clip"``: the indices are in
        range by construction, and numpy skips its bounds check.)"""
        cols, rows, pc = self.cols, self.rows, self.pcols
        f = self.flat
        f1, fp, fp1 = f[1:], f[pc:], f[pc + 1 :]  # the other three corners of a cell, by the same index
        ix = x.astype(np.intp)
        iy = y.astype(np.intp)
        order = np.argsort(iy * cols + ix, kind="stable")  # memory order: kinder to the caches
        # the droplets' state is float32 (half the memory traffic), but for the sediment, a float64
        # sum of the very amounts the maps get
        f32 = np.float32
        x = np.minimum(x[order].astype(f32), np.nextafter(f32(cols - 1), f32(0)))
        y = np.minimum(y[order].astype(f32), np.nextafter(f32(rows - 1), f32(0)))
        ix = x.astype(np.intp)
        iy = y.astype(np.intp)
        fx = x - ix.astype(f32)
        fy = y - iy.astype(f32)
        c = iy * pc + ix + self.base
        blk = self._blocks(ix, iy)
        n = x.size
        dx = np.zeros(n, f32)
        dy = np.zeros(n, f32)
        speed = np.full(n, self.speed0, f32)
        water = np.full(n, self.water0 * self.capacity, f32)  # water x capacity
        sed = np.zeros(n)
        a, b = f32(self.inertia), f32((1.0 - self.inertia) / self.cell)
        down, grav, keep_water = f32(-1.0 / self.cell), f32(self.gravity), f32(self.keep_water)
        min_slope, cap_area, zero = f32(self.min_slope), f32(self.cap_area), f32(0)
        xmax, ymax = f32(cols - 1), f32(rows - 1)
        size = self.flat.size
        for _ in range(self.steps):
            h00 = f.take(c, mode="clip")
            top = f1.take(c, mode="clip")
            h01 = fp.take(c, mode="clip")
            d = fp1.take(c, mode="clip")
            top -= h00  # h10 - h00
            d -= h01
            d -= top  # h11 - h01 - h10 + h00
            left = h01
            left -= h00  # h01 - h00
            gx = np.multiply(fy, d)
            gx += top
            gy = d
            gy *= fx
            gy += left
            h_old = top
            h_old *= fx
            h_old += h00
            h_old += np.multiply(fy, gy, out=left)
            dx *= a
            gx *= b
            dx -= gx
            dy *= a
            gy *= b
            dy -= gy
            length = np.multiply(dx, dx, out=gx)
            length += np.multiply(dy, dy, out=gy)
            np.sqrt(length, out=length)
            if not length.all():  # nowhere to go: dies here with what it carries
                keep = length != 0
                self._die(c[~keep], sed[~keep])
                x, y, dx, dy, speed, water, sed, c, fx, fy, h_old, length, blk = (
                    v[keep] for v in (x, y, dx, dy, speed, water, sed, c, fx, fy, h_old, length, blk)
                )
                n = x.size
                if not n:
                    break
            dx /= length
            dy /= length
            x += dx
            y += dy
            if x.min() < zero or y.min() < zero or x.max() >= xmax or y.max() >= ymax:
                # crossed the edge: what it carries leaves the map
                out = ~((x >= zero) & (x < xmax) & (y >= zero) & (y < ymax))
                gone = out.nonzero()[0]  # (1-D: the method, not np.flatnonzero's wrappers)
                self.lost += float(sed.take(gone, mode="clip").sum())
                n -= gone.size
                if not n:
                    sed = sed[:0]
                    break
                # the last droplets that stay take the places of those gone before them (a few
                # droplets moved, not every array copied)
                holes = gone[gone < n]
                movers = (~out[n:]).nonzero()[0]
                movers += n
                state = (x, y, dx, dy, speed, water, sed, c, fx, fy, h_old, blk)
                for v in state:
                    v[holes] = v.take(movers, mode="clip")
                x, y, dx, dy, speed, water, sed, c, fx, fy, h_old, blk = (v[:n] for v in state)  # type: ignore[assignment]
            crowd = self._crowding(blk)
            qx = x.astype(np.intp)
            qy = y.astype(np.intp)
            gx = np.subtract(x, qx, dtype=f32, casting="unsafe")
            gy = np.subtract(y, qy, dtype=f32, casting="unsafe")
            blk = self._blocks(qx, qy)
            q = qy
            q *= pc
            q += qx
            q += self.base
            n00 = f.take(q, mode="clip")
            top = f1.take(q, mode="clip")
            top -= n00
            n01 = fp.take(q, mode="clip")
            d = fp1.take(q, mode="clip")
            d -= n01
            left = n01
            left -= n00
            d -= top
            d *= gx
            d += left
            d *= gy
            dh = top
            dh *= gx
            dh += n00
            dh += d
            dh -= h_old  # dh = h_new - h_old
            cap = np.multiply(dh, down, out=d)
            np.maximum(cap, min_slope, out=cap)
            cap *= speed
            cap *= water
            # every droplet not climbing either lays part of its excess (sediment over capacity) or
            # erodes part of what it lacks, both with the brush: one signed stamp for all of them
            # (``gain``: volume the ground gets, > 0 laid, < 0 eroded; taken = -gain exactly)
            gain = sed - cap
            if self.k_deposit == self.k_erode:
                gain *= self.k_erode
            else:
                gain *= np.where(gain > 0, self.k_deposit, self.k_erode)
            # eroding: at most the drop x 1 m^2 (shared by the crowd); -lim >= 0 but for climbers,
            # whose gain is not used (so laying droplets keep theirs)
            lim = np.multiply(dh, cap_area, out=n00)
            lim /= crowd
            np.maximum(gain, lim, out=gain)
            up = dh > zero
            fill = up.nonzero()[0]
            if fill.size:  # climbing: fill the hole it leaves, at its four corners
                self._fill(fill, sed, gain, dh, crowd, c, fx, fy)
                brushed = (~up).nonzero()[0]
                ct = c.take(brushed, mode="clip")
                gain = gain.take(brushed, mode="clip")
            else:
                sed -= gain
                ct = c
            if ct.size:
                gain *= self.spread.take(ct, mode="clip")
                # the exact float64 volumes per brush centre (laid in the first half, eroded in the second)
                at = np.less(gain, 0.0).view(np.int8).astype(np.intp)
                at *= size
                at += ct
                np.add.at(self.ledger_centres, at, np.abs(gain))
                self._stamp(ct, gain)
            speed *= speed
            dh *= grav
            speed -= dh
            np.maximum(speed, zero, out=speed)
            np.sqrt(speed, out=speed)
            water *= keep_water
            c, fx, fy = q, gx, gy
        self._die(c, sed)

    def _fill(
        self,
        fill: npt.NDArray[np.int64],
        sed: npt.NDArray[np.float64],
        gain: npt.NDArray[np.float64],
        dh: npt.NDArray[np.float32],
        crowd: npt.NDArray[np.float32],
        c: npt.NDArray[np.int64],
        fx: npt.NDArray[np.float32],
        fy: npt.NDArray[np.float32],
    ) -> None:
        """Droplets ``fill`` climb: each fills the hole it leaves (at most what it carries and the
        drop x cell area, shared by its crowd) at its node's four corners (bilinear shares), on the
        working map and on the exact float64 map; the others' ``gain`` leaves their sediment."""
        area = self.area
        s = sed.take(fill, mode="clip")
        amount = np.minimum(dh.take(fill, mode="clip") * area / crowd.take(fill, mode="clip"), s)
        cp, u, v = c.take(fill, mode="clip"), fx.take(fill, mode="clip"), fy.take(fill, mode="clip")
        gain.put(fill, amount)
        sed -= gain
        amount /= area
        # the bilinear shares of the four corners (node, +1, +row, +row+1), one row each
        share = np.empty((4, fill.size))
        np.multiply(amount, u, out=share[1])
        np.subtract(amount, share[1], out=share[0])
        np.multiply(share[:2], v, out=share[2:])
        np.subtract(share[:2], share[2:], out=share[:2])
        at = (cp + self.corners).reshape(-1)  # corner by corner, as four passes would add them
        share = share.reshape(-1)
        np.add.at(self.flat, at, share.astype(np.float32))
        np.add.at(self.deposited, at, share)

    def _stamp(self, ct: npt.NDArray[np.int64], amount: npt.NDArray[np.float64]) -> None:
        """Add ``amount x weights / area`` around the nodes ``ct`` to the float32 working map, one
        brush offset at a time: the droplets are near memory order, so each pass sweeps the map
        forward (about twice as fast as one ``np.add.at`` over every (droplet, offset) pair; the same
        sums, in another order: float32 rounding only). Offsets of one weight share the product."""
        a = amount.astype(np.float32)
        val = np.empty(a.size, np.float32)
        lowest = ct + self.boff_min  # every brush cell, from the lowest offset
        add_at = np.add.at
        for w, views in self.stamp_groups:
            np.multiply(a, w, out=val)
            for view in views:
                add_at(view, lowest, val)

    def _blocks(self, ix: npt.NDArray[np.int64], iy: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The crowding block (of the brush's radius plus a cell) of the nodes ``(ix, iy)``."""
        b = self.row_block.take(iy, mode="clip")
        b += self.col_block.take(ix, mode="clip")
        return b

    def _crowding(self, b: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """What a droplet's caps are divided by this step: the droplets whose node is in its block
        ``b``, less one, at least 1 (a pair keeps its caps; a crowd shares them)."""
        counts = np.bincount(b, minlength=self.gcells)
        crowd = counts.take(b, mode="clip").astype(np.float32)
        crowd -= 1
        return np.maximum(crowd, 1, out=crowd)

    def _die(self, c: npt.NDArray[np.int64], sed: npt.NDArray[np.float64]) -> None:
        """Dying droplets lay what they carry around their node with the brush (the exact float64
        volume goes to the brush centres, convolved at the end)."""
        carried = np.flatnonzero(sed > 0)
        if carried.size:
            s = sed.take(carried, mode="clip")
            self.at_death += float(s.sum())
            ct = c.take(carried, mode="clip")
            s *= self.spread.take(ct, mode="clip")
            np.add.at(self.laid, ct, s)
            self._stamp(ct, s)

    def finish(
        self, original: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], dict[str, float]]:
        """Heights, eroded and deposited maps (metres) and the ledger."""
        rows, cols, r = self.rows, self.cols, self.reach
        # cell p got w(p - c) * centre[c] from every stamp centred on c (w is symmetric)
        self.centre /= self.area
        eroded = self._convolve(self.centre).reshape(self.padded.shape)[r : r + rows, r : r + cols].copy()
        self.laid /= self.area
        self.deposited += self._convolve(self.laid)
        deposited = self.deposited.reshape(self.padded.shape)[r : r + rows, r : r + cols].copy()
        # the float32 working map only steered the droplets: the heights are the input plus the
        # exact float64 sums of what was laid and taken
        heights = original + deposited
        heights -= eroded
        moved = _level_pits(heights, original, eroded, deposited)
        e = float(eroded.sum()) * self.area
        d = float(deposited.sum()) * self.area
        ledger = {
            "eroded": e,
            "deposited": d,
            "carried_at_death": self.at_death,
            "lost_at_edge": self.lost,
            "pit_moves": moved * self.area,
            "relative_error": abs(e - d - self.lost) / max(e, TINY),
        }
        return heights, eroded, deposited, ledger
