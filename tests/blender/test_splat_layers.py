"""The Texture Layers list (``[[splat]]``) and the Biomes settings in the sidebar: generated from core's
tables, edited with add / remove / move, read into recipes with one clear message per bad setting."""

import dataclasses

import bpy
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import splat as core_splat
from worldseed.operators.bridge import sections
from worldseed.operators.bridge.properties import blend_path


def _settings():
    return bpy.context.scene.worldseed.terrain


def test_layers_are_added_removed_and_moved(empty_scene):
    settings = _settings()
    for _ in range(3):
        assert bpy.ops.worldseed.splat_layer_add() == {"FINISHED"}
    assert [layer.name for layer in settings.splats] == ["Ground", "Layer", "Layer 2"]
    assert settings.active_splat == 2
    assert bpy.ops.worldseed.splat_layer_move(direction="UP") == {"FINISHED"}
    assert [layer.name for layer in settings.splats] == ["Ground", "Layer 2", "Layer"] and settings.active_splat == 1
    settings.active_splat = 0
    assert bpy.ops.worldseed.splat_layer_move(direction="UP") == {"CANCELLED"}  # the first stays first
    assert bpy.ops.worldseed.splat_layer_remove() == {"FINISHED"}
    assert [layer.name for layer in settings.splats] == ["Layer 2", "Layer"] and settings.active_splat == 0


def test_layer_fields_come_from_core_splat_limits(empty_scene):
    bpy.ops.worldseed.splat_layer_add()
    rna = _settings().splats[0].bl_rna.properties
    checked = 0
    for name, limit in core_splat.LIMITS.items():
        if limit.kind in ("int", "float", "range", "vector"):
            assert (rna[name].hard_min, rna[name].hard_max) == pytest.approx(limit.bounds), name
            assert (rna[name].name, rna[name].description) == (limit.label, limit.description), name
            checked += 1
    assert checked >= 10
    assert set(sections.adapter("terrain").splat_fields) <= set(rna.keys())
    biomes_rna = _settings().bl_rna.properties
    for name in sections.adapter("terrain").biomes_fields:
        assert f"biomes_{name}" in biomes_rna


def test_sidebar_layers_become_splat_tables_and_back(empty_scene):
    settings = _settings()
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    rock = settings.splats[1]
    rock.name = "Rock"
    rock.color = (0.25, 0.23, 0.21)
    rock.slope_range = (30.0, 90.0)
    rock.biomes = "taiga, tundra = 0.5"
    tables = sections.adapter("terrain").splat_tables(settings)
    specs = core_splat.splats_from_list(tables)
    assert [s.name for s in specs] == ["Ground", "Rock"]
    assert specs[1].slope_range == (30.0, 90.0) and specs[1].biomes == (("taiga", 1.0), ("tundra", 0.5))
    assert specs[1].color == (0.25, 0.23, 0.21)  # float32 in Blender, the decimals back in the recipe
    recipe = dataclasses.replace(core_recipe.Recipe(), splat=tuple(specs))
    settings.splats.clear()
    sections.adapter("terrain").load(settings, recipe)
    assert [layer.name for layer in settings.splats] == ["Ground", "Rock"]
    assert settings.splats[1].biomes == "taiga, tundra = 0.5"


def test_a_bad_layer_setting_is_one_message_naming_the_layer(empty_scene):
    settings = _settings()
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()
    settings.splats[1].name = "Rock"
    settings.splats[1].biomes = "forest = 2"
    with pytest.raises(Exception) as info:
        sections.adapter("terrain").scene_recipe(bpy.context.scene)
    message = str(info.value)
    assert "texture layer 2 ('Rock')" in message and "forest" in message and "2" in message
    assert "\n" not in message


@pytest.mark.parametrize("start", ["//", ""])
def test_blend_relative_paths_become_absolute_in_the_recipe(empty_scene, tmp_path, monkeypatch, start):
    """``//`` and a plain relative path both start at the saved .blend's folder (as a level's tileset and
    sample files do: one ``blend_path``), whatever the working directory; a preset name stays a name."""
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "scene.blend"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    settings = _settings()
    bpy.ops.worldseed.splat_layer_add()
    settings.splats[0].texture = f"{start}textures/grass.png"
    settings.biomes_table = f"{start}tables/mine.toml"
    assert sections.adapter("terrain").splat_tables(settings)[0]["texture"] == str(tmp_path / "textures" / "grass.png")
    assert _biomes_table(settings) == str(tmp_path / "tables" / "mine.toml")
    settings.biomes_table = "whittaker"
    assert _biomes_table(settings) == "whittaker"
    bpy.ops.wm.read_homefile(use_empty=True)


def _biomes_table(settings):
    return sections.adapter("terrain").props_tables(settings, curve_points=())["biomes"]["table"]


def test_blend_path_of_an_unsaved_blend_keeps_relative_paths(empty_scene):
    assert bpy.data.filepath == ""
    assert blend_path("textures/grass.png") == "textures/grass.png"
    assert blend_path("") == ""
    assert blend_path("/abs/grass.png") == "/abs/grass.png"
