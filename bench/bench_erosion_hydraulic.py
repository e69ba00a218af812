"""Benchmark core.erosion.hydraulic against a straightforward numba port of Lague's droplet loop.

Run from the repository root (numba is a benchmark-only dependency, in requirements-bench.txt)::

    .venv/bin/python bench/bench_erosion_hydraulic.py           # about 2 min on an idle machine
    .venv/bin/python bench/bench_erosion_hydraulic.py --quick   # fewer droplets and rounds, no 1 M row
    .venv/bin/python bench/bench_erosion_hydraulic.py --profile # also: where ours spends its time (512^2)

Targets (printed, not asserted):

- the droplet rate at least 1x that of a straightforward numba port of Lague's algorithm
  (``Erosion.cs``: one droplet after another, 30 steps, radius-3 brush) at equal droplet count and
  brush, in process CPU time (the machine is shared), raced in the same run, interleaved (ours,
  numba, ours, numba, ...; best of the rounds per side, the 1-minute load average beside each
  figure) (an earlier target was 0.5x);
- 1,000,000 droplets on 1025^2 in <= 25 s.

A last race runs both sides with Worldseed's defaults instead (on the 1 m cells: a 6-cell brush,
100 steps, evaporation 0.03; ours also spreads what it lays over capacity with the brush, the port
lays it at four corners): slower per droplet on both sides, and the port's loss falls with the
evaporation.

Both sides erode the same heights (a default fBm terrain, 1 m cells, 80 m high) with the same
settings: ours with ``cell_size=1``, ``radius=3`` m, ``lifetime=30`` m is Lague's 3-cell brush and 30
steps. The port keeps Lague's formulas (capacity ``max(-dh * v * w * c, min)``, the brush clamp
``min(height, weighed amount)``) except the speed update, where it uses Beyer's sign and clamps at 0
as ours does (Lague's ``sqrt(v^2 + dh * g)`` slows droplets downhill and goes NaN uphill), so both
sides' droplets live alike. Before any time is printed the outputs are checked: ours must balance
its ledger to 1e-6 and add no pits; the port's heights must be finite; and both must have eroded the
same land alike (``alike``: eroded volumes within 2x, the net change correlated on 16-cell blocks).
The port counts what it erodes and lays down, so the row also prints the share of the eroded
material it loses (what its droplets carry when they die, or off the edge) -- ours loses none but
what crosses the edge.

Where the time goes (``--profile``, 512^2, Lague's settings): every step each droplet adds its
brush (25 cells at radius 3) to the float32 working map, one ``np.add.at`` per brush offset
(~1.5-3 ns a cell: about half of our time), and to the exact float64 ledger at its brush centre;
the numba port does the same 25 cells in a compiled loop, and only for eroding droplets (it lays
deposits at four corners). The rest is ~80 numpy passes a step over the batch's droplets.
"""

import sys
import time

import _loader
import numba
import numpy as np

from worldseed.core.erosion import hydraulic
from worldseed.core.erosion._hydraulic import DEFAULT_EVAPORATION, DEFAULT_LIFETIME, DEFAULT_RADIUS, new_pits
from worldseed.core.terrain import TerrainSpec, terrain_heights

SEED = 7
RADIUS = 3  # cells (Lague's erosionRadius)
LIFETIME = 30  # steps (Lague's maxDropletLifetime)
SETTINGS = dict(
    inertia=0.05,
    capacity=4.0,
    min_slope=0.01,
    erosion_rate=0.3,
    deposition_rate=0.3,
    evaporation=0.01,
    gravity=4.0,
    initial_water=1.0,
    initial_speed=1.0,
)
#: Worldseed's defaults on the 1 m cells (a 6-cell brush, 100 steps, evaporation 0.03), for the
#: last race: both sides with these.
DEFAULTS = dict(SETTINGS, evaporation=DEFAULT_EVAPORATION)
DEFAULT_CELLS = (int(DEFAULT_RADIUS), int(DEFAULT_LIFETIME))


