"""Sidebar (View3D > N > Worldseed): the Levels panel. Drawing only."""

import bpy

from .common import SidebarPanel


class WORLDSEED_PT_level(SidebarPanel, bpy.types.Panel):
    bl_label = "Levels"
    bl_idname = "WORLDSEED_PT_level"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.level
        row = layout.row(align=True)
        row.prop(settings, "seed")
        row.operator("worldseed.level_reseed", text="", icon="FILE_REFRESH")
        layout.use_property_split = True
        col = layout.column(align=True)
        for name in settings.shown_fields():
            col.prop(settings, name)
        if settings.uses_wfc_tileset():
            col.prop(settings, "wfc_tileset")
            if settings.wfc_tileset == "FILE":
                col.prop(settings, "tileset_file")
        if settings.uses_sample():
            col = layout.column(align=True)
            col.prop(settings, "sample_source")
            source = {"PRESET": "sample_preset", "FILE": "sample_file", "IMAGE": "sample_image"}
            col.prop(settings, source[settings.sample_source], text="")
            col.prop(settings, "classes")
        col = layout.column(align=True)
        for name in settings.own_fields():
            col.prop(settings, name)
        if settings.uses_constraints():
            col = layout.column(align=True)
            row = col.row()
            row.active = settings.connected  # the points are linked through the connected region
            row.prop(settings, "connect_points")
            col.prop(settings, "counts")
            col.prop(settings, "fixed")
        col = layout.column(align=True)
        tiles = settings.uses_wfc_tileset()
        if tiles:
            col.prop(settings, "tile_objects")
        if not (tiles and settings.tile_objects is not None):
            col.prop(settings, "geometry")
            if settings.geometry == "KIT":
                col.prop(settings, "kit")
        layout.operator("worldseed.level_add", icon="MOD_BUILD").from_settings = True
        root = settings.active_root(context.active_object)
        box = layout.box()
        if root is None:
            box.label(text="Select a Worldseed level to update it", icon="INFO")
        else:
            box.label(text=f"Active: {root.name}", icon="OBJECT_DATA")
            row = box.row(align=True)
            row.operator("worldseed.level_update", icon="FILE_REFRESH")
            row.operator("worldseed.level_load_settings", text="", icon="IMPORT")
            box.prop(settings, "auto_update")
            if settings.auto_update and not settings.live_rebuilds():
                box.label(text="Large or constrained WFC level: press Update Level", icon="INFO")
            if settings.kit_of(root) is not None:
                box.operator("worldseed.level_make_real", icon="OUTLINER_OB_GROUP_INSTANCE")
            image = settings.map_of(root)
            if image is not None:
                box.template_icon(icon_value=box.icon(image), scale=10.0)
        if settings.last_error:
            layout.label(text=settings.last_error, icon="ERROR")


classes = (WORLDSEED_PT_level,)
