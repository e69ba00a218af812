"""The 3-D tiled model (core/wfc/_tiled3d.py) and the blocks3d building kit."""

import hashlib
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.errors import ParameterError
from core.steps import drive
from core.wfc import Tiled3DResult, compatible3d, tiled3d, tiled3d_steps
from core.wfc._contract import Contradiction
from core.wfc._tileset import load_tileset

ROOT = Path(__file__).resolve().parents[2]
PRESETS = ROOT / "presets" / "wfc"
OPPOSITE = [2, 3, 0, 1, 5, 4]
# (dz, dy, dx) of the directions 0 +x, 1 +y (row + 1), 2 -x, 3 -y, 4 +z up, 5 -z down
STEP = [(0, 0, 1), (0, 1, 0), (0, 0, -1), (0, -1, 0), (1, 0, 0), (-1, 0, 0)]


def assert_pairs_allowed(tiles, compatible, periodic=False):
    """Every pair of neighbours in the six directions, checked one by one."""
    depth, height, width = tiles.shape
    checked = 0
    for z in range(depth):
        for y in range(height):
            for x in range(width):
                for d, (dz, dy, dx) in enumerate(STEP):
                    nz, ny, nx = z + dz, y + dy, x + dx
                    if periodic:
                        ny, nx = ny % height, nx % width
                    if 0 <= nz < depth and 0 <= ny < height and 0 <= nx < width:
                        assert compatible[d, tiles[z, y, x], tiles[nz, ny, nx]], (x, y, z, d)
                        checked += 1
    return checked


@pytest.fixture(scope="module")
def blocks():
    return load_tileset(PRESETS / "blocks3d.toml")


def test_compatibility_is_the_tilesets_sides_plus_up_down_labels(blocks):
    c = compatible3d(blocks)
    p = len(blocks.names)
    assert c.shape == (6, p, p) and c.dtype == bool
    assert np.array_equal(c, c[OPPOSITE].transpose(0, 2, 1))
    assert np.array_equal(c[:4], blocks.compatible)
    for i in range(p):
        for j in range(p):
            assert c[4, i, j] == bool(set(blocks.up[i]) & set(blocks.down[j]))


UPDOWN = """
[[tile]]
name = "a"
symmetry = "L"
sockets = { north = "o", east = "o", south = "o", west = "o", up = "x", down = "y" }
[[tile]]
name = "b"
sockets = { north = "o", east = "o", south = "o", west = "o", up = "y", down = ["x", "z"] }
[[tile]]
name = "c"
sockets = { north = "o", east = "o", south = "o", west = "o", up = "z", down = "z" }
"""


def test_up_meets_an_equal_down_and_variants_keep_their_vertical_sockets():
    ts = load_tileset(UPDOWN)
    c = compatible3d(ts)
    a, b, cc = [ts.index(n) for n in ("a", "b", "c")]
    assert c[4, a, b] and c[5, b, a]  # up "x" of a meets down ["x", "z"] of b above it
    assert c[4, b, a] and not c[4, a, a]  # up "y" of b meets down "y" of a; a never on a
    assert c[4, cc, b] and c[4, cc, cc] and not c[4, b, cc] and not c[4, a, cc]
    turned = [i for i, n in enumerate(ts.base_names) if n == "a"]
    assert len(turned) == 4
    for i in turned:  # every quarter turn of "a" stacks as "a" does
        assert np.array_equal(c[4:, i], c[4:, a]) and np.array_equal(c[4:, :, i], c[4:, :, a])


def test_tiles_without_up_down_sockets_are_refused_by_name():
    with pytest.raises(ParameterError, match="'pipes'.*corner, cross, empty, end, straight, tee.*sockets.up") as e:
        tiled3d(load_tileset(PRESETS / "pipes.toml"), 4, 4, 2)
    assert "\n" not in str(e.value)
    half = UPDOWN + '[[tile]]\nname = "flat"\nsockets = { north = "o", east = "o", south = "o", west = "o" }\n'
    with pytest.raises(ParameterError, match="tile\\(s\\) flat have no up/down"):
        compatible3d(load_tileset(half))


