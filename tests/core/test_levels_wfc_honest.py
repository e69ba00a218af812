"""core.levels WFC levels as a level designer meets them (a new user's trial): one region on the
finite grid when ``connected`` (also periodic), the regions counted and warned about without it,
door cells listed as doors, no level without a spawn and an exit, errors naming the level."""

import json
import os

import numpy as np
import pytest

from core import wfc as core_wfc
from core.errors import ParameterError
from core.levels import (
    DOOR,
    from_dict,
    generate,
    label_regions,
    level_json_bytes,
    level_record,
    level_warnings,
)
from core.levels._wfc_files import PRESETS


def level_of(base=None, **kw):
    return generate(from_dict({"name": "L", "generator": "wfc_tiled", **kw}, base=base))


def regions(level):
    return label_regions(level.walkable)


# --------------------------------------------------------------------------- finding 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_periodic_connected_level_is_one_region_on_the_finite_grid(seed):
    """periodic tiles the output, but a level is a finite grid: no path across its edges counts.
    (Trial: pipes 20 x 20, periodic, connected, points (0, 0) and (19, 19) gave 2 regions, the
    corner point an island reached only across the edge.)"""
    points = [[0, 0], [19, 19]]
    level = level_of(wfc_tileset="pipes", width=20, height=20, seed=seed, periodic=True, connected=True)
    assert regions(level)[1] == 1
    level = level_of(
        wfc_tileset="pipes", width=20, height=20, seed=seed, periodic=True, connected=True, connect_points=points
    )
    labels, count = regions(level)
    assert count == 1 and {int(labels[y, x]) for x, y in points} == {0}
    record = level_record(level, name="L", cell_size=1.0)
    assert record["regions"] == 1 and level_warnings(level, name="L") == []


# --------------------------------------------------------------------------- finding 5


def test_an_unconnected_level_counts_its_regions_and_warns():
    level = level_of(wfc_tileset="dungeon", width=32, height=24, seed=3, connected=False)
    labels, count = regions(level)
    assert count > 1  # a dungeon without connected: rooms and corridors apart
    record = json.loads(level_json_bytes(level, name="Keep", cell_size=1.0))
    assert record["regions"] == count
    assert level_warnings(level, name="Keep") == [
        f"level 'Keep': {count} separate walkable regions; set connected = true for one"
    ]
    # spawn and exit in the largest region
    largest = int(np.argmax(np.bincount(labels[labels >= 0])))
    assert {int(labels[m.y, m.x]) for m in level.markers} == {largest}
    assert {m.kind for m in level.markers} == {"spawn", "exit"}


def test_a_connected_level_and_other_generators_give_one_region_and_no_warning():
    level = level_of(wfc_tileset="dungeon", width=20, height=14, seed=3, connected=True)
    assert level_record(level, name="Keep", cell_size=1.0)["regions"] == 1
    assert level_warnings(level, name="Keep") == []
    cave = generate(from_dict({"generator": "cave", "width": 40, "height": 30}))
    assert level_record(cave, name="C", cell_size=1.0)["regions"] == 1 and level_warnings(cave, name="C") == []


# --------------------------------------------------------------------------- finding 6


def test_door_cells_are_the_doors_of_the_record():
    """Trial: dungeon 24 x 20 seed 2 has 8 door-class cells and gave "doors": []."""
    level = level_of(wfc_tileset="dungeon", width=24, height=20, seed=2)
    ys, xs = np.nonzero(level.grid == DOOR)
    assert len(xs) > 0
    assert sorted(level.doors) == sorted(zip(xs.tolist(), ys.tolist()))
    record = json.loads(level_json_bytes(level, name="L", cell_size=2.0, origin=(1.0, 2.0, 0.0)))
    assert [(d["x"], d["y"]) for d in record["doors"]] == list(level.doors)
    first = record["doors"][0]
    assert set(first) == {"x", "y", "blender", "unity"}  # as the other generators' doors
    assert first["blender"] == [1.0 + (first["x"] + 0.5) * 2.0, 2.0 + (20 - first["y"] - 0.5) * 2.0, 0.0]
    assert record["rooms"] == []  # WFC draws no rooms
    # a tileset without door tiles: no doors
    assert level_of(wfc_tileset="pipes", width=12, height=10, seed=1).doors == ()


# --------------------------------------------------------------------------- finding 7


ALL_EMPTY = {"straight": [0, 0], "corner": [0, 0], "tee": [0, 0], "cross": [0, 0], "end": [0, 0]}


