"""Sidebar (View3D > N > Worldseed): the Terrain panel and its sub-panels. Drawing only."""

import bpy

from ..operators.bridge import curve, presets
from .common import SidebarPanel


class WORLDSEED_MT_terrain_presets(bpy.types.Menu):
    bl_label = "Terrain Presets"
    bl_idname = "WORLDSEED_MT_terrain_presets"

    def draw(self, context):
        layout = self.layout
        for path in presets.builtin_presets():
            name = presets.display_name(path)
            layout.operator("worldseed.terrain_preset_apply", text=name).preset = name
        user = presets.user_presets()
        if user:
            layout.separator()
            for path in user:
                name = presets.display_name(path)
                row = layout.row(align=True)
                row.operator("worldseed.terrain_preset_apply", text=name, icon="USER").preset = name
                row.operator("worldseed.terrain_preset_remove", text="", icon="X").preset = name
        layout.separator()
        layout.operator("worldseed.terrain_preset_save", text="Save Current as Preset...", icon="ADD")


class WORLDSEED_PT_terrain(SidebarPanel, bpy.types.Panel):
    bl_label = "Terrain"
    bl_idname = "WORLDSEED_PT_terrain"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.terrain
        layout.menu("WORLDSEED_MT_terrain_presets", text=settings.preset or "Presets", icon="PRESET")
        col = layout.column(align=True)
        col.use_property_split = True
        col.prop(settings, "name")
        row = col.row(align=True)
        row.prop(settings, "seed")
        row.operator("worldseed.terrain_reseed", text="", icon="FILE_REFRESH")
        col.prop(settings, "resolution")
        col.prop(settings, "size")
        col.prop(settings, "height")
        layout.operator("worldseed.terrain_add", icon="MESH_GRID").from_settings = True
        root = settings.active_root(context.active_object)
        box = layout.box()
        if root is None:
            box.label(text="Select a Worldseed terrain to update it", icon="INFO")
        else:
            box.label(text=f"Active: {root.name}", icon="OBJECT_DATA")
            row = box.row(align=True)
            row.operator("worldseed.terrain_update", icon="FILE_REFRESH")
            row.operator("worldseed.terrain_load_settings", text="", icon="IMPORT")
            box.prop(settings, "auto_update")
        if settings.last_error:
            layout.label(text=settings.last_error, icon="ERROR")


class _TerrainSubPanel(SidebarPanel):
    bl_parent_id = "WORLDSEED_PT_terrain"

    def settings_column(self, context):
        """(settings, a property-split column) for drawing."""
        self.layout.use_property_split = True
        return context.scene.worldseed.terrain, self.layout.column(align=True)


class WORLDSEED_PT_terrain_noise(_TerrainSubPanel, bpy.types.Panel):
    bl_label = "Noise"

    def draw(self, context):
        settings, col = self.settings_column(context)
        for name in ("basis", "kind", "scale", "octaves", "persistence", "lacunarity", "warp", "offset"):
            col.prop(settings, name)


class WORLDSEED_PT_terrain_shape(_TerrainSubPanel, bpy.types.Panel):
    bl_label = "Shape"

    def draw(self, context):
        settings, col = self.settings_column(context)
        layout = self.layout
        col.prop(settings, "normalize")
        col.prop(settings, "falloff")
        sub = col.column(align=True)
        sub.active = settings.falloff != "none"
        sub.prop(settings, "falloff_width")
        col.prop(settings, "redistribution")
        col.prop(settings, "terraces")
        sub = col.column(align=True)
        sub.active = settings.terraces > 0
        sub.prop(settings, "terrace_sharpness")
        col.prop(settings, "sea_level")
        node = curve.curve_node(settings)
        if node is None:
            layout.operator("worldseed.height_curve_add", icon="FCURVE")
        else:
            layout.label(text="Height Curve")
            layout.template_curve_mapping(node, "mapping")
            layout.operator("worldseed.height_curve_reset", icon="LOOP_BACK")


