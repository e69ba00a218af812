"""Benchmark the BSP dungeon: 256 x 256 cells, and the split alone against tcod's BSP.

Run from the repository root::

    .venv/bin/python bench/bench_bsp.py

1. ``bsp_dungeon(256, 256)`` with the recipe defaults (min_leaf 8, max_leaf 20, rooms 4..12, padding 1,
   corridors 1 wide, loops 0.1, enemies 0.02, loot 0.3), markers included: target <= 0.1 s with
   >= 40 rooms (asserted: the room count, the one walkable region). Best of ROUNDS per seed.
2. The split alone, interleaved with ``tcod.bsp.BSP.split_recursive`` (benchmark-only anchor,
   ``.venv/bin/pip install tcod``) on the same 254 x 254 inside: ours cuts until no leaf is longer
   than max_leaf = 20 (aspect 1.25); tcod cuts to a fixed depth with the same minimum side and
   ratio, its depth chosen so that it makes about as many leaves (both sides then list the leaf
   rectangles: tcod's ``pre_order`` walk is timed too).  Both tile the inside exactly (asserted).
   Ratio = tcod / ours (> 1: ours is faster); the 1-minute load average is printed beside it.
"""

import sys

import _loader
import numpy as np

from worldseed.core.levels import bsp_dungeon, label_regions
from worldseed.core.levels._bsp import bsp_leaves

try:
    import tcod.bsp
    import tcod.random
except ImportError:  # pragma: no cover
    tcod = None

SIDE = 256
ROUNDS = 15
SEEDS = (0, 1, 2)
TARGET_S = 0.1
MIN_LEAF, MAX_LEAF = 8, 20


def ours_split(seed):
    leaves, _ = bsp_leaves(
        1, 1, SIDE - 2, SIDE - 2, min_leaf=MIN_LEAF, max_leaf=MAX_LEAF, rng=np.random.default_rng(seed)
    )
    return leaves


def tcod_split(seed, depth):
    root = tcod.bsp.BSP(x=1, y=1, width=SIDE - 2, height=SIDE - 2)
    root.split_recursive(
        depth=depth,
        min_width=MIN_LEAF,
        min_height=MIN_LEAF,
        max_horizontal_ratio=1.25,
        max_vertical_ratio=1.25,
        seed=tcod.random.Random(seed=seed),
    )
    return [(n.x, n.y, n.width, n.height) for n in root.pre_order() if not n.children]


def tiles_inside(leaves):
    paint = np.zeros((SIDE, SIDE), np.int64)
    for x, y, w, h in leaves:
        paint[y : y + h, x : x + w] += 1
    return paint[1:-1, 1:-1].min() == 1 and paint.max() == 1 and paint.sum() == (SIDE - 2) ** 2


def main():
    print(f"bsp_dungeon({SIDE}, {SIDE}) with the recipe defaults, markers included (target <= {TARGET_S} s)")
    print(f"{'seed':>4} {'best s':>8} {'rooms':>6} {'doors':>6} {'markers':>8} {'target':>7}  load")
    for seed in SEEDS:
        best, level = _loader.best_of(ROUNDS, bsp_dungeon, SIDE, SIDE, seed=seed)
        assert len(level.rooms) >= 40 and label_regions(level.walkable)[1] == 1
        met = "yes" if best <= TARGET_S else "NO"
        print(
            f"{seed:4d} {best:8.4f} {len(level.rooms):6d} {len(level.doors):6d} {len(level.markers):8d} "
            f"{met:>7}  {_loader.load():.1f}"
        )
    if tcod is None:
        sys.exit("\ntcod is missing: .venv/bin/pip install tcod (benchmark-only)")
    n_ours = len(ours_split(0))
    depth = min(range(4, 16), key=lambda d: abs(len(tcod_split(0, d)) - n_ours))
    inside = f"{SIDE - 2} x {SIDE - 2}"
    print(f"\nthe split alone, {inside}: ours (max_leaf {MAX_LEAF}) vs tcod {tcod.__version__} (depth {depth})")
    print(f"{'seed':>4} {'ours s':>9} {'tcod s':>9} {'ratio':>6} {'leaves':>13}  load")
    for seed in SEEDS:
        race = _loader.interleaved(ROUNDS, lambda s=seed: ours_split(s), lambda s=seed: tcod_split(s, depth))
        ours, theirs = race.results
        assert tiles_inside(ours.tolist()) and tiles_inside(theirs)
        print(
            f"{seed:4d} {race.seconds[0]:9.5f} {race.seconds[1]:9.5f} {race.ratio():6.2f} "
            f"{len(ours):6d}/{len(theirs):<6d}  {race.load_text()}"
        )


if __name__ == "__main__":
    main()
