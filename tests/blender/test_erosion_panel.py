"""The Erosion, Biomes and Texture Layers sub-panels under Terrain: every field of core's tables shown,
with core's ranges, drawn against the real settings (a layout recorder stands in for the UI)."""

import bpy
import pytest

from worldseed.core import biomes as core_biomes
from worldseed.core import erosion as core_erosion
from worldseed.operators.bridge import sections

from ._panel_cases import draw, props


def test_erosion_panel_shows_every_erosion_field_with_cores_ranges(empty_scene):
    panel = bpy.types.WORLDSEED_PT_terrain_erosion
    assert panel.bl_parent_id == "WORLDSEED_PT_terrain"
    assert props(draw(panel, method="draw_header")) == {"erosion_enabled"}
    shown = props(draw(panel))
    assert shown == {f"erosion_{n}" for n in sections.adapter("terrain").erosion_fields if n != "enabled"}
    assert len(shown) >= 12
    rna = bpy.context.scene.worldseed.terrain.bl_rna.properties
    for name, limit in core_erosion.LIMITS.items():
        prop = rna[f"erosion_{name}"]
        assert (prop.name, prop.description) == (limit.label, limit.description), name
        if limit.kind in ("int", "float"):
            assert (prop.hard_min, prop.hard_max) == pytest.approx(limit.bounds), name
        assert getattr(prop, "default", None) == pytest.approx(getattr(core_erosion.ErosionSpec(), name)), name


def test_biomes_panel_shows_every_biome_field(empty_scene):
    panel = bpy.types.WORLDSEED_PT_terrain_biomes
    assert panel.bl_parent_id == "WORLDSEED_PT_terrain"
    assert props(draw(panel)) == {f"biomes_{n}" for n in core_biomes.LIMITS if n != "enabled"}
    assert bpy.context.scene.worldseed.terrain.biomes_table == "whittaker"


def test_texture_layers_panel_lists_the_layers_and_shows_the_active_one(empty_scene):
    panel = bpy.types.WORLDSEED_PT_terrain_splats
    calls = draw(panel)
    assert ("list", "splats") in calls and not props(calls)
    assert {"worldseed.splat_layer_add", "worldseed.splat_layer_remove", "worldseed.splat_layer_move"} <= {
        name for kind, name in calls if kind == "operator"
    }
    bpy.ops.worldseed.splat_layer_add()
    assert props(draw(panel)) == {"color", "texture", "tile_size"}  # the ground: what it looks like
    bpy.ops.worldseed.splat_layer_add()
    shown = props(draw(panel))
    assert shown == set(sections.adapter("terrain").splat_fields) - {"name"}  # the name is edited in the list


def test_add_terrain_redo_panel_holds_the_erosion_and_biome_fields(empty_scene):
    rna = bpy.ops.worldseed.terrain_add.get_rna_type().properties
    for name in sections.adapter("terrain").erosion_fields:
        assert f"erosion_{name}" in rna
    for name in sections.adapter("terrain").biomes_fields:
        assert f"biomes_{name}" in rna
    assert "splat_json" in rna


def test_a_preset_with_layers_fills_the_sub_panels_and_saves_them_back(empty_scene):
    from worldseed.core import recipe as core_recipe
    from worldseed.operators.bridge import presets

    assert bpy.ops.worldseed.terrain_preset_apply(preset="Alpine Mountains") == {"FINISHED"}
    settings = bpy.context.scene.worldseed.terrain
    preset = presets.load("Alpine Mountains")
    assert settings.erosion_enabled and settings.erosion_droplets_per_km2 == preset.terrain.erosion.droplets_per_km2
    assert settings.biomes_enabled and [layer.name for layer in settings.splats] == [s.name for s in preset.splat]
    assert settings.splats[1].biomes == "forest, taiga, rain forest"
    recipe = sections.adapter("terrain").scene_recipe(bpy.context.scene)
    assert (recipe.terrain.erosion, recipe.biomes, recipe.splat) == (
        preset.terrain.erosion,
        preset.biomes,
        preset.splat,
    )
    assert core_recipe.loads(core_recipe.dumps(recipe)) == recipe