class WORLDSEED_PT_terrain_mesh(_TerrainSubPanel, bpy.types.Panel):
    bl_label = "Mesh"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        settings, col = self.settings_column(context)
        col.prop(settings, "lods")
        col.prop(settings, "material")
        sub = col.column(align=True)
        sub.active = settings.material
        sub.prop(settings, "palette")


def prefixed_props(settings, prefix):
    """Names of the settings' properties that start with ``prefix`` (``erosion_``), in definition order."""
    return [p.identifier for p in settings.bl_rna.properties if p.identifier.startswith(prefix)]


class WORLDSEED_PT_terrain_erosion(_TerrainSubPanel, bpy.types.Panel):
    bl_label = "Erosion"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        settings = context.scene.worldseed.terrain
        if "erosion_enabled" in settings.bl_rna.properties:
            self.layout.prop(settings, "erosion_enabled", text="")

    def draw(self, context):
        settings, col = self.settings_column(context)
        names = [n for n in prefixed_props(settings, "erosion_") if n != "erosion_enabled"]
        if not names:
            col.label(text="Erosion settings are not available in this version", icon="INFO")
            return
        col.active = getattr(settings, "erosion_enabled", True)
        for name in names:
            col.prop(settings, name)


class WORLDSEED_PT_terrain_biomes(_TerrainSubPanel, bpy.types.Panel):
    bl_label = "Biomes"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header(self, context):
        self.layout.prop(context.scene.worldseed.terrain, "biomes_enabled", text="")

    def draw(self, context):
        settings, col = self.settings_column(context)
        col.active = settings.biomes_enabled
        for name in prefixed_props(settings, "biomes_"):
            if name != "biomes_enabled":
                col.prop(settings, name)


class WORLDSEED_UL_splat_layers(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.prop(item, "color", text="")
        row.prop(item, "name", text="", emboss=False)
        row.label(text=f"{'RGBA'[index % 4]}{index // 4}")  # its channel in the splat images


#: What a texture layer's panel shows, in groups (the rest of its fields are not drawn).
SPLAT_GROUPS = (
    ("color", "texture", "tile_size"),
    ("height_range", "height_fade", "slope_range", "slope_fade"),
    ("biomes", "biome_fade", "deposits", "deposit_depth", "flow", "flow_range"),
    ("river", "bank", "road", "trail"),
    ("patchiness", "noise_scale", "noise_fade", "strength"),
)


class WORLDSEED_PT_terrain_splats(_TerrainSubPanel, bpy.types.Panel):
    bl_label = "Texture Layers"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.terrain
        row = layout.row()
        row.template_list("WORLDSEED_UL_splat_layers", "", settings, "splats", settings, "active_splat", rows=4)
        col = row.column(align=True)
        col.operator("worldseed.splat_layer_add", text="", icon="ADD")
        col.operator("worldseed.splat_layer_remove", text="", icon="REMOVE")
        col.separator()
        col.operator("worldseed.splat_layer_move", text="", icon="TRIA_UP").direction = "UP"
        col.operator("worldseed.splat_layer_move", text="", icon="TRIA_DOWN").direction = "DOWN"
        if not 0 <= settings.active_splat < len(settings.splats):
            layout.label(text="No texture layers: the height-and-slope colours", icon="INFO")
            return
        layer = settings.splats[settings.active_splat]
        col = layout.column(align=True)
        col.use_property_split = True
        if settings.active_splat == 0:
            col.label(text="The ground: it takes what the later layers leave", icon="INFO")
        for group in SPLAT_GROUPS if settings.active_splat else SPLAT_GROUPS[:1]:
            for name in group:
                if name in layer.bl_rna.properties:
                    col.prop(layer, name)
            col.separator()


classes = (
    WORLDSEED_MT_terrain_presets,
    WORLDSEED_PT_terrain,
    WORLDSEED_PT_terrain_noise,
    WORLDSEED_PT_terrain_shape,
    WORLDSEED_PT_terrain_erosion,
    WORLDSEED_PT_terrain_biomes,
    WORLDSEED_UL_splat_layers,
    WORLDSEED_PT_terrain_splats,
    WORLDSEED_PT_terrain_mesh,
)