@numba.njit(cache=True)
def lague(heights, starts, inertia, capacity, min_capacity, erode_speed, deposit_speed, evaporate, gravity,
          water0, speed0, radius, lifetime):  # fmt: skip
    """Lague's Erosion.cs, one droplet after another, on a (rows, cols) float64 map in place.

    Returns (eroded, deposited) totals in height units summed over cells.
    """
    rows, cols = heights.shape
    m = heights.reshape(-1)
    # the brush: offsets and weights 1 - d / r for x^2 + y^2 < r^2
    oxs = np.empty((2 * radius + 1) ** 2, np.int64)
    oys = np.empty((2 * radius + 1) ** 2, np.int64)
    ws = np.empty((2 * radius + 1) ** 2, np.float64)
    k = 0
    for y in range(-radius, radius + 1):
        for x in range(-radius, radius + 1):
            d2 = x * x + y * y
            if d2 < radius * radius:
                oxs[k], oys[k], ws[k] = x, y, 1.0 - np.sqrt(d2) / radius
                k += 1
    eroded = 0.0
    deposited = 0.0
    for i in range(starts.shape[0]):
        px = starts[i, 1] * (cols - 1)
        py = starts[i, 0] * (rows - 1)
        dx = 0.0
        dy = 0.0
        speed = speed0
        water = water0
        sediment = 0.0
        for _ in range(lifetime):
            nx = int(px)
            ny = int(py)
            node = ny * cols + nx
            ox = px - nx
            oy = py - ny
            h00, h10, h01, h11 = m[node], m[node + 1], m[node + cols], m[node + cols + 1]
            gx = (h10 - h00) * (1 - oy) + (h11 - h01) * oy
            gy = (h01 - h00) * (1 - ox) + (h11 - h10) * ox
            h_old = h00 * (1 - ox) * (1 - oy) + h10 * ox * (1 - oy) + h01 * (1 - ox) * oy + h11 * ox * oy
            dx = dx * inertia - gx * (1 - inertia)
            dy = dy * inertia - gy * (1 - inertia)
            length = np.sqrt(dx * dx + dy * dy)
            if length != 0:
                dx /= length
                dy /= length
            px += dx
            py += dy
            if (dx == 0 and dy == 0) or px < 0 or px >= cols - 1 or py < 0 or py >= rows - 1:
                break
            qx = int(px)
            qy = int(py)
            q = qy * cols + qx
            fx = px - qx
            fy = py - qy
            h_new = m[q] * (1 - fx) * (1 - fy) + m[q + 1] * fx * (1 - fy) + m[q + cols] * (1 - fx) * fy
            h_new += m[q + cols + 1] * fx * fy
            dh = h_new - h_old
            cap = max(-dh * speed * water * capacity, min_capacity)
            if sediment > cap or dh > 0:
                amount = min(dh, sediment) if dh > 0 else (sediment - cap) * deposit_speed
                sediment -= amount
                m[node] += amount * (1 - ox) * (1 - oy)
                m[node + 1] += amount * ox * (1 - oy)
                m[node + cols] += amount * (1 - ox) * oy
                m[node + cols + 1] += amount * ox * oy
                deposited += amount
            else:
                amount = min((cap - sediment) * erode_speed, -dh)
                total = 0.0
                for j in range(k):
                    bx = nx + oxs[j]
                    by = ny + oys[j]
                    if 0 <= bx < cols and 0 <= by < rows:
                        total += ws[j]
                for j in range(k):
                    bx = nx + oxs[j]
                    by = ny + oys[j]
                    if 0 <= bx < cols and 0 <= by < rows:
                        b = by * cols + bx
                        w = amount * ws[j] / total
                        delta = m[b] if m[b] < w else w
                        m[b] -= delta
                        sediment += delta
                        eroded += delta
            speed = np.sqrt(max(speed * speed - dh * gravity, 0.0))
            water *= 1 - evaporate
    return eroded, deposited


def run_lague(heights, droplets, s=SETTINGS, cells=(RADIUS, LIFETIME)):
    h = heights.copy()
    starts = np.random.default_rng(SEED).random((droplets, 2))
    eroded, deposited = lague(h, starts, s["inertia"], s["capacity"], s["min_slope"], s["erosion_rate"],
                              s["deposition_rate"], s["evaporation"], s["gravity"], s["initial_water"],
                              s["initial_speed"], cells[0], cells[1])  # fmt: skip
    return h, eroded, deposited


def run_ours(heights, droplets, s=SETTINGS, cells=(RADIUS, LIFETIME)):
    return hydraulic(heights, cell_size=1.0, droplets=droplets, seed=SEED, radius=float(cells[0]),
                     lifetime=float(cells[1]), **s)  # fmt: skip