def test_blocks3d_16x16x8_stacks_with_every_pair_allowed_in_time(blocks):
    start = time.perf_counter()
    result = tiled3d(blocks, 16, 16, 8, seed=0)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0  # 3-D 16 x 16 x 8 <= 2 s
    assert isinstance(result, Tiled3DResult)
    assert result.tiles.shape == (8, 16, 16) and result.tiles.dtype == np.int32
    assert result.attempts >= 1 and result.backtracks >= 0
    assert assert_pairs_allowed(result.tiles, compatible3d(blocks)) == 6 * 16 * 16 * 8 - 2 * (16 * 8 * 2 + 16 * 16)
    base = np.array(blocks.base_names, dtype=object)[result.tiles]
    assert set(base[0].ravel()) <= set(blocks.ground) and set(base[-1].ravel()) == {"air"}
    assert {"grass", "foundation corner", "corner", "roof corner"} <= set(base.ravel())  # there are houses
    assert result.names.shape == (8, 16, 16) and result.names[-1, 0, 0] == "air"


KINDS = {
    "wall": ("foundation wall", "wall", "door", "upper wall", "roof slope"),
    "corner": ("foundation corner", "corner", "upper corner", "roof corner"),
    "inside": ("slab", "room", "stair", "upper room", "landing", "roof top"),
}
KIND_OF = {name: kind for kind, names in KINDS.items() for name in names}


@pytest.mark.parametrize("seed", [1, 2])
def test_blocks3d_houses_are_aligned_prisms_of_one_or_two_floors_under_a_roof(blocks, seed):
    result = tiled3d(blocks, 14, 12, 7, seed=seed)
    base = np.array(blocks.base_names, dtype=object)[result.tiles]
    turns = blocks.turns[result.tiles]
    roofs = 0
    for y in range(12):
        for x in range(14):
            column = list(base[:, y, x])
            if column[0] == "grass":
                assert column[1:] == ["air"] * 6
                continue
            assert column[0] in KIND_OF
            top = next(z for z, n in enumerate(column) if n.startswith("roof"))
            assert top in (2, 3)  # the ground floor, maybe the upper floor, then the roof
            assert column[top + 1 :] == ["air"] * (6 - top)
            assert {KIND_OF[n] for n in column[: top + 1]} == {KIND_OF[column[0]]}  # walls on walls...
            if KIND_OF[column[0]] != "inside":  # ... turned the same way
                assert len(set(turns[: top + 1, y, x].tolist())) == 1
            roofs += 1
    assert roofs > 10


def border_faces(tiles, meets):
    """Whether each border cell turns a side meeting the edge outwards: (east, south, west, north)."""
    return (
        meets[0][tiles[:, :, -1]].all(),
        meets[1][tiles[:, -1, :]].all(),
        meets[2][tiles[:, :, 0]].all(),
        meets[3][tiles[:, 0, :]].all(),
    )


def test_the_edge_keeps_houses_off_the_border_cut(blocks):
    assert blocks.edge == "oo"
    meets = blocks.meets("oo")
    for seed in range(3):
        tiles = tiled3d(blocks, 12, 10, 5, seed=seed).tiles
        assert border_faces(tiles, meets) == (True,) * 4
        assert assert_pairs_allowed(tiles, compatible3d(blocks))
    cut = [border_faces(tiled3d(blocks, 12, 10, 5, seed=s, edge="").tiles, meets) for s in range(3)]
    assert not all(all(f) for f in cut)  # without the edge some house runs into the border
    with pytest.raises(ParameterError, match="edge"):
        tiled3d(blocks, 4, 4, 3, edge=3)


def test_periodic_wraps_x_and_y(blocks):
    result = tiled3d(blocks, 10, 8, 5, periodic=True, seed=4)
    assert_pairs_allowed(result.tiles, compatible3d(blocks), periodic=True)


