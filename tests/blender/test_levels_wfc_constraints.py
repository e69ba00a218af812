"""WFC levels' global constraints in Blender: connect points and counts from the Levels panel
and the redo panel, their text read and written back, and bad text as an error report.

Real Blender (the bpy module); small grids.
"""

import bpy
import numpy as np
import pytest

from worldseed.core import levels as core_levels
from worldseed.operators.bridge import levels as bridge_levels

from ._level_cases import TILES, level_settings, scene_state, shown_props


def _doors(level):
    return int((np.array(level.wfc.base_names)[level.wfc.ids] == "door").sum())


def test_the_panel_shows_connect_points_and_counts_for_the_wfc_generators(empty_scene):
    for generator in ("wfc_tiled", "wfc_overlapping", "wfc"):
        assert {"connect_points", "counts", "connected"} <= shown_props(generator=generator), generator
    assert not shown_props(generator="cave") & {"connect_points", "counts"}
    redo = bpy.ops.worldseed.level_add.get_rna_type().properties
    assert "connect_points" in redo and "counts" in redo


def test_counts_and_connect_points_from_the_panel_build_a_level_that_keeps_them(empty_scene):
    # 20 x 14 dungeons have 5 to 13 doors without the key (seeds 0 to 3): 2 to 4 is the key's doing
    free = core_levels.generate(
        core_levels.LevelSpec(generator="wfc_tiled", wfc_tileset="dungeon", width=20, height=14)
    )
    assert _doors(free) > 4
    dungeon = dict(generator="wfc_tiled", wfc_tileset="dungeon", width=20, height=14)
    for seed in (0, 1):
        level_settings(**dungeon, seed=seed, name=f"Keep{seed}", connected=False, connect_points="", counts="door=2-4")
        assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
        root = bpy.context.active_object
        assert bridge_levels.stored_spec(root).counts == (("door", 2, 4),)
        assert 2 <= _doors(bridge_levels.stored_level(root)) <= 4
    # connected with two points, and a count: the stored spec keeps both
    level_settings(seed=2, name="Linked", connected=True, connect_points="1,1; 18,12", counts="door=2-10, junction=1-")
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    root = bpy.context.active_object
    spec = bridge_levels.stored_spec(root)
    assert spec.connect_points == ((1, 1), (18, 12)) and spec.counts == (("door", 2, 10), ("junction", 1, -1))
    level = bridge_levels.stored_level(root)
    labels, count = core_levels.label_regions(level.grid != core_levels.WALL)
    assert count == 1 and labels[1, 1] == labels[12, 18] >= 0  # [x, y]: column x, row y
    assert 2 <= _doors(level) <= 10
    # Load from Active gives the text back; Update reads it again
    level_settings(connect_points="", counts="junction=9", connected=False)
    assert bpy.ops.worldseed.level_load_settings() == {"FINISHED"}
    settings = bpy.context.scene.worldseed.level
    assert (settings.connect_points, settings.counts, settings.connected) == (
        "1,1; 18,12",
        "door=2-10, junction=1-",
        True,
    )
    level_settings(counts="door=3-5")
    assert bpy.ops.worldseed.level_update() == {"FINISHED"}
    root = bpy.context.active_object
    assert bridge_levels.stored_spec(root).counts == (("door", 3, 5),)
    assert 3 <= _doors(bridge_levels.stored_level(root)) <= 5


def test_the_redo_panel_takes_counts_of_sample_values(empty_scene):
    result = bpy.ops.worldseed.level_add(
        generator="wfc_overlapping", sample="rooms", width=24, height=16, seed=1, counts="2=2-4", connected=False
    )
    assert result == {"FINISHED"}
    level = bridge_levels.stored_level(bpy.context.active_object)
    assert 2 <= int((level.wfc.ids == level.wfc.names.index("2")).sum()) <= 4
    free = core_levels.from_dict(
        dict(generator="wfc_overlapping", sample="rooms", width=24, height=16, seed=1, connected=False)
    )
    assert int((core_levels.generate(free).wfc.ids == 2).sum()) > 4  # 12: the bound is the key's doing


@pytest.mark.parametrize(
    "values, words",
    [
        ({"counts": "door=1-x"}, ["level.counts: write name=min-max", "'door=1-x'"]),
        ({"counts": "door"}, ["level.counts: write name=min-max pairs"]),
        ({"counts": "dor=1-2"}, ["level.counts names the tile 'dor'", "did you mean 'door'"]),
        ({"counts": "door=4-2"}, ["level.counts['door'] must have min <= max"]),
        ({"connect_points": "3"}, ["level.connect_points: write cells x,y", "'3'"]),
        ({"connect_points": "3,4"}, ["level.connect_points needs level.connected = true"]),
        ({"connect_points": "30,4", "connected": True}, ["level.connect_points[0] [30, 4] is off the level", "[0, 9]"]),
    ],
)
def test_bad_constraint_text_is_an_error_report_and_the_scene_stays(empty_scene, values, words):
    before = scene_state()
    level_settings(
        **{**TILES, "wfc_tileset": "dungeon", "connected": False, "connect_points": "", "counts": "", **values}
    )
    with pytest.raises(RuntimeError) as err:  # an operator's ERROR report
        bpy.ops.worldseed.level_add(from_settings=True)
    for word in words:
        assert word in str(err.value), (word, str(err.value))
    assert "Traceback" not in str(err.value)
    assert scene_state() == before


def test_the_constraint_texts_read_and_write_back():
    from worldseed.core import wfc as core_wfc

    assert bridge_levels.points_from_text(" 3, 4;20 ,10; ") == [[3, 4], [20, 10]]
    assert bridge_levels.counts_from_text("dead end = 1-4, #FF0000=2-, 3=5, x=-2") == [
        ["dead end", 1, 4],
        ["#FF0000", 2, -1],
        ["3", 5, 5],
        ["x", 0, 2],
    ]
    counts = core_wfc.check_counts(bridge_levels.counts_from_text("door=1-4, junction=2-, rock=3"))
    assert bridge_levels.counts_to_text(counts) == "door=1-4, junction=2-, rock=3"
    assert core_wfc.check_counts(bridge_levels.counts_from_text(bridge_levels.counts_to_text(counts))) == counts
    points = core_wfc.check_connect_points(bridge_levels.points_from_text("3,4; 20,10"))
    assert bridge_levels.points_to_text(points) == "3,4; 20,10"
