"""Benchmark core.erosion's map stages: thermal erosion per step, pit filling and flow
accumulation on 1025^2 fBm terrain, each against a straightforward numba port of the textbook
algorithm in the same run.

Run from the repository root (numba is a benchmark-only dependency: ``.venv/bin/pip install numba``)::

    .venv/bin/python bench/bench_erosion_maps.py            # about a minute on an idle machine
    .venv/bin/python bench/bench_erosion_maps.py --quick    # 513^2 too, fewer rounds

Targets (printed, not asserted): thermal erosion <= 60 ms per step at 1025^2; flow
accumulation (pits filled or breached first, so all water reaches the edge) <= 0.3 s at 1025^2,
in numpy only.

The anchors (numba, compiled before timing):

- thermal: the same step (8 neighbours, excess over the talus drop, the steepest excess's half
  times the rate shared in proportion) as plain loops over the cells; the two results must agree to
  1e-9 relative after the same number of steps, with the same total volume;
- pit filling: Barnes et al.'s priority-flood + epsilon with a binary heap, one cell at a time; ours
  (``fill_pits``) must be equal bit for bit;
- flow: that priority-flood + epsilon, then D8 on the filled surface and accumulation in topological
  order (the textbook pipeline). Ours routes a lake's water by a breach to the same pass instead of
  across an epsilon slope, so the two agree on every cell outside the lakes (printed: the share of
  equal cells) and both pass the map's whole area out across the edge (asserted).

Sides are timed interleaved (ours, anchor, ours, ...), best of the rounds per side; the 1-minute
load average and the process CPU time (steadier than wall time on a shared machine) are printed
beside each figure.
"""

import heapq
import math
import sys

import _loader
import numpy as np
from numba import njit

from worldseed.core.erosion import fill_pits, flow_accumulation, thermal
from worldseed.core.terrain import TerrainSpec, terrain_heights

EPS = 1e-6
TALUS = 35.0
RATE = 0.5
STEPS = 10
D8 = np.array([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)], np.int64)


@njit(cache=False)
def numba_thermal(h, cell_size, slope, steps, rate):
    h = h.copy()
    rows, cols = h.shape
    limit = np.empty(8)
    for k in range(8):
        limit[k] = slope * cell_size * (math.sqrt(2.0) if D8[k, 0] != 0 and D8[k, 1] != 0 else 1.0)
    delta = np.zeros((rows, cols))
    for _ in range(steps):
        delta[:] = 0.0
        for r in range(rows):
            for c in range(cols):
                total, most = 0.0, 0.0
                for k in range(8):
                    y, x = r + D8[k, 0], c + D8[k, 1]
                    if 0 <= y < rows and 0 <= x < cols:
                        e = h[r, c] - h[y, x] - limit[k]
                        if e > 0.0:
                            total += e
                            most = max(most, e)
                if total > 0.0:
                    give = 0.5 * rate * most / total
                    for k in range(8):
                        y, x = r + D8[k, 0], c + D8[k, 1]
                        if 0 <= y < rows and 0 <= x < cols:
                            e = h[r, c] - h[y, x] - limit[k]
                            if e > 0.0:
                                delta[r, c] -= give * e
                                delta[y, x] += give * e
        h += delta
    return h


@njit(cache=False)
def numba_fill(h, eps):
    """Priority-flood + epsilon: F(n) = max(h(n), F(c) + eps), c the first neighbour popped."""
    rows, cols = h.shape
    F = h.copy()
    closed = np.zeros((rows, cols), np.bool_)
    heap = [(h[0, 0], 0)]
    heap.pop()
    for r in range(rows):
        for c in range(cols):
            if r == 0 or c == 0 or r == rows - 1 or c == cols - 1:
                closed[r, c] = True
                heap.append((h[r, c], r * cols + c))
    heapq.heapify(heap)
    while heap:
        v, i = heapq.heappop(heap)
        r, c = i // cols, i % cols
        for k in range(8):
            y, x = r + D8[k, 0], c + D8[k, 1]
            if 0 <= y < rows and 0 <= x < cols and not closed[y, x]:
                closed[y, x] = True
                F[y, x] = max(h[y, x], v + eps)
                heapq.heappush(heap, (F[y, x], y * cols + x))
    return F


@njit(cache=False)
def numba_d8_accumulate(F, area):
    """D8 steepest descent on F, then accumulation in topological order (Kahn, a stack)."""
    rows, cols = F.shape
    n = rows * cols
    to = np.full(n, n, np.int64)
    diagonal = 1.0 / math.sqrt(2.0)
    for r in range(1, rows - 1):
        for c in range(1, cols - 1):
            best, pick = 0.0, r * cols + c
            for k in range(8):
                y, x = r + D8[k, 0], c + D8[k, 1]
                s = F[r, c] - F[y, x]
                if D8[k, 0] != 0 and D8[k, 1] != 0:
                    s *= diagonal
                if s > best:
                    best, pick = s, y * cols + x
            to[r * cols + c] = pick
    pending = np.zeros(n + 1, np.int64)
    for i in range(n):
        pending[to[i]] += 1
    acc = np.full(n, area)
    stack = np.empty(n, np.int64)
    top = 0
    for i in range(n):
        if pending[i] == 0:
            stack[top] = i
            top += 1
    while top:
        top -= 1
        i = stack[top]
        j = to[i]
        if j < n and j != i:
            acc[j] += acc[i]
            pending[j] -= 1
            if pending[j] == 0:
                stack[top] = j
                top += 1
    return acc.reshape(rows, cols)


