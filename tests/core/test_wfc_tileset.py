"""Tileset format (core/wfc/_tileset.py): tile classes, the placement convention, up/down sockets."""

import numpy as np
import pytest

from core.errors import ParameterError
from core.wfc._tileset import CLASS_NAMES, load_tileset

CLASSED = """
name = "classed"
[[tile]]
name = "rock"
class = "wall"
[[tile]]
name = "hall"
symmetry = "I"
class = "corridor"
[[tile]]
name = "gate"
symmetry = "T"
class = "door"
[[tile]]
name = "ground"
"""


def test_classes_per_variant_with_floor_by_default():
    ts = load_tileset(CLASSED)
    assert ts.classes.dtype == np.uint8 and ts.classes.shape == (len(ts.names),) == (8,)
    expect = {"rock": 0, "hall": 2, "gate": 3, "ground": 1}
    assert ts.classes.tolist() == [expect[b] for b in ts.base_names]
    assert ts.walkable.dtype == bool
    assert ts.walkable.tolist() == [b != "rock" for b in ts.base_names]
    assert CLASS_NAMES.index("corridor") == 2


def test_level_class_numbers_match_core_levels():
    from core import levels

    assert [levels.WALL, levels.FLOOR, levels.CORRIDOR, levels.DOOR] == [0, 1, 2, 3]
    assert CLASS_NAMES == ("wall", "floor", "corridor", "door")


@pytest.mark.parametrize("value", ['"lava"', "1", '"Wall"'])
def test_an_unknown_class_names_the_tile_and_the_key(value):
    with pytest.raises(ParameterError, match=r"tile 'gate'\.class must be one of wall, floor") as info:
        load_tileset(f'[[tile]]\nname = "gate"\nclass = {value}\n')
    assert "\n" not in str(info.value)


def test_base_names_and_the_old_tile_attribute_agree():
    ts = load_tileset(CLASSED)
    assert ts.base_names == ts.tile == ("rock", "hall", "hall", "gate", "gate", "gate", "gate", "ground")
    assert ts.names[:3] == ("rock", "hall 0", "hall 1")


# a chiral tile: "a" marks its north side and "c" its east side; probes fit only "a" or only "c"
CHIRAL = """
[[tile]]
name = "f"
symmetry = "F"
sockets = { north = "a", east = "c", south = "b", west = "b" }
[[tile]]
name = "pa"
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "pc"
sockets = { north = "c", east = "c", south = "c", west = "c" }
"""

# Blender's top view: +x east, +y north; the grid's directions 0 east, 1 south (row + 1), 2 west, 3 north
GRID_DIRECTION = {(1, 0): 0, (0, -1): 1, (-1, 0): 2, (0, 1): 3}


def placed(vector, mirrored, rotations):
    """A vector of the base object after the object transform: scale x by -1, then turn about +z."""
    x, y = vector
    if mirrored:
        x = -x
    for _ in range(rotations):
        x, y = -y, x  # a quarter turn counter-clockwise seen from above
    return (x, y)


def test_rotations_and_mirror_place_the_base_object_as_the_variant():
    ts = load_tileset(CHIRAL)
    pa, pc = ts.index("pa"), ts.index("pc")
    variants = [i for i, b in enumerate(ts.base_names) if b == "f"]
    assert len(variants) == 8
    seen = set()
    for i in variants:
        # where the variant's "a" and "c" sides are, read from its compatibility with the probes
        side_a = [d for d in range(4) if ts.compatible[d, i, pa]]
        side_c = [d for d in range(4) if ts.compatible[d, i, pc]]
        assert len(side_a) == len(side_c) == 1
        mirrored, rotations = bool(ts.mirrored[i]), int(ts.rotations[i])
        assert 0 <= rotations < 4 and rotations == (-ts.turns[i]) % 4
        assert GRID_DIRECTION[placed((0, 1), mirrored, rotations)] == side_a[0]  # the base's north
        assert GRID_DIRECTION[placed((1, 0), mirrored, rotations)] == side_c[0]  # the base's east
        seen.add((mirrored, rotations))
    assert len(seen) == 8
    first = variants[0]
    assert ts.rotations[first] == 0 and not ts.mirrored[first]


def test_a_quarter_turn_variant_of_a_corner_turns_counter_clockwise_from_above():
    ts = load_tileset(
        '[[tile]]\nname = "bend"\nsymmetry = "L"\nsockets = { north = "p", east = "p", south = "0", west = "0" }\n'
        '[[tile]]\nname = "pipe"\nsockets = { north = "p", east = "p", south = "p", west = "p" }\n'
    )
    pipe = ts.index("pipe")
    for i in range(4):
        arms = {d for d in range(4) if ts.compatible[d, i, pipe]}
        want = {GRID_DIRECTION[placed(v, bool(ts.mirrored[i]), int(ts.rotations[i]))] for v in [(0, 1), (1, 0)]}
        assert arms == want
    # "bend 1" turns clockwise on the map (north-east -> east-south): a three-quarter turn seen from above
    assert ts.turns[1] == 1 and ts.rotations[1] == 3


