"""The sidebar panels draw against real Blender data.

Background Blender cannot rasterise a UI, so ``draw`` runs with a layout
recorder: every ``prop`` must name a real RNA property of the real settings,
every ``operator``/``menu`` a registered one, every operator property set by
the panel must exist. This catches the usual panel bugs (renamed properties,
typos in idnames) in each state the panel can be in.
"""

import types

import bpy


class Recorder:
    def __init__(self, calls):
        self.__dict__["calls"] = calls

    def __setattr__(self, name, value):  # active, enabled, use_property_split, ...
        assert name in {"active", "enabled", "use_property_split", "use_property_decorate", "alert", "scale_y"}, name
        self.calls.append(("set", name))

    def _child(self, *args, **kwargs):
        return Recorder(self.calls)

    row = column = box = split = _child

    def prop(self, data, name, **kwargs):
        assert name in data.bl_rna.properties, f"{type(data).__name__} has no property {name!r}"
        self.calls.append(("prop", name))

    def operator(self, idname, **kwargs):
        module, _, op = idname.partition(".")
        rna = getattr(getattr(bpy.ops, module), op).get_rna_type()
        self.calls.append(("operator", idname))
        return OperatorProps(rna)

    def menu(self, idname, **kwargs):
        assert getattr(bpy.types, idname, None) is not None, f"menu {idname} not registered"
        self.calls.append(("menu", idname))

    def label(self, **kwargs):
        self.calls.append(("label", kwargs.get("text", "")))

    def separator(self, **kwargs):
        pass

    def template_curve_mapping(self, data, name, **kwargs):
        assert name in data.bl_rna.properties
        self.calls.append(("curve", name))

    def template_list(self, list_id, _list_name, data, name, active_data, active_name, **kwargs):
        assert getattr(bpy.types, list_id, None) is not None, f"UI list {list_id} not registered"
        assert name in data.bl_rna.properties and active_name in active_data.bl_rna.properties
        self.calls.append(("list", name))


class OperatorProps:
    def __init__(self, rna):
        self.__dict__["rna"] = rna

    def __setattr__(self, name, value):
        assert name in self.rna.properties, f"{self.rna.identifier} has no property {name!r}"


class PanelSelf:
    """Stands in for the panel instance Blender would pass: its layout plus the class's own methods."""

    def __init__(self, cls, layout):
        self.cls, self.layout = cls, layout

    def __getattr__(self, name):
        attr = getattr(self.cls, name)
        return types.MethodType(attr, self) if callable(attr) and not isinstance(attr, type) else attr


def draw(panel_cls, context=None):
    calls = []
    panel_cls.draw(PanelSelf(panel_cls, Recorder(calls)), context or bpy.context)
    return calls


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
