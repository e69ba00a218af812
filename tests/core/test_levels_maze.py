"""core.levels.maze: perfect mazes, loops, dead-end fingerprints, Wilson's uniformity, spawn and exit,
rooms, the cell-grid form, determinism, bad input."""

import inspect
import math
from collections import Counter, deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.levels import FLOOR, WALL, Level, check_spec, from_dict, label_regions, maze
from worldseed.core.levels._level import MAX_CELLS
from worldseed.core.levels._maze import ALGORITHMS, check_settings, maze_cells

STEPS = {1: (0, -1), 2: (1, 0), 4: (0, 1), 8: (-1, 0)}  # open side -> (dx, dy) in maze cells


def passages(level):
    """Open passages between two maze cells, counted on the grid itself."""
    g = level.grid
    return int((g[1::2, 2:-1:2] != WALL).sum() + (g[2:-1:2, 1::2] != WALL).sum())


def cell_distances(sides, start):
    """Breadth-first walking distance in maze cells from ``start`` = (cx, cy), by the book."""
    h, w = sides.shape
    dist = np.full((h, w), -1)
    dist[start[1], start[0]] = 0
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for bit, (dx, dy) in STEPS.items():
            if sides[y, x] & bit and dist[y + dy, x + dx] < 0:
                dist[y + dy, x + dx] = dist[y, x] + 1
                queue.append((x + dx, y + dy))
    return dist


def dead_end_fraction(level):
    sides = maze_cells(level)
    open_sides = np.unpackbits(sides[..., None], axis=-1).sum(-1)
    return float((open_sides == 1).mean())


def test_maze_signature():
    sig = inspect.signature(maze)
    assert list(sig.parameters)[:2] == ["width", "height"]
    for name, default in {"algorithm": "dfs", "loops": 0, "rooms": 0, "seed": 0}.items():
        assert sig.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY and sig.parameters[name].default == default


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("width, height", [(30, 20), (2, 2), (2, 9), (41, 3)])
def test_perfect_maze_is_a_spanning_tree(algorithm, width, height):
    level = maze(width, height, algorithm=algorithm, seed=5)
    g = level.grid
    assert isinstance(level, Level) and g.dtype == np.uint8 and g.shape == (2 * height + 1, 2 * width + 1)
    assert set(np.unique(g)) == {WALL, FLOOR}
    assert (g[1::2, 1::2] == FLOOR).all() and (g[::2, ::2] == WALL).all()  # cells open, pillars wall
    assert (g[0] == WALL).all() and (g[-1] == WALL).all() and (g[:, 0] == WALL).all() and (g[:, -1] == WALL).all()
    assert passages(level) == width * height - 1
    assert label_regions(g != WALL)[1] == 1
    assert level.generator == "maze" and level.rooms == () and level.doors == ()
    assert level.settings == {"algorithm": algorithm, "loops": 0, "rooms": 0} and level.seed == 5


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("loops", [1, 7, 100])
def test_loops_remove_exactly_that_many_walls(algorithm, loops):
    level = maze(20, 15, algorithm=algorithm, loops=loops, seed=loops)
    assert passages(level) == 20 * 15 - 1 + loops
    assert label_regions(level.grid != WALL)[1] == 1


def test_all_walls_can_go():
    level = maze(6, 4, algorithm="wilson", loops=5 * 3, seed=2)
    assert passages(level) == 6 * 3 + 5 * 4 and (maze_cells(level)[1:-1, 1:-1] == 15).all()


# Dead-end fractions of large mazes, each algorithm's fingerprint. A uniform spanning tree of the plane has
# 8/pi^2 (1 - 2/pi) = 0.2945 of its cells as dead ends; the others are the usual measured values. On 200 x 200
# cells one maze's fraction has a standard deviation of about 0.003 (0.0023 for independent cells).
FINGERPRINTS = {"dfs": 0.10, "prim": 0.357, "kruskal": 0.306, "wilson": 8 / math.pi**2 * (1 - 2 / math.pi)}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_dead_end_fractions_are_each_algorithms_fingerprint(algorithm):
    got = dead_end_fraction(maze(200, 200, algorithm=algorithm, seed=11))
    assert abs(got - FINGERPRINTS[algorithm]) < 0.012, got


