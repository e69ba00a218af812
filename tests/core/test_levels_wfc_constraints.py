"""core.levels on Wave Function Collapse: the global constraints of a level spec (counts,
connect_points, painted cells), their checks and their round trip through dicts, recipes and JSON."""

import json

import numpy as np
import pytest

from core import recipe as core_recipe
from core.errors import ParameterError
from core.levels import (
    LevelSpec,
    from_dict,
    generate,
    label_regions,
    level_json_bytes,
    to_dict,
)

from ._wfc_cases import sample_png, tiled_spec

# --------------------------------------------------------------------------- global constraints


def door_count(level):
    """Cells of a tiled level showing the base tile "door" (any of its turned variants)."""
    return int((np.array(level.wfc.base_names)[level.wfc.ids] == "door").sum())


def test_counts_keep_a_tile_in_range_and_without_them_it_strays():
    # counts alone (connected off); with connected too the search takes far longer
    free = [tiled_spec(width=20, height=14, seed=seed, connected=False) for seed in range(4)]
    counts = [door_count(generate(spec)) for spec in free]
    assert any(not 2 <= c <= 4 for c in counts), counts  # the key must be doing the work
    for seed in range(4):
        spec = tiled_spec(width=20, height=14, seed=seed, connected=False, counts={"door": [2, 4]})
        assert spec.counts == (("door", 2, 4),)
        level = generate(spec)
        assert 2 <= door_count(level) <= 4, seed
        assert level.settings["counts"] == [["door", 2, 4]]


