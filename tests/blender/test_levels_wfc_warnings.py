"""A WFC level in several walkable regions (no ``connected``) is said so: in Blender through the
bridge's level_warnings (the Add and Update reports), headless on stderr; a connected one is not."""

import json

import bpy

from worldseed.core.levels import label_regions

from ._level_cases import level_settings

DUNGEON = dict(generator="wfc_tiled", wfc_tileset="dungeon", width=32, height=32, seed=0)


def _added(name, **values):
    level_settings(**DUNGEON, name=name, **values)
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}
    return bpy.context.view_layer.objects.active


def test_a_level_in_several_regions_warns_and_a_connected_one_does_not(empty_scene):
    from worldseed.operators.bridge import levels as bridge_levels

    loose = _added("Loose", connected=False)
    regions = label_regions(bridge_levels.stored_level(loose).walkable)[1]
    assert regions > 1  # the case: a 32 x 32 dungeon without connected falls apart
    assert bridge_levels.level_warnings(loose) == [
        f"level 'Loose': {regions} separate walkable regions; set connected = true for one"
    ]
    joined = _added("Joined", connected=True)
    assert label_regions(bridge_levels.stored_level(joined).walkable)[1] == 1
    assert bridge_levels.level_warnings(joined) == []


def test_a_headless_level_in_several_regions_warns_on_stderr(tmp_path, capsys):
    from worldseed.addon import batch
    from worldseed.core import recipe as core_recipe

    text = '[[level]]\nname = "Loose"\ngenerator = "wfc_tiled"\nwidth = 32\nheight = 32\nconnected = false\n'
    batch.build_world(core_recipe.loads(text), str(tmp_path / "out"))
    err = capsys.readouterr().err
    record = json.loads(next((tmp_path / "out").glob("*Loose_level.json")).read_text())
    assert record["regions"] > 1
    assert f"worldseed: warning: level 'Loose': {record['regions']} separate walkable regions" in err