def spanning_trees(width, height):
    """Number of spanning trees of the width x height grid graph (matrix-tree theorem)."""
    n = width * height
    lap = np.zeros((n, n))
    for y in range(height):
        for x in range(width):
            v = y * width + x
            for u in ([v + 1] if x + 1 < width else []) + ([v + width] if y + 1 < height else []):
                lap[v, v] += 1
                lap[u, u] += 1
                lap[u, v] = lap[v, u] = -1
    return round(np.linalg.det(lap[1:, 1:]))


def chi_square_99_9(df):
    """The 99.9 % point of chi-square with ``df`` degrees of freedom (Wilson-Hilferty, good to 1 % here)."""
    z = 3.0902
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def tree_counts(algorithm, samples):
    return Counter(maze(3, 3, algorithm=algorithm, seed=s).grid.tobytes() for s in range(samples))


def test_spanning_tree_count_is_the_textbook_one():
    assert spanning_trees(3, 3) == 192 and spanning_trees(2, 2) == 4 and spanning_trees(4, 4) == 100352


def test_wilson_trees_are_uniform():
    trees, samples = spanning_trees(3, 3), 192 * 25
    counts = tree_counts("wilson", samples)
    assert len(counts) == trees  # every spanning tree turns up, and nothing else
    expected = samples / trees
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < chi_square_99_9(trees - 1), chi2


def test_the_uniformity_test_can_fail():
    """The same statistic on the backtracker, which favours long paths, is far over the line."""
    trees, samples = 192, 192 * 25
    counts = tree_counts("dfs", samples)
    expected = samples / trees
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values()) + expected * (trees - len(counts))
    assert chi2 > 2 * chi_square_99_9(trees - 1), chi2


