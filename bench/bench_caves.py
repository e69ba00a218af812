"""Benchmark core.levels.cave against a plain per-cell Python reference, same run; the 80 x 80 budget.

Run from the repository root::

    .venv/bin/python bench/bench_caves.py            # reference on 128^2 and 256^2
    .venv/bin/python bench/bench_caves.py --quick    # reference on 128^2 only

The anchor is the cave pipeline written cell by cell in plain Python, the way the rule is stated:
the automaton counting the 8 neighbours of every cell, a flood fill for the regions, and the same
tunnel construction as ours (the nearest region cell of every cell by the same two sweeps per axis,
the shortest link per two neighbouring regions, Kruskal, L-shaped tunnels from the same random
numbers), so that its grid must equal ours byte for byte -- asserted. The race is like for like:
the reference against ``cave_grid`` (the same steps, no markers); the whole ``cave`` (with the
spawn, the exit farthest by walking distance, enemies and loot) is timed beside it.

The reference takes seconds per 256^2 cave (about 6 s at load 2), so it runs on 128^2 and 256^2
only; its 1024^2 time is scaled from 256^2 by the cell count (16x: every stage of it is linear in
the cells) -- said so in the output. Ours and the reference run interleaved (ours, reference,
ours, ...), best of the rounds each, the 1-minute load average printed beside every figure.

Targets (printed, not asserted): cave 1024^2 with the connect step <= 0.3 s; >= 50x the reference;
cave and random_walk at 80 x 80 <= 20 ms each.
"""

import sys
from functools import partial

import _loader
import numpy as np

from worldseed.core.levels import CORRIDOR, FLOOR, WALL, cave, label_regions, random_walk
from worldseed.core.levels._cave import cave_grid

FILL, STEPS, MIN_REGION = 0.45, 5, 12


def reference_cave_grid(width, height, seed):
    """The cave grid (no markers) computed cell by cell in plain Python lists."""
    rng = np.random.default_rng(seed)
    start = (rng.random((height, width), dtype=np.float32) < np.float32(FILL)).tolist()  # the same draws
    h, w = height, width
    walls = [[bool(v) for v in row] for row in start]

    def border(g):
        for x in range(w):
            g[0][x] = g[h - 1][x] = True
        for y in range(h):
            g[y][0] = g[y][w - 1] = True

    border(walls)
    for _ in range(STEPS):  # the rule as stated: count the 8 neighbours, outside counts as wall
        nxt = [[False] * w for _ in range(h)]
        for y in range(h):
            for x in range(w):
                n = 0
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        if dy or dx:
                            yy, xx = y + dy, x + dx
                            if yy < 0 or yy >= h or xx < 0 or xx >= w or walls[yy][xx]:
                                n += 1
                nxt[y][x] = True if n > 4 else (walls[y][x] if n == 4 else False)
        walls = nxt
    border(walls)
    # regions: flood fill in raster order
    label = [[-1] * w for _ in range(h)]
    sizes = []
    for y in range(h):
        for x in range(w):
            if not walls[y][x] and label[y][x] < 0:
                k = len(sizes)
                label[y][x], todo, size = k, [(y, x)], 0
                while todo:
                    cy, cx = todo.pop()
                    size += 1
                    for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                        if 0 <= ny < h and 0 <= nx < w and not walls[ny][nx] and label[ny][nx] < 0:
                            label[ny][nx] = k
                            todo.append((ny, nx))
                sizes.append(size)
    new = {}
    for k, size in enumerate(sizes):
        if size >= MIN_REGION:
            new[k] = len(new)
    count = len(new)
    for y in range(h):
        for x in range(w):
            label[y][x] = new.get(label[y][x], -1)
    grid = [[FLOOR if label[y][x] >= 0 else WALL for x in range(w)] for y in range(h)]
    if count > 1:
        for y, x in _reference_tunnels(label, count, rng):
            if grid[y][x] == WALL:
                grid[y][x] = CORRIDOR
    return np.array(grid, np.uint8)