def test_up_and_down_sockets_are_kept_by_every_variant():
    ts = load_tileset(
        '[[tile]]\nname = "stair"\nsymmetry = "F"\n'
        'sockets = { north = "ab", east = "x", south = "ba", west = "y", up = "top", down = "s" }\n'
        '[[tile]]\nname = "air"\nsockets = { up = "air", down = "air" }\n'
        '[[tile]]\nname = "flat"\n'
    )
    assert ts.up == (("top",),) * 8 + (("air",), None)
    assert ts.down == (("s",),) * 8 + (("air",), None)
    air = ts.index("air")
    assert not ts.compatible[:, air].any()  # no side sockets, no rules: fits next to nothing in 2-D


def test_a_vertical_socket_may_list_labels():
    ts = load_tileset('[[tile]]\nname = "a"\nsockets = { up = ["t", "s", "t"], down = "x" }\n')
    assert ts.up == (("s", "t"),) and ts.down == (("x",),)


@pytest.mark.parametrize(
    ("sockets", "key"),
    [
        ('{ up = "x" }', "down"),
        ('{ down = "x" }', "up"),
        ('{ up = "x", down = "" }', "down"),
        ('{ up = 3, down = "x" }', "up"),
        ('{ up = [], down = "x" }', "up"),
        ('{ up = ["a", 1], down = "x" }', "up"),
        ('{ top = "x" }', "top"),
        ('{ north = "a", up = "x", down = "x" }', "east"),
    ],
)
def test_bad_vertical_sockets_name_the_key(sockets, key):
    with pytest.raises(ParameterError, match=key) as info:
        load_tileset(f'[[tile]]\nname = "a"\nsockets = {sockets}\n')
    assert "\n" not in str(info.value)


def test_ground_and_sky_name_base_tiles():
    ts = load_tileset(CLASSED)
    assert ts.ground == () and ts.sky == ()
    text = 'ground = ["rock", "hall", "rock"]\nsky = "ground"\n' + CLASSED
    ts = load_tileset(text)
    assert ts.ground == ("rock", "hall") and ts.sky == ("ground",)


@pytest.mark.parametrize(
    ("line", "key"), [('ground = ["lava"]', "ground"), ("sky = 3", "sky"), ('sky = "hall 1"', "sky")]
)
def test_bad_ground_or_sky_names_the_key(line, key):
    with pytest.raises(ParameterError, match=key) as info:
        load_tileset(line + "\n" + CLASSED)
    assert "\n" not in str(info.value)


def test_meets_reads_the_variants_side_sockets_and_edge_is_kept():
    text = 'edge = "oo"\n' + tile_with('"T"', 'north = "oo", east = "wh", south = "hh", west = "hw"')
    ts = load_tileset(text + '[[tile]]\nname = "ruled"\n')
    assert ts.edge == "oo" and ts.sockets[0] == ("wh", "hh", "hw", "oo") and ts.sockets[-1] is None
    meets = ts.meets("oo")
    assert meets.shape == (4, 5) and meets.dtype == bool
    assert meets[:, :4].sum(0).tolist() == [1, 1, 1, 1] and not meets[:, 4].any()
    assert [int(np.flatnonzero(meets[:, i])[0]) for i in range(4)] == [3, 0, 1, 2]  # turned clockwise
    assert ts.meets("wh")[2, 0] and ts.meets("hw")[0, 0]  # a side meets its profile reversed
    assert load_tileset(CLASSED).edge is None


@pytest.mark.parametrize("value", ["3", '""', '["oo"]'])
def test_a_bad_edge_is_named(value):
    with pytest.raises(ParameterError, match="edge"):
        load_tileset(f"edge = {value}\n" + CLASSED)


def tile_with(symmetry, sockets):
    return f'[[tile]]\nname = "w"\nsymmetry = {symmetry}\nsockets = {{ {sockets} }}\n'


def test_a_tileset_of_too_many_variants_is_refused_at_once():
    import time

    from core.wfc._tileset import MAX_VARIANTS

    tiles = "".join(
        f'[[tile]]\nname = "t{i}"\nsymmetry = "F"\nsockets = {{ north = "a", east = "b", south = "c", west = "d" }}\n'
        for i in range(600)
    )
    start = time.perf_counter()
    with pytest.raises(ParameterError, match=f"more than {MAX_VARIANTS:,} variants"):
        load_tileset(tiles)
    assert time.perf_counter() - start < 2.0


def test_a_missing_socket_is_called_missing():
    text = '[[tile]]\nname = "a"\nsockets = { north = "x", east = "x", west = "x" }\n'
    with pytest.raises(ParameterError, match="sockets.south is missing"):
        load_tileset(text)