def marker_cells(level):
    spawn, exit_ = level.markers_of("spawn"), level.markers_of("exit")
    assert len(spawn) == 1 and len(exit_) == 1 and len(level.markers) == 2
    for m in level.markers:
        assert m.x % 2 == 1 and m.y % 2 == 1 and level.grid[m.y, m.x] == FLOOR
    return (spawn[0].x // 2, spawn[0].y // 2), (exit_[0].x // 2, exit_[0].y // 2)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("seed", range(4))
def test_spawn_and_exit_are_the_ends_of_a_longest_path(algorithm, seed):
    level = maze(9, 6, algorithm=algorithm, seed=seed)
    sides = maze_cells(level)
    spawn, exit_ = marker_cells(level)
    diameter = max(cell_distances(sides, (x, y)).max() for y in range(6) for x in range(9))
    assert cell_distances(sides, spawn)[exit_[1], exit_[0]] == diameter


@pytest.mark.parametrize("loops, rooms", [(10, 0), (0, 2), (5, 3)])
def test_spawn_and_exit_with_cycles_are_two_sweeps(loops, rooms):
    """With loops or rooms: the exit is the farthest cell from the spawn, and the spawn the farthest from (0, 0)."""
    level = maze(12, 10, algorithm="kruskal", loops=loops, rooms=rooms, seed=3)
    sides = maze_cells(level)
    spawn, exit_ = marker_cells(level)
    from_spawn, from_origin = cell_distances(sides, spawn), cell_distances(sides, (0, 0))
    assert from_spawn[exit_[1], exit_[0]] == from_spawn.max() > 0
    assert from_origin[spawn[1], spawn[0]] == from_origin.max()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("width, height, rooms", [(30, 20, 5), (9, 9, 9), (40, 12, 1), (7, 31, 4)])
def test_rooms_are_open_rectangles_inside_the_grid(algorithm, width, height, rooms):
    level = maze(width, height, algorithm=algorithm, rooms=rooms, seed=rooms)
    g = level.grid
    assert len(level.rooms) == rooms
    taken = np.zeros(g.shape, bool)
    for x, y, w, h in level.rooms:
        assert x % 2 == 1 and y % 2 == 1 and w % 2 == 1 and h % 2 == 1 and w >= 3 and h >= 3
        assert 1 <= x and x + w <= g.shape[1] - 1 and 1 <= y and y + h <= g.shape[0] - 1
        assert (g[y : y + h, x : x + w] == FLOOR).all()  # open, pillars too
        assert not taken[y - 1 : y + h + 1, x - 1 : x + w + 1].any()  # apart, with a wall ring between
        taken[y : y + h, x : x + w] = True
    assert label_regions(g != WALL)[1] == 1
    assert (g[::2, ::2][~taken[::2, ::2]] == WALL).all()  # pillars outside rooms stay


def test_rooms_and_loops_together_count_the_loops():
    perfect_with_rooms = maze(30, 30, algorithm="prim", rooms=6, seed=9)
    looped = maze(30, 30, algorithm="prim", rooms=6, loops=25, seed=9)
    assert looped.rooms == perfect_with_rooms.rooms
    assert passages(looped) == passages(perfect_with_rooms) + 25


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_maze_cells_agrees_with_the_grid(algorithm):
    level = maze(15, 9, algorithm=algorithm, loops=4, rooms=1, seed=1)
    sides, g = maze_cells(level), level.grid
    assert sides.dtype == np.uint8 and sides.shape == (9, 15)
    for y in range(9):
        for x in range(15):
            for bit, (dx, dy) in STEPS.items():
                assert bool(sides[y, x] & bit) == (g[2 * y + 1 + dy, 2 * x + 1 + dx] == FLOOR)
    # the outer rim is closed, and each passage is seen from both of its cells
    assert not (sides[0] & 1).any() and not (sides[-1] & 4).any() and not (sides[:, 0] & 8).any()
    assert ((sides[:, :-1] & 2 > 0) == (sides[:, 1:] & 8 > 0)).all()
    assert ((sides[:-1] & 4 > 0) == (sides[1:] & 1 > 0)).all()


def test_maze_cells_refuses_a_grid_of_even_side():
    level = Level(grid=np.zeros((4, 5), np.uint8))
    with pytest.raises(ParameterError, match="level.grid must be"):
        maze_cells(level)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_same_seed_same_bytes_other_seed_other_maze(algorithm):
    a = maze(40, 30, algorithm=algorithm, loops=3, rooms=2, seed=7)
    b = maze(40, 30, algorithm=algorithm, loops=3, rooms=2, seed=7)
    c = maze(40, 30, algorithm=algorithm, loops=3, rooms=2, seed=8)
    assert a.grid.tobytes() == b.grid.tobytes() and a.markers == b.markers and a.rooms == b.rooms
    assert a.grid.tobytes() != c.grid.tobytes()


def test_a_generator_as_seed():
    a = maze(10, 10, seed=np.random.default_rng(4))
    b = maze(10, 10, seed=np.random.default_rng(4))
    assert a.grid.tobytes() == b.grid.tobytes()


def test_the_recipe_path_makes_the_same_maze():
    from worldseed.core.levels import generate

    spec = from_dict({"generator": "maze", "width": 14, "height": 9, "algorithm": "wilson", "loops": 2, "seed": 3})
    assert generate(spec).grid.tobytes() == maze(14, 9, algorithm="wilson", loops=2, seed=3).grid.tobytes()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"width": 1}, r"width must be an integer in \[2, 4096\], got 1"),
        ({"height": 0}, r"height must be an integer in \[2, 4096\], got 0"),
        ({"width": 2.5}, r"width must be an integer in \[2, 4096\], got 2.5"),
        ({"width": "8"}, r"width must be an integer in \[2, 4096\], got '8'"),
        ({"width": 2048, "height": 2048}, r"2048 x 2048 maze cells make a 4097 x 4097 grid .*at most 16,777,216"),
        (
            {"algorithm": "dsf"},
            r"algorithm must be one of 'dfs', 'prim', 'kruskal', 'wilson', got 'dsf' \(did you mean 'dfs'\?\)",
        ),
        ({"algorithm": 3}, r"algorithm must be one of .*got 3"),
        ({"loops": -1}, r"loops must be an integer in \[0, 16777216\], got -1"),
        (
            {"loops": 64},
            r"loops must be at most 63 for a 10 x 8 maze \(its walls between cells once it is perfect\), got 64",
        ),
        (
            {"rooms": 7},
            r"rooms must be at most 6 for a 10 x 8 maze \(a room and its margin take 3 x 3 maze cells\), got 7",
        ),
        ({"rooms": -2}, r"rooms must be an integer in \[0, 256\], got -2"),
        ({"rooms": 6, "loops": 63}, r"loops must be at most \d+ for a 10 x 8 maze \(.* and 6 rooms are cut\), got 63"),
        ({"seed": -1}, r"seed must be an integer"),
    ],
)
def test_bad_input_names_the_setting_the_value_and_the_range(kwargs, message):
    args = {"width": 10, "height": 8, **kwargs}
    with pytest.raises(ParameterError, match=message):
        maze(args.pop("width"), args.pop("height"), **args)
    if "seed" not in kwargs:  # the check alone says the same, before any work
        args = {"width": 10, "height": 8, **kwargs}
        with pytest.raises(ParameterError, match=message):
            check_settings(args.pop("width"), args.pop("height"), **args)


