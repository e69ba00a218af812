"""Sidebar: the Export panel, and the File > Export menu's entry. Drawing only."""

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
        box = layout.box()
        box.label(text="Recipe: what a headless run writes", icon="FILE_TEXT")
        settings = context.scene.worldseed.export
        col = box.column(align=True)
        for name in settings.bl_rna.properties.keys():
            if name not in ("rna_type", "name"):
                col.prop(settings, name)
        box.operator("worldseed.recipe_save", icon="FILE_TICK")


def menu_export(self, context):
    """File > Export > Worldseed Recipe (.toml)."""
    self.layout.operator("worldseed.recipe_save", text="Worldseed Recipe (.toml)")


classes = (WORLDSEED_PT_export,)
