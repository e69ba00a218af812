"""The simple tiled model (core/wfc/_tileset.py, _tiled.py) and the shipped tilesets."""

import time
from pathlib import Path

import numpy as np
import pytest

from core.errors import ParameterError
from core.wfc._contract import Contradiction
from core.wfc._tiled import tiled
from core.wfc._tileset import load_tileset

PRESETS = Path(__file__).resolve().parents[2] / "presets" / "wfc"
SIDES = ("east", "south", "west", "north")


def assert_pairs_allowed(tiles, compatible, periodic):
    assert compatible[0][tiles[:, :-1], tiles[:, 1:]].all()
    assert compatible[1][tiles[:-1], tiles[1:]].all()
    if periodic:
        assert compatible[0][tiles[:, -1], tiles[:, 0]].all()
        assert compatible[1][tiles[-1], tiles[0]].all()


def tile_text(symmetry, sockets=None):
    text = f'[[tile]]\nname = "t"\nsymmetry = "{symmetry}"\n'
    if sockets:
        text += "sockets = { " + ", ".join(f'{k} = "{v}"' for k, v in sockets.items()) + " }\n"
    return text


@pytest.mark.parametrize(("symmetry", "count"), [("X", 1), ("I", 2), ("L", 4), ("T", 4), ("\\", 2), ("F", 8)])
def test_symmetry_classes_give_the_reference_variant_counts(symmetry, count):
    ts = load_tileset(tile_text(symmetry).replace("\\", "\\\\"))
    assert len(ts.names) == count and ts.weights.shape == (count,)
    assert ts.compatible.shape == (4, count, count)
    assert len(set(zip(ts.turns.tolist(), ts.mirrored.tolist()))) == count
    if count > 1:
        assert ts.names[1] == "t 1"


@pytest.mark.parametrize("name", ["pipes", "dungeon"])
@pytest.mark.parametrize("periodic", [False, True])
def test_presets_solve_at_32_with_every_pair_allowed(name, periodic):
    ts = load_tileset(PRESETS / f"{name}.toml")
    start = time.perf_counter()
    result = tiled(ts, 32, 32, periodic=periodic, seed=3)
    assert time.perf_counter() - start < 3.0
    assert result.tiles.shape == (32, 32)
    assert result.attempts >= 1 and result.backtracks >= 0
    assert_pairs_allowed(result.tiles, ts.compatible, periodic)
    assert len(np.unique(result.tiles)) > 4  # not one tile everywhere


# the arms of each pipe in its base orientation, by direction (east, south, west, north)
PIPE_ARMS = {
    "empty": (0, 0, 0, 0),
    "straight": (0, 1, 0, 1),
    "corner": (1, 0, 0, 1),
    "tee": (1, 1, 1, 0),
    "cross": (1, 1, 1, 1),
    "end": (0, 0, 0, 1),
}


def variant_arms(ts, i):
    arms = list(PIPE_ARMS[ts.tile[i]])
    if ts.mirrored[i]:
        arms[0], arms[2] = arms[2], arms[0]
    t = int(ts.turns[i])
    return [arms[(d - t) % 4] for d in range(4)]  # a clockwise turn moves east to south


def test_pipes_connect_geometrically():
    ts = load_tileset(PRESETS / "pipes.toml")
    arms = np.array([variant_arms(ts, i) for i in range(len(ts.names))])
    # the symmetry classes must not give two variants the same arms, nor miss one
    assert len({tuple(a) for a in arms}) == len(ts.names) == 16
    result = tiled(ts, 24, 20, seed=5, periodic=True)
    t = result.tiles
    assert np.array_equal(arms[t][:, :, 0], arms[np.roll(t, -1, 1)][:, :, 2])  # east meets west
    assert np.array_equal(arms[t][:, :, 1], arms[np.roll(t, -1, 0)][:, :, 3])  # south meets north


RULES = """
name = "knots"
[[tile]]
name = "corner"
symmetry = "L"
[[tile]]
name = "line"
symmetry = "I"
[[tile]]
name = "empty"
symmetry = "X"
weight = 2
[[neighbor]]
left = "corner 1"
right = "corner"
[[neighbor]]
left = "line"
right = "empty"
[[neighbor]]
left = "corner"
right = "line 1"
[[neighbor]]
left = "line 1"
right = "line 1"
[[neighbor]]
left = "empty"
right = "empty"
[[neighbor]]
left = "corner 3"
right = "empty"
"""


def test_neighbour_rules_are_closed_under_the_symmetries():
    ts = load_tileset(RULES)
    i = {n: k for k, n in enumerate(ts.names)}
    c = ts.compatible
    assert c[0, i["line 1"], i["line 1"]] and c[1, i["line 0"], i["line 0"]]  # turned a quarter
    assert c[0, i["line 0"], i["empty"]] and c[0, i["empty"], i["line 0"]]  # mirrored
    assert not c[0, i["line 1"], i["empty"]]  # never stated nor implied
    assert np.array_equal(c, c[[2, 3, 0, 1]].transpose(0, 2, 1))
    result = tiled(ts, 16, 16, seed=2)
    assert_pairs_allowed(result.tiles, c, False)


