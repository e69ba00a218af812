"""Sidebar (View3D > N > Worldseed): the Settlements panel. Drawing only."""

import bpy

from .common import SidebarPanel


class WORLDSEED_PT_settlements(SidebarPanel, bpy.types.Panel):
    bl_label = "Settlements"
    bl_idname = "WORLDSEED_PT_settlements"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.settlements
        layout.use_property_split = True
        col = layout.column(align=True)
        for name in ("count", "density", "types", "spacing", "scale"):
            col.prop(settings, name)
        col = layout.column(align=True)
        for name in ("max_slope", "pad_slope", "flood_height"):
            col.prop(settings, name)
        col = layout.column(align=True)
        for name in ("water_reach", "water_weight", "road_reach", "road_weight", "sun_weight"):
            col.prop(settings, name)
        col = layout.column(align=True)
        for name in ("street_width", "storey_height", "roofs", "level"):
            col.prop(settings, name)
        layout.operator("worldseed.settlements_add", icon="HOME")
        root = settings.active_root(context.active_object)
        box = layout.box()
        if root is None:
            box.label(text="Select Worldseed settlements to update them", icon="INFO")
        else:
            box.label(text=f"Active: {root.name}", icon="OBJECT_DATA")
            row = box.row(align=True)
            row.operator("worldseed.settlements_update", icon="FILE_REFRESH")
            row.operator("worldseed.settlements_load_settings", text="", icon="IMPORT")
        if settings.last_error:
            layout.label(text=settings.last_error, icon="ERROR")


classes = (WORLDSEED_PT_settlements,)