def test_fixed_cells_by_name_and_index_are_kept(blocks):
    fixed = np.full((6, 12, 12), "", dtype=object)
    fixed[0, 0, :] = fixed[0, -1, :] = fixed[0, :, 0] = fixed[0, :, -1] = "grass"  # houses off the edges
    fixed[1, 6, 5] = "door 2"
    fixed[3, 6, 5] = "air"
    result = tiled3d(blocks, 12, 12, 6, seed=3, fixed=fixed)
    names = result.names
    assert names[1, 6, 5] == "door 2" and names[3, 6, 5] == "air"
    assert set(names[0, 0]) == {"grass"} and set(names[0, :, -1]) == {"grass"}
    assert names[2, 6, 5].startswith("roof")  # a one-floor house grew around the door
    index = np.full((6, 12, 12), -1)
    index[1, 2, 3] = blocks.index("room")
    assert tiled3d(blocks, 12, 12, 6, seed=5, fixed=index).tiles[1, 2, 3] == index[1, 2, 3]


def test_the_same_seed_gives_the_same_stack_and_another_seed_another(blocks):
    a = tiled3d(blocks, 12, 10, 6, seed=7)
    b = tiled3d(blocks, 12, 10, 6, seed=7)
    c = tiled3d(blocks, 12, 10, 6, seed=8)
    assert np.array_equal(a.tiles, b.tiles) and (a.attempts, a.backtracks) == (b.attempts, b.backtracks)
    assert not np.array_equal(a.tiles, c.tiles)


def test_the_same_seed_gives_the_same_stack_in_another_process(blocks):
    code = (
        "import hashlib; from core.wfc._tiled3d import tiled3d;"
        "r = tiled3d('presets/wfc/blocks3d.toml', 12, 10, 6, seed=7);"
        "print(hashlib.sha256(r.tiles.tobytes()).hexdigest())"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    here = hashlib.sha256(tiled3d(blocks, 12, 10, 6, seed=7).tiles.tobytes()).hexdigest()
    assert out.stdout.strip() == here


def test_ground_and_sky_options_override_the_tileset(blocks):
    flat = tiled3d(blocks, 8, 8, 4, ground="grass", seed=1)
    names = np.array(blocks.base_names, dtype=object)[flat.tiles]
    assert set(names[0].ravel()) == {"grass"} and set(names[1:].ravel()) == {"air"}
    open_top = tiled3d(blocks, 8, 8, 2, ground=["slab"], sky=(), edge="", seed=1)  # a house open above and around
    names = np.array(blocks.base_names, dtype=object)[open_top.tiles]
    assert set(names[0].ravel()) == {"slab"} and set(names[1].ravel()) <= {"room", "stair"}
    one = tiled3d(blocks, 5, 4, 1, ground="grass", sky="grass")
    assert one.tiles.shape == (1, 4, 5) and set(one.names.ravel()) == {"grass"}


def test_an_impossible_stack_fails_quickly_naming_the_cell():
    ts = load_tileset(UPDOWN)
    start = time.perf_counter()
    with pytest.raises(Contradiction) as info:  # on "a" only "b", on "b" only "a": never "c" at z = 2
        tiled3d(ts, 5, 5, 3, ground="a", sky="c")
    assert time.perf_counter() - start < 2.0
    assert len(info.value.cell) == 3 and "(" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"width": 0}, "width"),
        ({"depth": 2.5}, "depth"),
        ({"fixed": np.full((2, 4, 4), -1)}, "fixed"),
        ({"fixed": np.full((3, 4, 4), "nope", dtype=object)}, "nope"),
        ({"ground": "nope"}, "ground"),
        ({"sky": [1]}, "sky"),
    ],
)
def test_bad_arguments_are_named(blocks, kwargs, match):
    args = {"width": 4, "height": 4, "depth": 3} | kwargs
    with pytest.raises(ParameterError, match=match):
        tiled3d(blocks, args.pop("width"), args.pop("height"), args.pop("depth"), **args)


def test_progress_and_steps_report_the_decided_cells(blocks):
    seen = []
    result = tiled3d(blocks, 12, 12, 6, seed=2, progress=lambda done, total, label: seen.append((done, total, label)))
    assert seen and {t for _, t, _ in seen} == {12 * 12 * 6}
    assert all(0 <= d <= t for d, t, _ in seen) and all(isinstance(label, str) for *_, label in seen)
    assert np.array_equal(drive(tiled3d_steps(blocks, 12, 12, 6, seed=2)).tiles, result.tiles)
    with pytest.raises(ParameterError, match="width"):  # checked at the call, before any step
        tiled3d_steps(blocks, 0, 12, 6)
