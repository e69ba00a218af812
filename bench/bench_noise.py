"""Benchmark worldseed.core.noise against FastNoiseLite (pyfastnoiselite), same run.

Run from the repository root::

    .venv/bin/python bench/bench_noise.py             # about 3 min on an idle machine
    .venv/bin/python bench/bench_noise.py --profile   # also: where each of our point kernels spends its time

Targets (printed, not asserted): every case at least as fast as FastNoiseLite in process
CPU time (the machine is shared; FastNoiseLite is single-threaded C++, no OpenMP, so its CPU time is
its time; ours counts every thread it uses): the 2048 x 2048 grid (Perlin and simplex fBm, 6
octaves), the arbitrary-coordinate path (fbm_at, what domain warp and scatter use) on the same 4M
jittered points, and domain warp (``fbm(warp=1)`` on the grid against FastNoiseLite doing the same
work: two 3-octave warp fields at the grid points, the points moved by ``warp * scale`` times them,
then the 6-octave field there); every row, on our default thread count and on one thread, is
held to that. The wall-time ratios with our threads (earlier targets: Perlin grid at least 3x, the
rest at least 1x) are printed beside.
Threads only pay while the machine has a free core: at a load average near or above the CPU count
the 2-thread rows fall to the 1-thread figures or below, so read every ratio beside its load.
Ours and FastNoiseLite run interleaved (ours, FNL, ours, FNL, ...) and each side's best of the
rounds is kept, so a change in machine load hits both; the 1-minute load average is printed beside
each figure. Each row also checks that both sides computed equivalent fields (see ``equivalent``)
before printing.
"""

import os
import sys

import _loader  # the repo root as package ``worldseed`` (as in tests/conftest.py); timing helpers
import numpy as np

from worldseed.core import _fractal, noise  # noqa: E402

try:
    from pyfastnoiselite.pyfastnoiselite import FastNoiseLite, FractalType, NoiseType
except ImportError:  # pragma: no cover
    sys.exit("pyfastnoiselite is missing: .venv/bin/pip install -r requirements-bench.txt")

SIDE = 2048
OCTAVES = 6
SCALE = 64.0
ROUNDS = 5  # best of 5 interleaved rounds: on a shared machine a burst of load spoils a round or two
WARP = 1.0  # warp strength of the warp row, in units of the first octave's feature size (SCALE)
LAG = 8  # samples (an eighth of the first octave's feature size) for the smoothness check


def fnl(noise_type, seed=1337, octaves=OCTAVES):
    gen = FastNoiseLite(seed)
    gen.noise_type = noise_type
    gen.fractal_type = FractalType.FractalType_FBm
    gen.fractal_octaves = octaves
    gen.fractal_lacunarity = 2.0
    gen.fractal_gain = 0.5
    gen.frequency = 1.0 / SCALE
    return gen


def stats(values):
    """(std, correlation of samples LAG apart along a row) of a SIDE x SIDE raster-ordered field."""
    v = np.asarray(values, np.float64).reshape(SIDE, SIDE)
    return float(v.std()), float(np.corrcoef(v[:, :-LAG].ravel(), v[:, LAG:].ravel())[0, 1])


def fnl_warped(main, warp_x, warp_y, coords):
    """FastNoiseLite doing fbm(warp=WARP)'s work: two 3-octave fields at ``coords`` move them by
    ``WARP * SCALE`` times the fields (float64, as ours), then the 6-octave field there."""
    reach = WARP * SCALE
    moved = np.empty_like(coords)
    np.add(coords[0], reach * warp_x.gen_from_coords(coords).astype(np.float64), out=moved[0], casting="unsafe")
    np.add(coords[1], reach * warp_y.gen_from_coords(coords).astype(np.float64), out=moved[1], casting="unsafe")
    return main.gen_from_coords(moved)


def equivalent(ours, theirs, label, lag_tolerance=0.05):
    """Both sides computed the same thing: same count, finite, in [-1, 1], zero mean, similar spread and smoothness.

    The two libraries hash and scale differently, so the values differ; what must
    match is the field's shape and statistics: the same number of samples, |mean|
    below 0.05, standard deviations within 1.5x of each other, and the correlation
    of samples LAG apart (the frequency content) within 0.05. Returns a short text.
    """
    ours, theirs = np.asarray(ours).ravel(), np.asarray(theirs).ravel()
    assert ours.shape == theirs.shape == (SIDE * SIDE,), label
    for v in (ours, theirs):
        assert np.isfinite(v).all() and np.abs(v).max() <= 1.0 and abs(float(v.mean())) < 0.05, label
    (s_o, c_o), (s_t, c_t) = stats(ours), stats(theirs)
    assert 1 / 1.5 < s_o / s_t < 1.5, (label, s_o, s_t)
    assert abs(c_o - c_t) < lag_tolerance, (label, c_o, c_t)
    return f"std {s_o:.3f}/{s_t:.3f} r{LAG} {c_o:.2f}/{c_t:.2f}"