def numba_flow(h, cell_size):
    return numba_d8_accumulate(numba_fill(h, EPS), cell_size * cell_size)


def border_total(acc):
    inner = np.zeros(acc.shape, bool)
    inner[1:-1, 1:-1] = True
    return float(acc[~inner].sum())


def row(label, race, note=""):
    (ours, anchor), (cpu_ours, cpu_anchor) = race.seconds, race.cpu
    print(
        f"{label:>30} | {ours * 1000:8.1f} {cpu_ours * 1000:7.1f} | {anchor * 1000:8.1f} {cpu_anchor * 1000:7.1f} | "
        f"{race.ratio():6.2f}x {race.cpu_ratio():6.2f}x | {note} | {race.load_text()}",
        flush=True,
    )


def measure(res, rounds, results):
    """The three races on one fBm tile of ``res``^2 over 1024 m; figures into ``results``."""
    spec = TerrainSpec(resolution=res, size=1024.0)
    h = terrain_heights(spec, seed=1).metres.astype(np.float64)
    cell = spec.cell_size
    slope = math.tan(math.radians(TALUS))

    race = _loader.interleaved(
        rounds,
        lambda: thermal(h, cell_size=cell, talus=TALUS, iterations=STEPS, rate=RATE),
        lambda: numba_thermal(h, cell, slope, STEPS, RATE),
    )
    a, b = race.results
    assert np.allclose(a, b, rtol=0, atol=1e-9 * float(np.abs(h).max())), "thermal results differ"
    assert math.isclose(a.sum(), h.sum(), rel_tol=1e-9), "thermal lost volume"
    moved = int((a != h).sum())
    per_step = race.seconds[0] / STEPS
    results[f"thermal {res}"] = (per_step, race.cpu[0] / STEPS)
    row(f"thermal {res}^2, {STEPS} steps", race, f"equal to 1e-9, {moved:,} cells moved")

    race = _loader.interleaved(rounds, lambda: fill_pits(h, epsilon=EPS), lambda: numba_fill(h, EPS))
    a, b = race.results
    assert np.array_equal(a, b), "fill_pits differs from priority-flood + epsilon"
    row(f"fill_pits {res}^2 (eps {EPS:g})", race, f"bit-equal, {int((a > h).sum()):,} cells raised")

    race = _loader.interleaved(rounds, lambda: flow_accumulation(h, cell_size=cell), lambda: numba_flow(h, cell))
    a, b = race.results
    area = h.size * cell * cell
    assert math.isclose(border_total(a), area, rel_tol=1e-12), "ours loses water"
    assert math.isclose(border_total(b), area, rel_tol=1e-12), "the anchor loses water"
    dry = fill_pits(h, epsilon=0) == h  # not under a lake
    same = np.isclose(a, b, rtol=1e-12) & dry
    results[f"flow {res}"] = (race.seconds[0], race.cpu[0])
    row(
        f"flow_accumulation {res}^2",
        race,
        f"equal on {same.sum() / dry.sum():.2%} of the {dry.mean():.0%} of cells outside lakes",
    )


def main():
    quick = "--quick" in sys.argv[1:]
    rounds = 2 if quick else 3
    sizes = (513, 1025) if quick else (1025,)
    print(
        f"core.erosion maps; numpy {np.__version__}; best of {rounds} interleaved rounds; "
        "ms wall and ms process CPU per side; ratio = anchor / ours (> 1: ours faster)"
    )
    head = f"{'ours ms':>8} {'cpu':>7} | {'numba ms':>8} {'cpu':>7} | {'ratio':>7} {'cpu':>7}"
    print(f"{'stage':>30} | {head} | check | load")
    results = {}
    for res in sizes:
        measure(res, rounds, results)

    print("\ntargets (1025^2):")
    wall, cpu = results["thermal 1025"]
    met = "yes" if wall <= 0.06 else "NO"
    print(f"  thermal <= 60 ms per step: {wall * 1000:.1f} ms (cpu {cpu * 1000:.1f} ms): {met}")
    wall, cpu = results["flow 1025"]
    met = "yes" if wall <= 0.3 else "NO"
    print(f"  flow accumulation <= 0.3 s: {wall:.3f} s (cpu {cpu:.3f} s): {met}")
    print(f"load now {_loader.load():.1f}")


if __name__ == "__main__":
    main()
