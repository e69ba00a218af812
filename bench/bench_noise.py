"""Benchmark worldseed.core.noise against FastNoiseLite (pyfastnoiselite), same run.

Run from the repository root::

    .venv/bin/python bench/bench_noise.py

Targets (printed, not asserted): Perlin fBm, 6 octaves on a 2048 x 2048 grid,
at least 3x faster than FastNoiseLite's Perlin FBm on the same coordinates; the
arbitrary-coordinate path (fbm_at, what domain warp uses) at least as fast as
FastNoiseLite on the same 4M jittered points. Simplex is reported as measured.
Timings are best of N (the machine is shared).
"""

import os
import sys
import time

import _loader  # noqa: F401  (the repo root as package ``worldseed``, as in tests/conftest.py)
import numpy as np

from worldseed.core import _fractal, noise  # noqa: E402

try:
    from pyfastnoiselite.pyfastnoiselite import FastNoiseLite, FractalType, NoiseType
except ImportError:  # pragma: no cover
    sys.exit("pyfastnoiselite is missing: .venv/bin/pip install -r requirements-bench.txt")

SIDE = 2048
OCTAVES = 6
SCALE = 64.0
REPEATS = 3


def best_of(fn, repeats=REPEATS):
    fn()  # warm-up (tables, page faults)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def fnl(noise_type):
    gen = FastNoiseLite(1337)
    gen.noise_type = noise_type
    gen.fractal_type = FractalType.FractalType_FBm
    gen.fractal_octaves = OCTAVES
    gen.fractal_lacunarity = 2.0
    gen.fractal_gain = 0.5
    gen.frequency = 1.0 / SCALE
    return gen


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
    rows = []

    def row(label, ours, theirs, target):
        ratio = theirs / ours
        met = "-" if target is None else ("yes" if ratio >= target else "NO")
        rows.append((label, ours, theirs, ratio, "-" if target is None else f">= {target:g}x", met))

    threads = _fractal._THREADS
    for n_threads in sorted({threads, 1}, reverse=True):
        _fractal._THREADS = n_threads
        tag = f"[{n_threads} thr]"
        row(
            f"grid 2048^2 perlin fbm {tag}",
            best_of(lambda: noise.fbm((SIDE, SIDE), basis="perlin", **kw)),
            best_of(lambda: perlin.gen_from_coords(grid_coords)),
            3.0 if n_threads == threads else None,
        )
        row(
            f"grid 2048^2 simplex fbm {tag}",
            best_of(lambda: noise.fbm((SIDE, SIDE), basis="simplex", **kw)),
            best_of(lambda: simplex.gen_from_coords(grid_coords)),
            None,
        )
        row(
            f"points 4M perlin fbm_at {tag}",
            best_of(lambda: noise.fbm_at(jx, jy, basis="perlin", **kw)),
            best_of(lambda: perlin.gen_from_coords(jitter_coords)),
            1.0 if n_threads == threads else None,
        )
        row(
            f"points 4M simplex fbm_at {tag}",
            best_of(lambda: noise.fbm_at(jx, jy, basis="simplex", **kw)),
            best_of(lambda: simplex.gen_from_coords(jitter_coords)),
            None,
        )
    _fractal._THREADS = threads
    warp_t = best_of(lambda: noise.fbm((SIDE, SIDE), basis="perlin", warp=1.0, **kw))

    print(
        f"worldseed.core.noise vs FastNoiseLite (pyfastnoiselite), {OCTAVES} octaves, scale {SCALE:g}, "
        f"best of {REPEATS}; numpy {np.__version__}, {os.cpu_count()} CPUs, ours on up to {threads} threads "
        "(FastNoiseLite is single-threaded)"
    )
    print(f"{'case':36s} {'ours s':>8s} {'FNL s':>8s} {'FNL/ours':>9s} {'target':>8s} {'met':>4s}")
    for label, ours, theirs, ratio, target, met in rows:
        print(f"{label:36s} {ours:8.3f} {theirs:8.3f} {ratio:9.2f} {target:>8s} {met:>4s}")
    print(f"{'grid 2048^2 perlin fbm warp=1 (info)':36s} {warp_t:8.3f}")


if __name__ == "__main__":
    main()