def terrain(resolution):
    spec = TerrainSpec(resolution=resolution, size=float(resolution - 1), height=80.0, scale=256.0)
    return np.asarray(terrain_heights(spec, seed=SEED).metres, dtype=np.float64)


def check_ours(heights, r):
    assert r.ledger["relative_error"] <= 1e-6, r.ledger
    assert not new_pits(heights, r.heights).any()
    assert np.isfinite(r.heights).all()


def blocks(a, k=16):
    r, c = (a.shape[0] // k) * k, (a.shape[1] // k) * k
    return a[:r, :c].reshape(r // k, k, c // k, k).sum(axis=(1, 3))


def alike(h, ours, lague_heights, lague_eroded):
    """Both sides eroded the same land alike: eroded volumes within 2x, net change correlated on blocks."""
    ratio = ours.ledger["eroded"] / lague_eroded
    corr = float(np.corrcoef(blocks(ours.heights - h).ravel(), blocks(lague_heights - h).ravel())[0, 1])
    assert 0.5 < ratio < 2.0 and corr > 0.5, (ratio, corr)
    return f"eroded ours/port {ratio:.2f}, net change r16 {corr:.2f}"


def race(resolution, droplets, rounds, s=SETTINGS, cells=(RADIUS, LIFETIME), label="Lague's settings"):
    h = terrain(resolution)
    got = _loader.interleaved(rounds, lambda: run_ours(h, droplets, s, cells), lambda: run_lague(h, droplets, s, cells))
    ours, (lh, eroded, deposited) = got.results
    check_ours(h, ours)
    assert np.isfinite(lh).all()
    same = alike(h, ours, lh, eroded)
    lost = 1.0 - deposited / eroded if eroded > 0 else 0.0
    rate_ours, rate_lague = droplets / got.seconds[0], droplets / got.seconds[1]
    print(
        f"{resolution}^2, {droplets:,} droplets, {label}: ours {got.seconds[0]:.2f} s ({rate_ours:,.0f} droplets/s, "
        f"edge loss {ours.ledger['lost_at_edge'] / ours.ledger['eroded']:.1%}, ledger error "
        f"{ours.ledger['relative_error']:.1e}); numba Lague {got.seconds[1]:.2f} s ({rate_lague:,.0f} droplets/s, "
        f"loses {lost:.0%} of what it erodes); ratio in process CPU time {got.cpu_ratio():.2f}x "
        f"(target >= 1x; wall {rate_ours / rate_lague:.2f}x; CPU s {got.cpu[0]:.2f} / {got.cpu[1]:.2f}); "
        f"{same}; {got.load_text()}"
    )
    return got.cpu_ratio()


def profile(droplets=100_000):
    """Where ours spends its CPU time at 512^2 (cProfile, sorted by own time)."""
    import cProfile
    import pstats

    h = terrain(512)
    run_ours(h, droplets // 10)
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    run_ours(h, droplets)
    prof.disable()
    print(f"profile: ours, 512^2, {droplets:,} droplets, Lague's settings (cProfile in process CPU time, own time)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def million(droplets=1_000_000):
    h = terrain(1025)
    load = _loader.load()
    c0, t0 = time.process_time(), time.perf_counter()
    r = run_ours(h, droplets)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    check_ours(h, r)
    print(
        f"1025^2, {droplets:,} droplets: {seconds:.1f} s (target <= 25 s; {cpu:.1f} s of CPU), "
        f"eroded {r.ledger['eroded']:,.0f} m^3, "
        f"carried at death {r.ledger['carried_at_death']:,.0f} m^3 (laid down), lost at edge "
        f"{r.ledger['lost_at_edge']:,.0f} m^3, ledger error {r.ledger['relative_error']:.1e}; load {load:.1f}"
    )


def main(argv):
    quick = "--quick" in argv
    print(f"numba {numba.__version__}, numpy {np.__version__}")
    race(512, 20_000 if quick else 100_000, 2 if quick else 3)
    race(1025, 50_000 if quick else 200_000, 2 if quick else 3)
    if not quick:
        million()
    race(512, 20_000 if quick else 50_000, 2, DEFAULTS, DEFAULT_CELLS, "Worldseed's defaults")
    if "--profile" in argv:
        profile()


if __name__ == "__main__":
    main(sys.argv[1:])
