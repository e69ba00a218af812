"""The Erosion, Biomes and Texture Layers sub-panels under Terrain: every field of core's tables shown,
with core's ranges, drawn against the real settings (a layout recorder stands in for the UI)."""

import types

import bpy
import pytest

from worldseed.core import biomes as core_biomes
from worldseed.core import erosion as core_erosion
from worldseed.operators import terrain_layers


class Recorder:
    """Records what a panel draws; every prop must be a real RNA property, every operator registered."""

    def __init__(self, calls):
        self.__dict__["calls"] = calls

    def __setattr__(self, name, value):
        self.calls.append(("set", name))

    def _child(self, *args, **kwargs):
        return Recorder(self.calls)

    row = column = box = split = _child

    def prop(self, data, name, **kwargs):
        assert name in data.bl_rna.properties, f"{type(data).__name__} has no property {name!r}"
        self.calls.append(("prop", name))

    def operator(self, idname, **kwargs):
        module, _, op = idname.partition(".")
        getattr(getattr(bpy.ops, module), op).get_rna_type()
        self.calls.append(("operator", idname))
        return types.SimpleNamespace()

    def label(self, **kwargs):
        self.calls.append(("label", kwargs.get("text", "")))

    def separator(self, **kwargs):
        pass

    def template_list(self, list_id, _name, data, name, active_data, active_name, **kwargs):
        assert getattr(bpy.types, list_id, None) is not None
        assert name in data.bl_rna.properties and active_name in active_data.bl_rna.properties
        self.calls.append(("list", name))


def _draw(panel, method="draw"):
    calls = []
    self = types.SimpleNamespace(layout=Recorder(calls))
    self.settings_column = types.MethodType(panel.settings_column, self) if hasattr(panel, "settings_column") else None
    getattr(panel, method)(self, bpy.context)
    return calls


def _props(calls):
    return {name for kind, name in calls if kind == "prop"}


def test_erosion_panel_shows_every_erosion_field_with_cores_ranges(empty_scene):
    panel = bpy.types.WORLDSEED_PT_terrain_erosion
    assert panel.bl_parent_id == "WORLDSEED_PT_terrain"
    assert _props(_draw(panel, "draw_header")) == {"erosion_enabled"}
    shown = _props(_draw(panel))
    assert shown == {f"erosion_{n}" for n in terrain_layers.EROSION_FIELDS if n != "enabled"}
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
    assert _props(_draw(panel)) == {f"biomes_{n}" for n in core_biomes.LIMITS if n != "enabled"}
    assert bpy.context.scene.worldseed.terrain.biomes_table == "whittaker"


def test_texture_layers_panel_lists_the_layers_and_shows_the_active_one(empty_scene):
    panel = bpy.types.WORLDSEED_PT_terrain_splats
    calls = _draw(panel)
    assert ("list", "splats") in calls and not _props(calls)
    assert {"worldseed.splat_layer_add", "worldseed.splat_layer_remove", "worldseed.splat_layer_move"} <= {
        name for kind, name in calls if kind == "operator"
    }
    bpy.ops.worldseed.splat_layer_add()
    assert _props(_draw(panel)) == {"color", "texture", "tile_size"}  # the ground: what it looks like
    bpy.ops.worldseed.splat_layer_add()
    shown = _props(_draw(panel))
    assert shown == set(terrain_layers.SPLAT_FIELDS) - {"name"}  # the name is edited in the list


def test_add_terrain_redo_panel_holds_the_erosion_and_biome_fields(empty_scene):
    rna = bpy.ops.worldseed.terrain_add.get_rna_type().properties
    for name in terrain_layers.EROSION_FIELDS:
        assert f"erosion_{name}" in rna
    for name in terrain_layers.BIOMES_FIELDS:
        assert f"biomes_{name}" in rna
    assert "splat_json" in rna


def test_a_preset_with_layers_fills_the_sub_panels_and_saves_them_back(empty_scene):
    from worldseed.core import recipe as core_recipe
    from worldseed.operators import terrain as terrain_ops
    from worldseed.operators.bridge import presets

    assert bpy.ops.worldseed.terrain_preset_apply(preset="Alpine Mountains") == {"FINISHED"}
    settings = bpy.context.scene.worldseed.terrain
    preset = presets.load("Alpine Mountains")
    assert settings.erosion_enabled and settings.erosion_droplets_per_km2 == preset.terrain.erosion.droplets_per_km2
    assert settings.biomes_enabled and [layer.name for layer in settings.splats] == [s.name for s in preset.splat]
    assert settings.splats[1].biomes == "forest, taiga, rain forest"
    recipe = terrain_ops.settings_recipe(bpy.context.scene)
    assert (recipe.terrain.erosion, recipe.biomes, recipe.splat) == (
        preset.terrain.erosion,
        preset.biomes,
        preset.splat,
    )
    assert core_recipe.loads(core_recipe.dumps(recipe)) == recipe