@pytest.mark.parametrize("connected", [True, False])
def test_a_level_without_walkable_cells_is_refused_naming_it(connected):
    with pytest.raises(
        ParameterError, match=r"^level 'L' \(tileset 'pipes'\): no walkable cell \(every tile is a wall\)"
    ):
        level_of(wfc_tileset="pipes", width=10, height=10, connected=connected, counts=ALL_EMPTY)
    with pytest.raises(ParameterError, match=r"^level 'L' \(tileset 'dungeon'\): no walkable cell"):
        level_of(wfc_tileset="dungeon", width=1, height=1)


def test_a_sample_of_walls_alone_is_refused_naming_the_level(tmp_path):
    (tmp_path / "rock.txt").write_text("11\n11\n")
    spec = {"name": "Rock", "generator": "wfc_overlapping", "sample": "rock.txt", "n": 2, "width": 6, "height": 5}
    with pytest.raises(ParameterError, match=r"^level 'Rock' \(sample '.*rock.txt'\): no walkable cell"):
        generate(from_dict(spec, base=str(tmp_path)))


# --------------------------------------------------------------------------- finding 10


def test_a_contradiction_names_the_level_and_its_tileset(tmp_path):
    (tmp_path / "lonely.toml").write_text('[[tile]]\nname = "lonely"\n')
    spec = {"name": "Crypt", "generator": "wfc_tiled", "wfc_tileset": "lonely.toml", "width": 4, "height": 3}
    with pytest.raises(core_wfc.Contradiction, match=r"^level 'Crypt' \(tileset '.*lonely.toml'\): ") as err:
        generate(from_dict(spec, base=str(tmp_path)))
    assert isinstance(err.value, ParameterError) and err.value.attempts >= 1 and len(err.value.cell) == 2


@pytest.mark.parametrize(
    "key, value, close",
    [("sample", "flowerz", "flowers"), ("wfc_tileset", "dungeom", "dungeon"), ("wfc_tileset", "road", "roads")],
)
def test_a_mistyped_preset_gets_a_did_you_mean(key, value, close):
    generator = "wfc_overlapping" if key == "sample" else "wfc_tiled"
    with pytest.raises(ParameterError, match=rf"level.{key} '{value}' is no preset \(did you mean '{close}'\?\)"):
        from_dict({"generator": generator, key: value})


# --------------------------------------------------------------------------- finding 15


@pytest.mark.parametrize("stem, inside", [("dungeon", "rock"), ("pipes", "empty")])
def test_bounded_preset_levels_are_ringed_by_their_edge(stem, inside):
    """dungeon: rock beyond the border (no floor, door or corridor end runs into it); pipes: nothing
    (no pipe leads off the map). A periodic level tiles, so its border is free."""
    ts = core_wfc.load_tileset(os.path.join(PRESETS, f"{stem}.toml"))
    meets = ts.meets(ts.edge)  # (4, P): east, south, west, north
    assert meets[:, list(ts.names).index(inside)].all()
    for seed in range(3):
        ids = level_of(wfc_tileset=stem, width=24, height=20, seed=seed).wfc.ids
        assert meets[0, ids[:, -1]].all() and meets[1, ids[-1]].all()
        assert meets[2, ids[:, 0]].all() and meets[3, ids[0]].all()
    ids = level_of(wfc_tileset=stem, width=24, height=20, seed=1, periodic=True).wfc.ids
    border = np.concatenate([meets[0, ids[:, -1]], meets[1, ids[-1]], meets[2, ids[:, 0]], meets[3, ids[0]]])
    assert not border.all()


def test_a_periodic_connected_sample_level_is_one_region_on_the_finite_grid():
    points = [[1, 1], [22, 14]]
    data = {"name": "L", "generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 16}
    for seed in range(2):
        level = generate(
            from_dict({**data, "seed": seed, "periodic": True, "connected": True, "connect_points": points})
        )
        labels, count = regions(level)
        assert count == 1 and {int(labels[y, x]) for x, y in points} == {0}


GEMS = """
name = "gems"
[[tile]]
name = "stone"
class = "wall"
[[tile]]
name = "gem"
class = "floor"
[[neighbor]]
left = "stone"
right = "stone"
[[neighbor]]
left = "stone"
right = "gem"
"""


def test_a_level_of_lone_walkable_cells_is_refused_naming_it(tmp_path):
    """Gems never touch: every walkable region is one cell, no room for a spawn and an exit."""
    (tmp_path / "gems.toml").write_text(GEMS)
    spec = {"wfc_tileset": "gems.toml", "width": 8, "height": 6, "counts": {"gem": [3, 5]}, "connected": False}
    with pytest.raises(ParameterError, match=r"^level 'L' \(tileset '.*gems.toml'\): no two walkable cells side by"):
        level_of(base=str(tmp_path), **spec)
