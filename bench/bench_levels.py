"""The mobile budget: every level generator at 80 x 80 cells in <= 20 ms.

Run from the repository root::

    .venv/bin/python bench/bench_levels.py

Each generator runs through the one dispatch (``core.levels.generate`` on a ``LevelSpec`` with the
recipe defaults, seed 0..SEEDS-1), markers included; best of ROUNDS per seed, the worst seed's
best printed.  The maze is given 40 x 40 maze cells, which is an 81 x 81 grid (2n + 1 a side);
every other generator 80 x 80 cells.  Checked (asserted): the grid's shape, one walkable region,
one spawn.  A generator that is not built yet prints as such.  Printed, not asserted: the time
against the 20 ms target and the 1-minute load average (the machine is shared).
"""

import _loader

from worldseed.core.levels import GENERATORS, LevelSpec, generate, label_regions

ROUNDS = 10
SEEDS = 3
TARGET_MS = 20.0
SIZES = {"maze": (40, 40)}  # maze cells: a (2 * 40 + 1)-square grid


def main():
    print(f"every generator through core.levels.generate, recipe defaults, {SEEDS} seeds x best of {ROUNDS}")
    print(f"{'generator':>12} {'spec size':>9} {'grid':>8} {'worst best ms':>13} {'target':>7} {'regions':>7}  load")
    for name in GENERATORS:
        w, h = SIZES.get(name, (80, 80))
        worst, level = 0.0, None
        try:
            for seed in range(SEEDS):
                spec = LevelSpec(generator=name, width=w, height=h, seed=seed)
                best, level = _loader.best_of(ROUNDS, generate, spec)
                worst = max(worst, best)
        except NotImplementedError:
            print(f"{name:>12} {f'{w}x{h}':>9} {'-':>8} {'not built yet':>13}")
            continue
        regions = label_regions(level.walkable)[1]
        assert regions == 1 and level.spawn.kind == "spawn"
        ms = worst * 1000
        met = "yes" if ms <= TARGET_MS else "NO"
        grid = f"{level.width}x{level.height}"
        print(f"{name:>12} {f'{w}x{h}':>9} {grid:>8} {ms:13.2f} {met:>7} {regions:7d}  {_loader.load():.1f}")


if __name__ == "__main__":
    main()
