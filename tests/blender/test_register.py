"""Registration: clean register/unregister, twice, leaving nothing behind."""

import bpy
import pytest

OPERATORS = (
    "terrain_add",
    "terrain_update",
    "terrain_reseed",
    "terrain_load_settings",
    "terrain_preset_apply",
    "terrain_preset_save",
    "terrain_preset_remove",
    "height_curve_add",
    "height_curve_reset",
    "export_unity",
    "world_build",
    "world_export",
)


def _registered(addon):
    return [cls for cls in addon.all_classes() if getattr(bpy.types, cls.__name__, None) is cls or cls.is_registered]


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
    from worldseed.core import heightmap, noise
    from worldseed.core.terrain import spec as core_terrain_spec

    rna = bpy.context.scene.worldseed.terrain.bl_rna.properties
    assert (rna["octaves"].hard_min, rna["octaves"].hard_max) == noise.OCTAVES
    assert (rna["terraces"].hard_min, rna["terraces"].hard_max) == heightmap.TERRACES
    assert (rna["resolution"].hard_min, rna["resolution"].hard_max) == core_terrain_spec.RESOLUTION
    assert [i.identifier for i in rna["basis"].enum_items] == list(noise.BASES)


def _property_groups(scene):
    settings = scene.worldseed
    layer = settings.scatter.layers.add()
    return {
        "world": settings.world,
        "terrain": settings.terrain,
        "rivers": settings.rivers,
        "roads": settings.roads,
        "trees": settings.trees,
        "scatter": layer,
        "export": settings.export,
    }


def test_every_setting_is_generated_from_its_family_limits_table(addon):
    """Each family's property group holds every shown field of its core limits table, with that range,
    label and description: the range is written once, in core."""
    from worldseed.core import recipe

    groups = _property_groups(bpy.context.scene)
    checked = 0
    for section in recipe.SECTIONS:
        if section.key not in groups:
            continue
        rna = groups[section.key].bl_rna.properties
        for name, limit in section.limits.items():
            if limit.kind == "custom" or name not in rna:
                continue
            prop = rna[name]
            if name != "name":  # a PropertyGroup's ``name`` keeps Blender's own description
                assert (prop.name, prop.description) == (limit.label, limit.description), f"{section.key}.{name}"
            if limit.kind in ("int", "float", "range", "vector"):
                assert (prop.hard_min, prop.hard_max) == pytest.approx(limit.bounds), f"{section.key}.{name}"
            if limit.kind == "choice":
                assert [i.identifier for i in prop.enum_items] == list(limit.bounds)
            checked += 1
    assert checked >= 60  # terrain, trees, scatter layers and export all took part


def test_the_recipe_registry_drives_registration_and_the_sidebar_order(addon):
    """Families are found by their recipe section's name: one pointer each under scene.worldseed, and the
    sidebar's top-level panels in the order of core.recipe.SECTIONS."""
    from worldseed.core import recipe

    settings = bpy.context.scene.worldseed
    assert [k for k in recipe.SECTION_KEYS if k in settings.bl_rna.properties] == [
        "world",
        "terrain",
        "rivers",
        "roads",
        "settlements",
        "trees",
        "ecosystem",
        "scatter",
        "level",
        "export",
    ]
    panels = [
        cls for cls in addon.all_classes() if issubclass(cls, bpy.types.Panel) and not getattr(cls, "bl_parent_id", "")
    ]
    ordered = [p.bl_label for p in sorted(panels, key=lambda p: p.bl_order)]
    assert ordered == [
        "World",
        "Terrain",
        "Networks",
        "Settlements",
        "Trees",
        "Ecosystem",
        "Scatter",
        "Levels",
        "Export",
    ]