def main():
    ys, xs = np.mgrid[0:SIDE, 0:SIDE]
    grid_coords = np.stack([xs.ravel(), ys.ravel()]).astype(np.float32)
    rng = np.random.default_rng(0)
    jx = xs.ravel() + rng.uniform(-0.5, 0.5, SIDE * SIDE)
    jy = ys.ravel() + rng.uniform(-0.5, 0.5, SIDE * SIDE)
    jitter_coords = np.stack([jx, jy]).astype(np.float32)
    jx = jitter_coords[0].astype(np.float64)  # the very same points for both
    jy = jitter_coords[1].astype(np.float64)
    kw = dict(scale=SCALE, octaves=OCTAVES, persistence=0.5, lacunarity=2.0, seed=1337)

    perlin, simplex = fnl(NoiseType.NoiseType_Perlin), fnl(NoiseType.NoiseType_OpenSimplex2)
    warp_x, warp_y = fnl(NoiseType.NoiseType_Perlin, 1338, 3), fnl(NoiseType.NoiseType_Perlin, 1339, 3)
    threads = _fractal._THREADS
    print(
        f"worldseed.core.noise vs FastNoiseLite (pyfastnoiselite), {OCTAVES} octaves, scale {SCALE:g}, "
        f"best of {ROUNDS} interleaved rounds (ours, FNL, ours, FNL, ...); numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs, ours on up to {threads} threads (FastNoiseLite is single-threaded); "
        "load = 1-minute load average over the rounds"
    )
    print(
        f"{'case':34s} {'ours s':>7s} {'FNL s':>7s} {'FNL/ours':>8s} {'cpu ratio':>9s} {'target':>7s} {'met':>4s} "
        f"{'load':>12s}  equivalence (ours/FNL)"
    )
    print(
        "(FNL/ours: wall-time ratio; cpu ratio: FNL's process CPU time / ours, all our threads counted; "
        "> 1: ours is faster; the target is on the cpu ratio)"
    )
    cpu = {}
    for n_threads in sorted({threads, 1}, reverse=True):
        _fractal._THREADS = n_threads
        tag = f"[{n_threads} thr]"
        for label, ours, theirs in (
            (
                f"grid 2048^2 perlin fbm {tag}",
                lambda: noise.fbm((SIDE, SIDE), basis="perlin", **kw),
                lambda: perlin.gen_from_coords(grid_coords),
            ),
            (
                f"grid 2048^2 simplex fbm {tag}",
                lambda: noise.fbm((SIDE, SIDE), basis="simplex", **kw),
                lambda: simplex.gen_from_coords(grid_coords),
            ),
            (
                f"points 4M perlin fbm_at {tag}",
                lambda: noise.fbm_at(jx, jy, basis="perlin", **kw),
                lambda: perlin.gen_from_coords(jitter_coords),
            ),
            (
                f"points 4M simplex fbm_at {tag}",
                lambda: noise.fbm_at(jx, jy, basis="simplex", **kw),
                lambda: simplex.gen_from_coords(jitter_coords),
            ),
            (
                f"grid 2048^2 perlin warp={WARP:g} {tag}",
                lambda: noise.fbm((SIDE, SIDE), basis="perlin", warp=WARP, **kw),
                lambda: fnl_warped(perlin, warp_x, warp_y, grid_coords),
            ),
        ):
            race = _loader.interleaved(ROUNDS, ours, theirs)
            warped = "warp" in label
            check = equivalent(*race.results, label, lag_tolerance=0.1 if warped else 0.05)
            cpu[label.split(" [")[0], n_threads] = race.cpu
            met = "yes" if race.cpu_ratio() >= 1.0 else "NO"
            print(
                f"{label:34s} {race.seconds[0]:7.3f} {race.seconds[1]:7.3f} {race.ratio():8.2f} "
                f"{race.cpu_ratio():9.2f} {'>= 1x':>7s} {met:>4s} {race.load_text():>12s}  {check}",
                flush=True,
            )
    _fractal._THREADS = threads
    for n_threads in sorted({threads, 1}, reverse=True):
        warped, plain = cpu[f"grid 2048^2 perlin warp={WARP:g}", n_threads], cpu["grid 2048^2 perlin fbm", n_threads]
        print(
            f"warp={WARP:g} costs (CPU, {n_threads} thr): ours {warped[0] / plain[0]:.1f}x the unwarped grid, "
            f"FastNoiseLite {warped[1] / plain[1]:.1f}x"
        )
    if "--profile" in sys.argv[1:]:
        profile(jx, jy, kw)


def profile(jx, jy, kw):
    """Our point kernels, one thread, 4M points: cProfile in process CPU time, own time."""
    import cProfile
    import pstats
    import time

    _fractal._THREADS = 1
    for basis in ("perlin", "simplex"):
        prof = cProfile.Profile(time.process_time)
        prof.enable()
        noise.fbm_at(jx, jy, basis=basis, **kw)
        prof.disable()
        print(f"profile: fbm_at, {basis}, 4M points, 1 thread (cProfile in process CPU time, own time)")
        pstats.Stats(prof).sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    main()
