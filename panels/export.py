"""Sidebar: the Export panel. Drawing only."""

import bpy

from .common import SidebarPanel


class WORLDSEED_PT_export(SidebarPanel, bpy.types.Panel):
    bl_label = "Export"
    bl_idname = "WORLDSEED_PT_export"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        col = layout.column(align=True)
        op = col.operator("worldseed.export_unity", text="Export Worldseed Objects", icon="EXPORT")
        op.scope = "WORLDSEED"
        op = col.operator("worldseed.export_unity", text="Export Selection", icon="RESTRICT_SELECT_OFF")
        op.scope = "SELECTION"
        layout.label(text="FBX: rotation 0, scale 1, Y up, metres", icon="INFO")


classes = (WORLDSEED_PT_export,)
