"""Benchmark core.wfc: the overlapping, tiled and 3-D models, and the solver against a
straightforward pure-Python WFC (bench/wfc_reference.py) on the same problem, same run.

Run from the repository root::

    .venv/bin/python bench/bench_wfc.py            # about 2 min on an idle machine
    .venv/bin/python bench/bench_wfc.py --quick    # fewer seeds and rounds

Targets (printed, not asserted):

- overlapping model 48 x 48 (periodic output, N = 3, symmetry 8) from three samples of different
  character, about 10, 100 and 400 patterns (presets/wfc/samples dots, flowers, town): median
  <= 0.5 s per successful run and >= 95 % of seeds succeeding within 10 attempts; each row prints
  the pattern count and the success rate beside the time;
- overlapping 128 x 128 (flowers, ~100 patterns) <= 5 s;
- simple tiled model 64 x 64 with a 20-variant set (presets/wfc/roads) <= 0.3 s;
- 3-D tiled model 16 x 16 x 8 (``core.wfc.tiled3d``, presets/wfc/blocks3d) <= 2 s;
- >= 50x faster than the straightforward Python implementation of the same algorithm, raced on
  the same weights and compatibility table (overlapping 24 x 24 flowers; tiled 32 x 32 roads; and
  without --quick the benchmark's own sizes, overlapping 48 x 48 from each of the three samples and
  tiled 64 x 64 roads, one round each). The reference propagates in the solver's order (rounds, breadth first) and skips
  the start propagation where the solver does: with a LIFO stack it took 2.8x as long on the
  overlapping anchor, which would flatter the solver (see wfc_reference.py).

The model rows time the whole public call (pattern extraction, overlap table, solve); the anchor
rows time :func:`core.wfc.solve` against :func:`wfc_reference.reference_solve` on the same
arrays, interleaved (ours, reference, ours, reference, ...; best of the rounds per side: the
machine is shared), the 1-minute load average beside each figure. Every output is checked before
its time is printed: every 3 x 3 window of an overlapping output (wrapping) is a pattern of the
sample, every neighbouring pair of a tiled output is allowed; in the anchor rows both sides'
outputs must be valid (asserted). The reference draws the same seeded numbers the same way, so the
outputs are also compared ("identical", for information): they agree when both sides rank the
entropies alike; the solver's entropies come from weights rounded to 7 significant digits, so
with weights such as the overlapping model's counts a near-tie may go the other way.
"""

import statistics
import sys
import time
from functools import partial

import _loader
import numpy as np
from wfc_reference import reference_solve

from worldseed.core import wfc
from worldseed.core.wfc import (
    Contradiction,
    extract_patterns,
    load_tileset,
    overlap_compatible,
    overlapping,
    read_sample,
)

PRESETS = _loader.ROOT / "presets" / "wfc"
#: (sample stem, the issue's ~pattern count) of the three overlapping rows
SAMPLES = (("dots", 10), ("flowers", 100), ("town", 400))
BIG_SAMPLE = "flowers"


def sample(stem):
    return read_sample(PRESETS / "samples" / f"{stem}.txt")


def windows_ok(output, patterns):
    """Every 3 x 3 window of a periodic output is one of the patterns."""
    n = patterns.shape[1]
    grid = np.pad(output, ((0, n - 1), (0, n - 1)), mode="wrap")
    got = np.lib.stride_tricks.sliding_window_view(grid, (n, n)).reshape(-1, n * n)
    known = {tuple(p) for p in patterns.reshape(len(patterns), -1).tolist()}
    return all(tuple(w) in known for w in np.unique(got, axis=0).tolist())


def pairs_ok(indices, compatible, periodic):
    """Every neighbouring pair of a 2-D (or 3-D, (depth, height, width)) output is allowed."""
    g = np.asarray(indices)
    if g.ndim == 2:
        g = g[None]
    ok = compatible[0][g[:, :, :-1], g[:, :, 1:]].all() and compatible[1][g[:, :-1], g[:, 1:]].all()
    if compatible.shape[0] == 6:
        ok = ok and compatible[4][g[:-1], g[1:]].all()
    if periodic:
        ok = ok and compatible[0][g[:, :, -1], g[:, :, 0]].all() and compatible[1][g[:, -1], g[:, 0]].all()
    return bool(ok)