def _reference_tunnels(label, count, rng):
    h, w = len(label), len(label[0])
    far = 2 * (h + w) + 2
    up = [[0] * w for _ in range(h)]
    down = [[0] * w for _ in range(h)]
    for x in range(w):  # nearest region cell along the column, above and below
        above = -far
        for y in range(h):
            if label[y][x] >= 0:
                above = y
            up[y][x] = y - above
        below = h + far
        for y in range(h - 1, -1, -1):
            if label[y][x] >= 0:
                below = y
            down[y][x] = below - y
    source = [[0] * w for _ in range(h)]
    for y in range(h):  # then along the row: min over c' of g[c'] + |c - c'|, ties to the left
        g = [min(up[y][x], down[y][x]) for x in range(w)]
        fwd, best = [None] * w, None
        for x in range(w):
            key = (g[x] - x + w, x)
            best = key if best is None or key < best else best
            fwd[x] = best
        bwd, best = [None] * w, None
        for x in range(w - 1, -1, -1):
            key = (g[x] + x, x)
            best = key if best is None or key < best else best
            bwd[x] = best
        for x in range(w):
            d_f, d_b = fwd[x][0] - w + x, bwd[x][0] - x
            col = fwd[x][1] if d_f <= d_b else bwd[x][1]
            row = y - g[col] if up[y][col] <= down[y][col] else y + g[col]
            source[y][x] = row * w + col
    near = [[label[source[y][x] // w][source[y][x] % w] for x in range(w)] for y in range(h)]
    links = []  # horizontal neighbours in raster order, then vertical ones
    for y in range(h):
        for x in range(w - 1):
            if near[y][x] != near[y][x + 1]:
                links.append((near[y][x], near[y][x + 1], source[y][x], source[y][x + 1]))
    for y in range(h - 1):
        for x in range(w):
            if near[y][x] != near[y + 1][x]:
                links.append((near[y][x], near[y + 1][x], source[y][x], source[y + 1][x]))
    best = {}
    for i, (a, b, sa, sb) in enumerate(links):
        if a > b:
            a, b, sa, sb = b, a, sb, sa
        length = abs(sa // w - sb // w) + abs(sa % w - sb % w)
        if (a, b) not in best or (length, i) < best[(a, b)][:2]:
            best[(a, b)] = (length, i, sa, sb)
    pairs = sorted(best.items())
    order = sorted(range(len(pairs)), key=lambda k: pairs[k][1][0])
    parent = list(range(count))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    chosen = []
    for k in order:
        (a, b), (_, _, sa, sb) = pairs[k]
        i, j = root(a), root(b)
        if i != j:
            parent[max(i, j)] = min(i, j)
            chosen.append((sa, sb))
            if len(chosen) == count - 1:
                break
    cells = []
    for (sa, sb), row_first in zip(chosen, (rng.random(len(chosen)) < 0.5).tolist()):
        y0, x0 = divmod(sa, w)
        y1, x1 = divmod(sb, w)
        xs, ys = range(min(x0, x1), max(x0, x1) + 1), range(min(y0, y1), max(y0, y1) + 1)
        if row_first:
            cells += [(y0, x) for x in xs] + [(y, x1) for y in ys]
        else:
            cells += [(y, x0) for y in ys] + [(y1, x) for x in xs]
    return cells


def ours(size, seed):
    """The cave's cells, as the reference computes them (``cave`` without its markers)."""
    rng = np.random.default_rng(seed)
    return cave_grid(size, size, fill=FILL, steps=STEPS, connect="tunnels", min_region=MIN_REGION, rng=rng)


def whole(size, seed):
    return cave(size, size, fill=FILL, steps=STEPS, min_region=MIN_REGION, seed=seed)


def main():
    quick = "--quick" in sys.argv[1:]
    seed = 3
    print(f"cave fill {FILL}, steps {STEPS}, min_region {MIN_REGION}, connect 'tunnels', seed {seed}\n")
    rows = []
    for size, rounds in ((128, 3),) + (() if quick else ((256, 2),)):
        race = _loader.interleaved(rounds, partial(ours, size, seed), partial(reference_cave_grid, size, size, seed))
        grid, ref = race.results
        assert grid.tobytes() == ref.tobytes(), f"{size}^2: ours differs from the reference"
        assert label_regions(grid != WALL)[1] == 1
        rows.append((size, race, int((ref == CORRIDOR).sum())))
        print(
            f"{size:5d}^2: ours {race.seconds[0] * 1e3:8.2f} ms, reference {race.seconds[1]:7.2f} s: "
            f"{race.ratio():7.1f}x (cpu {race.cpu_ratio():.1f}x); grids equal ({rows[-1][2]} tunnel cells); "
            f"{race.load_text()}"
        )
    size, race, _ = rows[-1]
    t_grid, grid = _loader.best_of(5, ours, 1024, seed)
    t_big, big = _loader.best_of(5, whole, 1024, seed)
    assert big.grid.tobytes() == grid.tobytes() and label_regions(big.walkable)[1] == 1
    scaled = race.seconds[1] * (1024 / size) ** 2
    print(
        f" 1024^2: ours {t_grid:.3f} s, whole cave with markers {t_big:.3f} s (best of 5 each, load "
        f"{_loader.load():.1f}); reference scaled from {size}^2 by the cells: {scaled:.0f} s -> "
        f"{scaled / t_grid:.0f}x (whole cave: {scaled / t_big:.0f}x)"
    )

    t_cave, _ = _loader.best_of(20, whole, 80, seed)
    t_walk, _ = _loader.best_of(20, random_walk, 80, 80, seed=seed)
    load = _loader.load()
    print(f"\n80 x 80: cave {t_cave * 1e3:.2f} ms, random_walk {t_walk * 1e3:.2f} ms (best of 20, load {load:.1f})")

    print(
        f"\ntargets: cave 1024^2 <= 0.3 s: {'yes' if t_big <= 0.3 else 'NO'} ({t_big:.3f} s with markers); "
        f">= 50x the reference at {size}^2: {'yes' if race.ratio() >= 50 else 'NO'} ({race.ratio():.0f}x); "
        f"80 x 80 <= 20 ms: cave {'yes' if t_cave <= 0.02 else 'NO'}, walk {'yes' if t_walk <= 0.02 else 'NO'}"
    )


if __name__ == "__main__":
    main()