def test_sockets_are_matched_reversed_and_mirroring_reverses_them():
    text = tile_text("F", {"north": "ab", "east": "cd", "south": "ab", "west": "dc"})
    ts = load_tileset(text)
    c = ts.compatible
    assert c[0, 0, 0]  # east "cd" meets west "dc"
    assert not c[1, 0, 0]  # south "ab" meets north "ab" only if it were "ba"
    mirrored = int(np.flatnonzero(ts.mirrored & (ts.turns == 0))[0])
    assert c[1, mirrored, 0] == (c[1, 0, mirrored])  # both "ba" against "ab": allowed
    assert c[1, mirrored, 0]


def test_fixed_cells_by_name_and_index_are_kept():
    ts = load_tileset(PRESETS / "dungeon.toml")
    fixed = np.full((12, 12), "", dtype=object)
    fixed[5, 5] = "door 2"
    fixed[0, 0] = "rock"
    result = tiled(ts, 12, 12, seed=1, fixed=fixed)
    assert ts.names[result.tiles[5, 5]] == "door 2" and ts.names[result.tiles[0, 0]] == "rock"
    assert result.names[5, 5] == "door 2"
    index = np.full((12, 12), -1)
    index[3, 4] = ts.names.index("floor")
    assert tiled(ts, 12, 12, fixed=index).tiles[3, 4] == index[3, 4]


def test_a_tile_that_fits_nothing_fails_quickly_naming_the_cell():
    t_tile = tile_text("T", {"north": "a", "east": "a", "south": "b", "west": "a"})
    assert len(load_tileset(t_tile).names) == 4  # east mirrors onto west: a valid T
    with pytest.raises(ParameterError, match="symmetry"):
        load_tileset(t_tile.replace('"T"', '"X"'))  # but not an X: the sides differ
    lonely = tile_text("X", {"north": "x", "east": "x", "south": "x", "west": "x"})
    other = '[[tile]]\nname = "u"\n'  # no sockets and no rules: fits next to nothing
    start = time.perf_counter()
    with pytest.raises(Contradiction) as info:
        tiled(load_tileset(lonely + other), 8, 8, fixed=[["u"] + [""] * 7] + [[""] * 8] * 7)
    assert time.perf_counter() - start < 2.0
    assert info.value.cell in {(0, 0), (1, 0), (0, 1)} and "(" in str(info.value)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('name = "x"\n', "tile"),
        ('colour = 1\n[[tile]]\nname = "a"\n', "colour"),
        ('[[tile]]\nname = "a"\nsymmetry = "Q"\n', "symmetry"),
        ('[[tile]]\nname = "a"\nweight = -1\n', "weight"),
        ('[[tile]]\nname = "a"\nsize = 3\n', "size"),
        ('[[tile]]\nname = ""\n', "name"),
        ('[[tile]]\nname = "a"\n[[tile]]\nname = "a"\n', "twice"),
        ('[[tile]]\nname = "a"\nsockets = { north = "x", east = "x", south = "x" }\n', "west"),
        ('[[tile]]\nname = "a"\nsockets = { north = "x", east = "y", south = "x", west = "y" }\n', "symmetry"),
        ('[[tile]]\nname = "a"\nsockets = { up = "x" }\n', "up"),
        ('[[tile]]\nname = "a"\n[[neighbor]]\nleft = "a"\nright = "b"\n', "right"),
        ('[[tile]]\nname = "a"\n[[neighbor]]\nleft = "a"\n', "right"),
        ('[[tile]]\nname = "a"\nsymmetry = "L"\n[[neighbor]]\nleft = "a 7"\nright = "a"\n', "left"),
        ('[[tile]]\nname = "a" x\n', "TOML"),
        ('[[tile]]\nname = "a 1"\n[[tile]]\nname = "a"\nsymmetry = "I"\n', "clash"),
    ],
)
def test_bad_tilesets_give_one_line_errors_naming_the_key(text, key):
    with pytest.raises(ParameterError, match=key) as info:
        load_tileset(text)
    assert "\n" not in str(info.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ParameterError, match="nothing.toml") as info:
        load_tileset(tmp_path / "nothing.toml")
    assert "\n" not in str(info.value)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[tile]]\nname = "a"\nweight = "heavy"\n')
    with pytest.raises(ParameterError, match=r"bad.toml: tile 'a'.weight"):
        load_tileset(bad)


def test_same_seed_same_tiles():
    ts = load_tileset(PRESETS / "pipes.toml")
    a, b = tiled(ts, 20, 20, seed=9).tiles, tiled(ts, 20, 20, seed=9).tiles
    assert np.array_equal(a, b) and not np.array_equal(a, tiled(ts, 20, 20, seed=10).tiles)


def test_the_tileset_edge_rings_a_bounded_grid_and_can_be_turned_off():
    from core.wfc import load_tileset, tiled

    ts = load_tileset("presets/wfc/dungeon.toml")
    assert ts.edge == "rrr"
    meets = ts.meets("rrr")  # (4, P): east, south, west, north side meets rock

    def ringed(tiles):
        return (
            meets[0][tiles[:, -1]].all()
            and meets[1][tiles[-1]].all()
            and meets[2][tiles[:, 0]].all()
            and meets[3][tiles[0]].all()
        )

    assert all(ringed(tiled(ts, 20, 14, seed=s).tiles) for s in range(5))
    assert not all(ringed(tiled(ts, 20, 14, seed=s, edge="").tiles) for s in range(5))
    periodic = tiled(ts, 12, 12, seed=0, periodic=True)  # no edge on a periodic grid
    assert periodic.tiles.shape == (12, 12)
    with pytest.raises(ParameterError, match="edge"):
        tiled(ts, 8, 8, edge=3)
