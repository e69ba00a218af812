"""Registration: clean register/unregister, twice, leaving nothing behind."""
import bpy

OPERATORS = ("terrain_add", "terrain_update", "terrain_reseed", "terrain_load_settings",
             "terrain_preset_apply", "terrain_preset_save", "terrain_preset_remove",
             "height_curve_add", "height_curve_reset", "export_unity")


def _registered(addon):
    return [cls for cls in addon.all_classes() if getattr(bpy.types, cls.__name__, None) is cls
            or cls.is_registered]


def test_register_unregister_twice(addon):
    for _ in range(2):
        addon.unregister()
        assert not hasattr(bpy.types.Scene, "worldseed")
        assert not any(cls.is_registered for cls in addon.all_classes())
        assert not hasattr(bpy.ops.worldseed, "terrain_add") or "terrain_add" not in dir(bpy.ops.worldseed)
        addon.register()
        assert hasattr(bpy.types.Scene, "worldseed")
        assert all(cls.is_registered for cls in addon.all_classes())
    for name in OPERATORS:
        assert getattr(bpy.ops.worldseed, name).idname() == f"WORLDSEED_OT_{name}"


def test_sidebar_panels_are_in_the_worldseed_tab(addon):
    panels = [c for c in addon.all_classes() if issubclass(c, bpy.types.Panel)]
    assert {p.bl_label for p in panels} >= {"Terrain", "Noise", "Shape", "Mesh", "Export"}
    for panel in panels:
        assert (panel.bl_space_type, panel.bl_region_type, panel.bl_category) == ("VIEW_3D", "UI", "Worldseed")


def test_settings_ranges_come_from_core(addon):
    from worldseed.core import heightmap, noise, recipe
    rna = bpy.context.scene.worldseed.terrain.bl_rna.properties
    assert (rna["octaves"].hard_min, rna["octaves"].hard_max) == noise.OCTAVES
    assert (rna["terraces"].hard_min, rna["terraces"].hard_max) == heightmap.TERRACES
    assert (rna["resolution"].hard_min, rna["resolution"].hard_max) == recipe.RESOLUTION
    assert [i.identifier for i in rna["basis"].enum_items] == list(noise.BASES)