def test_counts_of_sample_values_as_numbers_and_colours(tmp_path):
    data = {"generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 16, "connected": False}
    plain = [int((generate(from_dict({**data, "seed": s})).wfc.ids == 2).sum()) for s in range(4)]
    assert any(not 2 <= c <= 4 for c in plain), plain
    for seed in range(4):
        level = generate(from_dict({**data, "seed": seed, "counts": {"2": [2, 4]}}))
        assert 2 <= int((level.wfc.ids == 2).sum()) <= 4, seed
    # "wfc" with a sample, an unbounded max: at least 3 cells of value 2 (max -1 and [min] mean the same)
    spec = from_dict({**data, "generator": "wfc", "counts": {"2": [3]}})
    assert spec.counts == (("2", 3, -1),) and spec == from_dict({**to_dict(spec), "counts": [["2", 3, -1]]})
    assert int((generate(spec).wfc.ids == 2).sum()) >= 3
    # an image sample: colours as "#rrggbb" (any case); the red door at most once, at least once
    sample_png(tmp_path / "rooms.png")
    image = {
        "generator": "wfc_overlapping",
        "sample": "rooms.png",
        "n": 2,
        "width": 16,
        "height": 12,
        "connected": False,
    }
    for seed in range(3):
        level = generate(from_dict({**image, "seed": seed, "counts": {"#C80000": [1, 1]}}, base=str(tmp_path)))
        assert int((level.wfc.ids == level.wfc.names.index("#c80000")).sum()) == 1
    assert from_dict({**image, "counts": {"#C80000": [1, 1]}}, base=str(tmp_path)).counts == (("#c80000", 1, 1),)


def test_connect_points_are_walkable_and_linked(tmp_path):
    points = [[1, 1], [18, 12], [10, 6]]
    for seed in range(3):
        level = generate(tiled_spec(width=20, height=14, seed=seed, connected=True, connect_points=points))
        labels, count = label_regions(level.walkable)
        assert count == 1
        assert {int(labels[y, x]) for x, y in points} == {0}  # x the column, y the row
    data = {"generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 16, "connected": True}
    corners = [[1, 1], [22, 14], [1, 14]]  # the bounded output's last row and column too
    for seed in range(2):  # (seed 2 needs 3 attempts: 2 s)
        level = generate(from_dict({**data, "seed": seed, "connect_points": corners}))
        labels, _ = label_regions(level.walkable)
        assert len({int(labels[y, x]) for x, y in corners}) == 1 and labels[1, 1] >= 0
    assert generate(from_dict({**data, "connect_points": corners})).settings["connect_points"] == corners


def test_connect_points_name_a_cell_not_its_transpose():
    """A point [x, y] on a 20 x 14 level: x up to 19, y up to 13; [15, 2] is fine, [2, 15] is not."""
    tiled_spec(width=20, height=14, connected=True, connect_points=[[15, 2]])
    with pytest.raises(ParameterError, match=r"connect_points\[0\] \[2, 15\] is off the level: x must be in \[0, 19\]"):
        tiled_spec(width=20, height=14, connected=True, connect_points=[[2, 15]])


@pytest.mark.parametrize(
    "extra, words",
    [
        (
            {"connected": False, "connect_points": [[1, 1]]},
            ["level.connect_points needs level.connected = true", "1 point(s)"],
        ),
        (
            {"connected": True, "connect_points": [[1, 1], [24, 3]]},
            ["level.connect_points[1] [24, 3] is off the level", "x must be in [0, 23]", "y in [0, 15]"],
        ),
        ({"connected": True, "connect_points": [[1, -1]]}, ["level.connect_points[0]", "[0, 4095]"]),
        ({"connected": True, "connect_points": [[1, 2, 3]]}, ["level.connect_points[0] must be a cell [x, y]"]),
        ({"connected": True, "connect_points": [[1.5, 2]]}, ["level.connect_points[0] must be a cell [x, y]"]),
        ({"connected": True, "connect_points": "1,2"}, ["level.connect_points must be a list of cells"]),
        ({"counts": {"dor": [1, 2]}}, ["level.counts names the tile 'dor'", "did you mean 'door'", "dungeon"]),
        ({"counts": {"door": [4, 2]}}, ["level.counts['door'] must have min <= max", "[4, 2]"]),
        ({"counts": {"door": [-1, 2]}}, ["level.counts['door'] min", "[0,"]),
        ({"counts": {"door": [1, 2, 3]}}, ["level.counts['door'] must be [min, max] or [min]"]),
        ({"counts": {"door": [True, 2]}}, ["level.counts['door'] min must be an integer"]),
        ({"counts": {"door": [385]}}, ["level.counts['door'] min 385 is more than the 384 cells"]),
        ({"counts": {"door": [200], "floor": [200]}}, ["level.counts minimums add up to 400", "384 cells"]),
        ({"counts": [["door", 1], ["door", 2]]}, ["level.counts bounds 'door' twice"]),
        ({"counts": "door=1"}, ["level.counts must be a table"]),
        ({"generator": "wfc_overlapping", "sample": "rooms", "counts": {"7": [1]}}, ["level.counts", "'7'", "0, 1, 2"]),
        ({"generator": "wfc_overlapping", "sample": "rooms", "counts": {"wall": [1]}}, ["level.counts keys", "'wall'"]),
        ({"generator": "bsp", "counts": {"door": [1]}}, ["level.counts is a setting of the wfc_tiled"]),
        ({"generator": "cave", "connect_points": [[1, 1]]}, ["level.connect_points is a setting of the wfc_tiled"]),
    ],
)
def test_bad_constraints_refused_naming_the_key(extra, words):
    data = {"generator": "wfc_tiled", "wfc_tileset": "dungeon", "width": 24, "height": 16, **extra}
    if data["generator"] not in ("wfc_tiled", "wfc"):
        data.pop("wfc_tileset")
    with pytest.raises(ParameterError) as err:
        from_dict(data)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_constraints_round_trip_through_dicts_recipes_and_json():
    spec = tiled_spec(connected=True, connect_points=[[3, 4], [20, 10]], counts={"door": [1, 12], "junction": [2]})
    hash(spec)
    assert spec.connect_points == ((3, 4), (20, 10))
    assert spec.counts == (("door", 1, 12), ("junction", 2, -1))
    table = to_dict(spec)
    assert table["connect_points"] == [[3, 4], [20, 10]]
    assert table["counts"] == [["door", 1, 12], ["junction", 2, -1]]
    assert from_dict(table) == spec
    assert from_dict(json.loads(json.dumps(table))) == spec  # as the Blender level root stores it
    recipe = core_recipe.Recipe(level=(spec,))
    text = core_recipe.dumps(recipe)
    assert 'counts = [["door", 1, 12], ["junction", 2, -1]]' in text
    assert "connect_points = [[3, 4], [20, 10]]" in text
    assert core_recipe.loads(text) == recipe
    # a recipe may write counts as a table; other generators have neither key in their dicts
    written = (
        '[[level]]\ngenerator = "wfc_tiled"\nwfc_tileset = "dungeon"\ncounts = { door = [1, 12], junction = [2, -1] }\n'
    )
    assert core_recipe.loads(written).level[0].counts == spec.counts
    assert "counts" not in to_dict(LevelSpec()) and "connect_points" not in to_dict(LevelSpec())
    record = json.loads(level_json_bytes(generate(spec), name="Keep", cell_size=2.0))
    assert record["settings"]["counts"] == [["door", 1, 12], ["junction", 2, -1]]
    assert record["settings"]["connect_points"] == [[3, 4], [20, 10]]


def test_connected_and_counts_hold_together():
    for seed in (0, 2):
        spec = tiled_spec(width=24, height=16, seed=seed, connected=True, counts={"door": [2, 8]})
        level = generate(spec)
        assert 2 <= door_count(level) <= 8 and label_regions(level.walkable)[1] == 1


def test_a_wfc_level_too_large_for_the_solver_is_refused_by_check_spec():
    with pytest.raises(ParameterError, match=r"level.width x level.height 2048 x 1024 = 2,097,152 cells"):
        from_dict({"generator": "wfc_tiled", "wfc_tileset": "roads", "width": 2048, "height": 1024})


def test_painted_cells_of_a_recipe_show_in_the_level_and_round_trip():
    spec = from_dict(
        {"generator": "wfc_tiled", "wfc_tileset": "dungeon", "width": 20, "height": 14, "seed": 2}
        | {"fixed": [[3, 3, "door"], [10, 5, "bend 1"], [0, 0, "rock"]]}
    )
    wfc = generate(spec).wfc
    bases = np.array(wfc.base_names)
    assert bases[wfc.ids[3, 3]] == "door" and wfc.names[wfc.ids[5, 10]] == "bend 1" and bases[wfc.ids[0, 0]] == "rock"
    assert from_dict(to_dict(spec)) == spec
    sample = from_dict(
        {"generator": "wfc_overlapping", "sample": "rooms", "width": 24, "height": 18, "seed": 1}
        | {"fixed": [[12, 8, 2], [23, 17, "1"]]}
    )
    level = generate(sample)
    palette = [int(v) for v in level.wfc.palette]
    assert palette[level.wfc.ids[8, 12]] == 2 and palette[level.wfc.ids[17, 23]] == 1
    record = json.loads(level_json_bytes(level, name="R", cell_size=1.0, origin=(0.0, 0.0, 0.0)))
    assert record["settings"]["fixed"] == [[12, 8, "2"], [23, 17, "1"]]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"generator": "wfc_tiled", "wfc_tileset": "dungeon", "fixed": [[3, 3, "dor"]]}, "did you mean 'door'"),
        ({"generator": "wfc_overlapping", "sample": "rooms", "fixed": [[3, 3, 7]]}, "which the sample lacks"),
        (
            {"generator": "wfc_tiled", "wfc_tileset": "dungeon", "width": 10, "fixed": [[30, 3, "door"]]},
            "off the level",
        ),
        ({"generator": "wfc_tiled", "wfc_tileset": "dungeon", "fixed": [[1, 1, "rock"], [1, 1, "door"]]}, "again"),
        ({"generator": "wfc_tiled", "wfc_tileset": "dungeon", "fixed": [[1, "rock"]]}, "[x, y, tile]"),
        ({"generator": "bsp", "fixed": [[1, 1, "rock"]]}, "setting of the wfc_tiled"),
    ],
)
def test_bad_painted_cells_are_refused_naming_the_key(data, words):
    with pytest.raises(ParameterError, match=r"level\.fixed.*" + words.replace("[", r"\[").replace("]", r"\]")):
        from_dict(data)