class Runs:
    """Wall and process CPU seconds of the successful runs, the attempts of every run, the loads seen."""

    def __init__(self):
        self.wall, self.cpu, self.tries, self.loads = [], [], [], []

    def time(self, fn):
        """Run ``fn`` timed; its result, or None when it raised Contradiction (10 attempts counted)."""
        self.loads.append(_loader.load())
        c0, t0 = time.process_time(), time.perf_counter()
        try:
            result = fn()
        except Contradiction:
            self.tries.append(10)
            return None
        self.wall.append(time.perf_counter() - t0)
        self.cpu.append(time.process_time() - c0)
        self.tries.append(result.attempts)
        return result

    @property
    def median(self):
        return statistics.median(self.wall) if self.wall else float("nan")

    @property
    def cpu_median(self):
        return statistics.median(self.cpu) if self.cpu else float("nan")

    @property
    def ok(self):
        return len(self.wall)

    def load_text(self):
        lo, hi = min(self.loads), max(self.loads)
        return f"load {lo:.1f}" if round(lo, 1) == round(hi, 1) else f"load {lo:.1f}-{hi:.1f}"


def overlapping_runs(stem, side, seeds):
    """(pattern count, Runs) of ``seeds`` periodic runs, seeds 0, 1000, 2000, ... (each may use 10 attempts)."""
    s = sample(stem)
    patterns, _ = extract_patterns(s, n=3, symmetry=8)
    palette = np.unique(s)
    runs = Runs()
    for i in range(seeds):
        r = runs.time(partial(overlapping, s, side, side, periodic=True, seed=1000 * i, attempts=10))
        if r is not None:
            assert r.patterns == len(patterns)
            assert windows_ok(np.searchsorted(palette, r.output), patterns), (stem, i)
    return len(patterns), runs


def tiled_runs(ts, count, solve_one, compatible):
    """Runs of ``solve_one(seed)`` for seeds 0..count-1, each output's pairs checked."""
    runs = Runs()
    for i in range(count):
        r = runs.time(partial(solve_one, ts, seed=i))
        assert r is not None and pairs_ok(r.tiles, compatible, False), (ts.name, i)
    return runs


def partial_size(fn, *size):
    """``fn(tileset, *size, seed=...)`` as ``solve_one(tileset, seed=...)``."""
    return lambda ts, seed: fn(ts, *size, seed=seed)


