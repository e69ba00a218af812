"""The sidebar panels draw against real Blender data.

Background Blender cannot rasterise a UI, so ``draw`` runs with a layout
recorder: every ``prop`` must name a real RNA property of the real settings,
every ``operator``/``menu`` a registered one, every operator property set by
the panel must exist. This catches the usual panel bugs (renamed properties,
typos in idnames) in each state the panel can be in.
"""

import bpy

from ._panel_cases import draw


def _panels(addon):
    return [c for c in addon.all_classes() if issubclass(c, (bpy.types.Panel, bpy.types.Menu))]


def test_every_panel_draws(addon, empty_scene):
    for cls in _panels(addon):
        assert draw(cls), f"{cls.__name__} drew nothing"


def test_terrain_panel_offers_update_only_for_an_active_terrain(addon, empty_scene):
    calls = draw(bpy.types.WORLDSEED_PT_terrain)
    assert ("operator", "worldseed.terrain_add") in calls
    assert ("operator", "worldseed.terrain_update") not in calls
    bpy.ops.worldseed.terrain_add(resolution=9)
    calls = draw(bpy.types.WORLDSEED_PT_terrain)
    assert ("operator", "worldseed.terrain_update") in calls and ("prop", "auto_update") in calls


def test_shape_panel_shows_the_curve_widget_once_there_is_one(addon, empty_scene):
    assert ("operator", "worldseed.height_curve_add") in draw(bpy.types.WORLDSEED_PT_terrain_shape)
    bpy.ops.worldseed.height_curve_add()
    assert ("curve", "mapping") in draw(bpy.types.WORLDSEED_PT_terrain_shape)


def test_noise_panel_shows_every_noise_parameter(addon, empty_scene):
    shown = {name for kind, name in draw(bpy.types.WORLDSEED_PT_terrain_noise) if kind == "prop"}
    assert shown == {"basis", "kind", "scale", "octaves", "persistence", "lacunarity", "warp", "offset"}


def test_every_terrain_setting_is_on_some_panel(addon, empty_scene):
    from worldseed.operators.bridge import sections

    bpy.ops.worldseed.terrain_add(resolution=9)
    shown = set()
    for cls in _panels(addon):
        shown |= {name for kind, name in draw(cls) if kind == "prop"}
    assert set(sections.adapter("terrain").fields()) | {"name", "seed"} <= shown


def test_presets_menu_lists_builtin_presets(addon, empty_scene):
    calls = draw(bpy.types.WORLDSEED_MT_terrain_presets)
    assert calls.count(("operator", "worldseed.terrain_preset_apply")) >= 5


def test_tree_panel_shows_rule_errors_in_red(addon, empty_scene):
    settings = bpy.context.scene.worldseed.trees
    assert ("set", "alert") not in draw(bpy.types.WORLDSEED_PT_trees)
    settings.rules = "F -> F[+F"
    calls = draw(bpy.types.WORLDSEED_PT_trees)
    assert ("set", "alert") in calls
    assert any(kind == "label" and "unbalanced" in text for kind, text in calls)


def test_every_tree_setting_is_on_some_panel(addon, empty_scene):
    from worldseed.operators.bridge import sections

    shown = set()
    for cls in _panels(addon):
        shown |= {name for kind, name in draw(cls) if kind == "prop"}
    assert set(sections.adapter("trees").fields()) <= shown


def test_scatter_panel_shows_the_active_layer_and_scatter_actions(addon, empty_scene):
    calls = draw(bpy.types.WORLDSEED_PT_scatter)
    assert ("list", "layers") in calls and ("prop", "radius") not in calls
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    bpy.ops.worldseed.terrain_add(resolution=17)
    calls = draw(bpy.types.WORLDSEED_PT_scatter)
    layer_fields = {"radius", "slope_range", "height_range", "patchiness", "align", "max_tilt", "sink", "unity_tree"}
    assert layer_fields <= {name for kind, name in calls if kind == "prop"}
    assert ("operator", "worldseed.scatter_update") not in calls
    bpy.ops.worldseed.scatter_add()
    assert ("operator", "worldseed.scatter_make_real") in draw(bpy.types.WORLDSEED_PT_scatter)