def test_the_recipe_check_prefixes_the_key():
    spec = from_dict({"generator": "maze", "width": 10, "height": 8})
    with pytest.raises(ParameterError, match=r"^level\.loops must be at most 63"):
        check_spec(type(spec)(generator="maze", width=10, height=8, loops=64))


def test_the_largest_grid_allowed_is_made():
    assert (2 * 2047 + 1) * (2 * 2 + 1) <= MAX_CELLS
    level = maze(2047, 2, algorithm="kruskal", seed=1)
    assert level.grid.shape == (5, 4095) and passages(level) == 2047 * 2 - 1


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(2, 24),
    height=st.integers(2, 24),
    algorithm=st.sampled_from(ALGORITHMS),
    loop_share=st.floats(0, 1),
    rooms=st.integers(0, 4),
    seed=st.integers(0, 2**31 - 1),
)
def test_any_maze_is_connected_with_its_loops(width, height, algorithm, loop_share, rooms, seed):
    rooms = min(rooms, (width // 3) * (height // 3))
    try:
        check_settings(width, height, algorithm=algorithm, rooms=rooms, loops=10**6)
    except ParameterError as err:
        most = int(str(err).split("at most ")[1].split()[0])
    loops = int(loop_share * most)
    level = maze(width, height, algorithm=algorithm, loops=loops, rooms=rooms, seed=seed)
    assert label_regions(level.grid != WALL)[1] == 1
    if not rooms:
        assert passages(level) == width * height - 1 + loops
    marker_cells(level)


@settings(max_examples=60, deadline=None)
@given(
    x0=st.integers(0, 12),
    top=st.integers(0, 12),
    steps=st.lists(st.sampled_from([-1, 0, 1]), min_size=1, max_size=80),
)
def test_held_walk_is_the_walk_that_never_steps_out(x0, top, steps):
    from worldseed.core.levels._maze import _held

    x0 = min(x0, top)
    want, x = [], x0
    for d in steps:
        x = min(max(x + d, 0), top)
        want.append(x)
    assert _held(x0, np.array(steps, np.int8), top).tolist() == want


def test_wilson_numpy_walks_are_uniform_too(monkeypatch):
    """Every walk in numpy pieces from its first step (the plain loop hands over no draws): still uniform."""
    from worldseed.core.levels import _maze

    monkeypatch.setattr(_maze, "WALK_CHUNKS", 0)
    monkeypatch.setattr(_maze, "SEGMENT", (4, 32))
    trees, samples = spanning_trees(3, 3), 192 * 25
    counts = tree_counts("wilson", samples)
    assert len(counts) == trees
    expected = samples / trees
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < chi_square_99_9(trees - 1), chi2
    # and on a larger maze the numpy pieces make a spanning tree with the uniform tree's dead ends
    level = maze(120, 120, algorithm="wilson", seed=4)
    assert passages(level) == 120 * 120 - 1 and label_regions(level.grid != WALL)[1] == 1
    assert abs(dead_end_fraction(level) - FINGERPRINTS["wilson"]) < 0.015


_DIGESTS = """
import hashlib, sys
sys.path.insert(0, {root!r})
from core.levels._maze import maze
for algorithm in ("dfs", "prim", "kruskal", "wilson"):
    level = maze(60, 40, algorithm=algorithm, loops=5, rooms=2, seed=12)
    print(algorithm, hashlib.sha256(level.grid.tobytes() + repr((level.rooms, level.markers)).encode()).hexdigest())
"""


def test_same_bytes_in_another_process():
    """A fresh interpreter (other hash seed, other memory layout) makes the very same mazes."""
    import hashlib
    import pathlib
    import subprocess
    import sys

    root = str(pathlib.Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", _DIGESTS.format(root=root)], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split("\n")
    for line, algorithm in zip(out, ALGORITHMS, strict=False):
        level = maze(60, 40, algorithm=algorithm, loops=5, rooms=2, seed=12)
        digest = hashlib.sha256(level.grid.tobytes() + repr((level.rooms, level.markers)).encode()).hexdigest()
        assert line == f"{algorithm} {digest}"
    assert len([line for line in out if line]) == len(ALGORITHMS)


@pytest.mark.parametrize("width, height, seed", [(2, 2, 0), (7, 5, 1), (30, 20, 2), (64, 3, 3)])
def test_kruskal_rounds_keep_the_tree_of_plain_kruskal(width, height, seed):
    """Boruvka rounds on the random wall order give exactly the tree a union-find Kruskal keeps from it."""
    from worldseed.core.levels._maze import _kruskal

    horizontal, vertical = _kruskal(width, height, np.random.default_rng(seed))
    idx = np.arange(width * height).reshape(height, width)
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    parent = list(range(width * height))

    def root(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    kept = np.zeros(a.size, bool)
    for wall in np.random.default_rng(seed).permutation(a.size):  # the same draw as _kruskal's first
        ra, rb = root(a[wall]), root(b[wall])
        if ra != rb:
            parent[ra] = rb
            kept[wall] = True
    assert (np.concatenate([horizontal.ravel(), vertical.ravel()]) == kept).all()


def reference_tree(algorithm, width, height, rng):
    """The textbook algorithm, one cell at a time: frozenset of passages ((x, y), (x', y'))."""
    cells = [(x, y) for y in range(height) for x in range(width)]

    def around(c):
        x, y = c
        return [(x + dx, y + dy) for dx, dy in STEPS.values() if 0 <= x + dx < width and 0 <= y + dy < height]

    start = cells[rng.integers(len(cells))]
    inside, edges = {start}, set()
    if algorithm == "dfs":  # step to a random unvisited neighbour, back up when there is none
        stack = [start]
        while stack:
            free = [n for n in around(stack[-1]) if n not in inside]
            if not free:
                stack.pop()
                continue
            n = free[rng.integers(len(free))]
            edges.add(frozenset((stack[-1], n)))
            inside.add(n)
            stack.append(n)
    else:  # prim: a random frontier cell joins through a random neighbour in the maze
        frontier = sorted(set(around(start)))
        while frontier:
            c = frontier.pop(rng.integers(len(frontier)))
            joined = [n for n in around(c) if n in inside]
            edges.add(frozenset((c, joined[rng.integers(len(joined))])))
            inside.add(c)
            frontier = sorted(set(frontier) | {n for n in around(c) if n not in inside})
    return frozenset(edges)


def tree_of(level):
    sides = maze_cells(level)
    h, w = sides.shape
    return frozenset(
        frozenset(((x, y), (x + dx, y + dy)))
        for y in range(h)
        for x in range(w)
        for bit, (dx, dy) in STEPS.items()
        if sides[y, x] & bit
    )


@pytest.mark.parametrize("algorithm", ["dfs", "prim"])
def test_dfs_and_prim_make_the_textbook_distribution_of_trees(algorithm):
    """Two-sample chi-square on 3 x 3: ours (bulk draws, Prim's joins chosen afterwards) against the textbook loop."""
    samples = 192 * 25
    ours = Counter(tree_of(maze(3, 3, algorithm=algorithm, seed=s)) for s in range(samples))
    rng = np.random.default_rng(99)
    theirs = Counter(reference_tree(algorithm, 3, 3, rng) for _ in range(samples))
    trees = set(ours) | set(theirs)
    chi2 = sum((ours[t] - theirs[t]) ** 2 / (ours[t] + theirs[t]) for t in trees)  # equal sample sizes
    assert chi2 < chi_square_99_9(len(trees) - 1), (chi2, len(trees))
    # and the test can tell two algorithms apart
    other = Counter(reference_tree("prim" if algorithm == "dfs" else "dfs", 3, 3, rng) for _ in range(samples))
    trees = set(ours) | set(other)
    assert sum((ours[t] - other[t]) ** 2 / (ours[t] + other[t]) for t in trees) > 2 * chi_square_99_9(len(trees) - 1)
