"""Benchmark core.levels.maze against mazelib on the same algorithm, same run.

Run from the repository root::

    .venv/bin/python bench/bench_mazes.py            # mazelib on every algorithm (about 2 min)
    .venv/bin/python bench/bench_mazes.py --quick    # without mazelib's Kruskal (19 s a run)

Targets (printed, not asserted): every algorithm on 1000 x 1000 maze cells in at most
2 s; at least 20x faster than ``mazelib`` (PyPI 0.9.16, benchmark-only; its DFS took 1.7 s at
200 x 200) on the same algorithm at 200 x 200; every algorithm at 80 x 80 cells in at most 20 ms.
The times are of the whole :func:`maze` call: the perfect maze, the grid, and the spawn and exit
at the ends of the longest path (mazelib's time is its ``generate()`` alone, no path).

Ours and mazelib run interleaved (ours, mazelib, ours, mazelib, ...; best of the rounds per side,
the machine is shared), with the 1-minute load average beside each figure. mazelib's Kruskal scans
its whole forest for every wall (quadratic: 1.6 s at 50 x 50, 19 s at 100 x 100, many minutes at
200 x 200), so it is raced at 100 x 100, one round. Equivalence, asserted: both sides make a perfect maze
of the same size (cells - 1 passages, 2n + 1 grid), and the dead-end fractions, each algorithm's
fingerprint, are printed side by side (DFS ~0.10, Prim ~0.35, Kruskal ~0.31, Wilson ~0.29).
"""

import sys
from functools import partial

import _loader
import numpy as np

from worldseed.core.levels._maze import ALGORITHMS, maze

try:
    from mazelib import Maze
    from mazelib.generate.BacktrackingGenerator import BacktrackingGenerator
    from mazelib.generate.Kruskal import Kruskal
    from mazelib.generate.Prims import Prims
    from mazelib.generate.Wilsons import Wilsons
except ImportError:  # pragma: no cover
    sys.exit("mazelib is missing: .venv/bin/pip install mazelib (benchmark-only)")

MAZELIB = {"dfs": BacktrackingGenerator, "prim": Prims, "kruskal": Kruskal, "wilson": Wilsons}
ANCHOR_SIDE, BIG_SIDE, MOBILE_SIDE = 200, 1000, 80
#: mazelib's Kruskal is quadratic: raced at this side, one round, and left out by --quick
SLOW = {"kruskal": 100}
ROUNDS = 3


def mazelib_maze(algorithm, side, seed):
    """mazelib's grid (1 wall, 0 passage), (2 side + 1) square."""
    m = Maze(seed)
    m.generator = MAZELIB[algorithm](side, side)
    m.generate()
    return m.grid


def open_sides(walkable):
    """(h, w) count of open sides of every maze cell of a (2h + 1, 2w + 1) walkable grid."""
    across = walkable[1::2, 2:-1:2].astype(np.int64)
    down = walkable[2:-1:2, 1::2].astype(np.int64)
    count = np.zeros(((walkable.shape[0] - 1) // 2, (walkable.shape[1] - 1) // 2), np.int64)
    count[:, :-1] += across
    count[:, 1:] += across
    count[:-1, :] += down
    count[1:, :] += down
    return count


def fingerprint(walkable, side):
    """Dead-end fraction; asserts a perfect side x side maze."""
    sides = open_sides(walkable)
    assert walkable.shape == (2 * side + 1, 2 * side + 1) and sides.sum() // 2 == side * side - 1
    return float((sides == 1).mean())


def main():
    quick = "--quick" in sys.argv[1:]
    print("maze(): ours against mazelib's generate() on the same algorithm and size (maze cells)")
    head = f"{'ours s':>8} {'dead ends':>9} | {'mazelib s':>9} {'dead ends':>9}"
    print(f"\n{'algorithm':>13} | {head} | {'speed-up':>8} | load")
    anchor_rows = []
    for algorithm in ALGORITHMS:
        side = SLOW.get(algorithm, ANCHOR_SIDE)
        ours = partial(maze, side, side, algorithm=algorithm, seed=1)
        label = f"{algorithm} {side}^2"
        if quick and algorithm in SLOW:
            t, level = _loader.best_of(ROUNDS, ours)
            print(f"{label:>13} | {t:8.4f} {fingerprint(level.grid != 0, side):9.4f} | (skipped: --quick)")
            continue
        theirs = partial(mazelib_maze, algorithm, side, 1)
        ours()  # warm-up (mazelib needs none, and one of its runs takes seconds)
        race = _loader.interleaved(1 if algorithm in SLOW else ROUNDS, ours, theirs, warmup=False)
        level, grid = race.results
        ours_de, theirs_de = fingerprint(level.grid != 0, side), fingerprint(grid == 0, side)
        t, st = race.seconds
        anchor_rows.append((algorithm, side, st / t))
        print(
            f"{label:>13} | {t:8.4f} {ours_de:9.4f} | {st:9.2f} {theirs_de:9.4f} | {st / t:7.0f}x | {race.load_text()}"
        )

    print(f"\nours alone, best of {ROUNDS} (the whole maze() call; wall and process CPU time):")
    big_head, small_head = f"{BIG_SIDE} x {BIG_SIDE} s", f"{MOBILE_SIDE} x {MOBILE_SIDE} ms"
    print(f"{'algorithm':>9} | {big_head:>14} {'cpu s':>6} | {small_head:>13} {'cpu ms':>6} | load")
    big_rows = []
    for algorithm in ALGORITHMS:
        big = _loader.interleaved(ROUNDS, partial(maze, BIG_SIDE, BIG_SIDE, algorithm=algorithm, seed=1), warmup=False)
        fingerprint(big.results[0].grid != 0, BIG_SIDE)
        small = _loader.interleaved(20, partial(maze, MOBILE_SIDE, MOBILE_SIDE, algorithm=algorithm, seed=1))
        t_big, t_small = big.seconds[0], small.seconds[0]
        big_rows.append((algorithm, t_big, t_small))
        print(
            f"{algorithm:>9} | {t_big:14.3f} {big.cpu[0]:6.3f} | {t_small * 1e3:13.2f} {small.cpu[0] * 1e3:6.2f} | "
            f"{big.load_text()}"
        )

    print("\ntargets:")
    for algorithm, t_big, t_small in big_rows:
        anchor = {a: (side, r) for a, side, r in anchor_rows}.get(algorithm)
        print(
            f"  {algorithm:>8}: {BIG_SIDE}^2 <= 2 s: {'yes' if t_big <= 2.0 else 'NO'} ({t_big:.2f} s); "
            f"{MOBILE_SIDE}^2 <= 20 ms: {'yes' if t_small <= 0.02 else 'NO'} ({t_small * 1e3:.1f} ms)"
            + (
                ""
                if anchor is None
                else f"; >= 20x mazelib at {anchor[0]}^2: {'yes' if anchor[1] >= 20 else 'NO'} ({anchor[1]:.0f}x)"
            )
        )
    print(f"load now {_loader.load():.1f}")


if __name__ == "__main__":
    main()