def main():
    quick = "--quick" in sys.argv[1:]
    seeds = 5 if quick else 20
    rounds = 2 if quick else 3
    print(
        f"core.wfc; numpy {np.__version__}; {'--quick: ' if quick else ''}{seeds} seeds a sample, "
        f"best of {rounds} interleaved rounds against the reference; load = 1-minute load average; "
        "cpu = process CPU time (steadier than wall time on a shared machine)"
    )
    results = {}

    print("\noverlapping model, N = 3, symmetry 8, periodic, attempts <= 10 (seeds 0, 1000, 2000, ...):")
    print(f"{'sample':>8} {'patterns':>8} | {'48x48 median s':>14} {'cpu s':>6} {'success':>8} {'attempts':>8} | load")
    for stem, about in SAMPLES:
        count, runs = overlapping_runs(stem, 48, seeds)
        results[f"48 {stem}"] = (runs.median, runs.ok / seeds, count, about)
        print(
            f"{stem:>8} {count:8d} | {runs.median:14.3f} {runs.cpu_median:6.3f} {runs.ok:4d}/{seeds:<3d} "
            f"{max(runs.tries):8d} | {runs.load_text()}",
            flush=True,
        )
    big_seeds = 1 if quick else 3
    count, runs = overlapping_runs(BIG_SAMPLE, 128, big_seeds)
    results["128"] = (runs.median, runs.ok / big_seeds, count)
    print(f"\noverlapping 128 x 128, {BIG_SAMPLE} ({count} patterns), {big_seeds} seed(s):")
    print(
        f"  median {runs.median:.3f} s (cpu {runs.cpu_median:.3f} s), success {runs.ok}/{big_seeds}, "
        f"attempts {runs.tries} | {runs.load_text()}",
        flush=True,
    )

    count = 5 if quick else 10
    print(f"\nsimple tiled model 64 x 64 (bounded; seeds 0..{count - 1}; median and best of the runs):")
    for stem in ("roads", "dungeon", "pipes"):
        ts = load_tileset(PRESETS / f"{stem}.toml")
        runs = tiled_runs(ts, count, partial_size(wfc.tiled, 64, 64), ts.compatible)
        results[f"tiled {stem}"] = (runs.median, len(ts.names))
        print(
            f"  {stem:>8} {len(ts.names):3d} variants: median {runs.median:.3f} s (cpu {runs.cpu_median:.3f} s), "
            f"best {min(runs.wall):.3f} s | {runs.load_text()}",
            flush=True,
        )

    print("\n3-D tiled model 16 x 16 x 8 (bounded):")
    blocks = PRESETS / "blocks3d.toml"
    if not hasattr(wfc, "tiled3d"):
        print("  skipped: core.wfc.tiled3d is not there yet")
    elif not blocks.exists():
        print("  skipped: no 3-D tileset presets/wfc/blocks3d.toml yet")
    else:
        ts = load_tileset(blocks)
        # q may sit on p when p's up labels and q's down labels share one
        vertical = np.array([[bool(set(u) & set(d)) for d in ts.down] for u in ts.up])
        compatible = np.concatenate([ts.compatible, vertical[None], vertical.T[None]])
        runs = tiled_runs(ts, count, partial_size(wfc.tiled3d, 16, 16, 8), compatible)
        results["3d"] = (runs.median,)
        print(
            f"  blocks3d {len(ts.names)} variants: median {runs.median:.3f} s (cpu {runs.cpu_median:.3f} s), "
            f"best {min(runs.wall):.3f} s | {runs.load_text()}",
            flush=True,
        )

    print(
        "\nsolver against bench/wfc_reference.py (pure Python, same algorithm, same seeds), same arrays, interleaved:"
    )
    head = f"{'ours s':>7} {'ref s':>7} | {'speed-up':>8} {'cpu':>6} | {'valid':>5} {'identical':>9}"
    print(f"{'problem':>31} | {head} | load")
    rules = {}
    for stem, _ in SAMPLES:
        s = sample(stem)
        patterns, weights = extract_patterns(np.searchsorted(np.unique(s), s), n=3, symmetry=8)
        rules[stem] = weights, overlap_compatible(patterns)
    roads = load_tileset(PRESETS / "roads.toml")

    def overlapping_problem(stem, side):
        weights, overlaps = rules[stem]
        return (f"overlapping {side}^2 {stem} P={len(weights)}", weights, overlaps, side, True)

    problems = [
        overlapping_problem(BIG_SAMPLE, 24),
        (f"tiled 32^2 roads P={len(roads.names)}", roads.weights, roads.compatible, 32, False),
    ]
    if not quick:  # the sizes (48^2 overlapping: 11-43 s for Python ports): the reference takes seconds
        problems += [overlapping_problem(stem, 48) for stem, _ in SAMPLES]
        problems.append((f"tiled 64^2 roads P={len(roads.names)}", roads.weights, roads.compatible, 64, False))
    anchor = []
    for label, w, c, side, periodic in problems:
        ours = partial(wfc.solve, w, c, side, side, periodic=periodic, seed=3)
        theirs = partial(reference_solve, w, c, side, side, periodic=periodic, seed=3)
        if side > 32:  # one round, no untimed run of the reference (seconds)
            ours()
            race = _loader.interleaved(1, ours, theirs, warmup=False)
        else:
            race = _loader.interleaved(rounds, ours, theirs)
        a, (grid, _, _) = race.results
        valid = pairs_ok(a.indices, c, periodic) and pairs_ok(grid, c, periodic)
        assert valid, label
        same = np.array_equal(a.indices, np.array(grid))
        ratio = race.ratio()
        anchor.append((label, ratio))
        print(
            f"{label:>31} | {race.seconds[0]:7.3f} {race.seconds[1]:7.3f} | {ratio:7.1f}x {race.cpu_ratio():5.1f}x | "
            f"{'yes' if valid else 'NO':>5} {'yes' if same else 'no':>9} | {race.load_text()}",
            flush=True,
        )

    print("\ntargets:")

    def line(text, met):
        print(f"  {text}: {'yes' if met else 'NO'}")

    for stem, about in SAMPLES:
        median, rate, count, _ = results[f"48 {stem}"]
        line(f"48x48 {stem} (~{about}, {count} patterns) median <= 0.5 s ({median:.3f} s)", median <= 0.5)
        line(f"48x48 {stem} success >= 95 % ({rate:.0%})", rate >= 0.95)
    median, rate, count = results["128"]
    line(f"128x128 {BIG_SAMPLE} <= 5 s ({median:.2f} s, success {rate:.0%})", median <= 5.0)
    median, variants = results["tiled roads"]
    line(f"tiled 64x64 roads ({variants} variants) <= 0.3 s ({median:.3f} s)", median <= 0.3)
    if "3d" in results:
        line(f"3-D 16x16x8 <= 2 s ({results['3d'][0]:.3f} s)", results["3d"][0] <= 2.0)
    else:
        print("  3-D 16x16x8 <= 2 s: not measured (see above)")
    for label, ratio in anchor:
        line(f">= 50x the Python reference, {label} ({ratio:.1f}x)", ratio >= 50)
    print(f"load now {_loader.load():.1f}")


if __name__ == "__main__":
    main()
