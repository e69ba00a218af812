"""Sidebar (View3D > N > Worldseed): the Trees panel and its sub-panels. Drawing only."""

from typing import TYPE_CHECKING, Literal

import bpy

from .common import SidebarPanel

#: Rule lines listed in the panel before "... n more".
SHOWN_RULES = 8


def draw_rules(layout, settings):
    """Axiom, the rules (field or text), the constants and, in red, why the rules do not parse."""
    box = layout.box()
    box.use_property_split = True
    box.prop(settings, "axiom")
    rules = settings.rules_source()
    if settings.rules_text is not None:
        row = box.row(align=True)
        row.label(text=f"Rules from text {settings.rules_text.name!r}", icon="TEXT")
        row.operator("worldseed.tree_rules_detach", text="", icon="X")
    else:
        box.prop(settings, "rules")
    lines = [ln.strip() for ln in rules.replace(";", "\n").splitlines() if ln.strip()]
    col = box.column(align=True)
    for line in lines[:SHOWN_RULES]:
        col.label(text=line)
    if len(lines) > SHOWN_RULES:
        col.label(text=f"... {len(lines) - SHOWN_RULES} more")
    box.prop(settings, "constants")
    error = settings.rule_error  # worked out when the rules changed (addon/live.py), not while drawing
    if error:
        err = box.column(align=True)
        err.alert = True
        for i, part in enumerate(error.split("; ")):
            err.label(text=part, icon="ERROR" if i == 0 else "BLANK1")
    box.operator("worldseed.tree_edit_rules", icon="TEXT")


class WORLDSEED_PT_trees(SidebarPanel, bpy.types.Panel):
    bl_label = "Trees"
    bl_idname = "WORLDSEED_PT_trees"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.trees
        layout.prop(settings, "species", text="")
        col = layout.column(align=True)
        col.use_property_split = True
        col.prop(settings, "name")
        row = col.row(align=True)
        row.prop(settings, "seed")
        row.operator("worldseed.tree_reseed", text="", icon="FILE_REFRESH")
        col.prop(settings, "iterations")
        draw_rules(layout, settings)
        layout.operator("worldseed.tree_add", icon="OUTLINER_OB_CURVES").from_settings = True
        box = layout.box()
        row = box.row(align=True)
        row.prop(settings, "variants")
        row.operator("worldseed.forest_add", text="Grow Forest", icon="OUTLINER_COLLECTION").from_settings = True
        box.prop(settings, "forest_species", text="Species", icon="PRESET")
        root = settings.active_root(context.active_object)
        if root is not None:
            layout.label(text=f"Active: {root.name} ({len(root.children)} LODs)", icon="OBJECT_DATA")


class _TreeFields(SidebarPanel):
    """A closed sub-panel of the Trees panel listing the tree settings named in ``fields``."""

    if TYPE_CHECKING:  # as the Panel it is mixed into types them (no annotation at run time: Blender reads them)
        bl_options: set[Literal["DEFAULT_CLOSED", "HIDE_HEADER", "INSTANCED", "HEADER_LAYOUT_EXPAND"]]
        fields: tuple[str, ...]
    bl_parent_id = "WORLDSEED_PT_trees"
    bl_options = {"DEFAULT_CLOSED"}
    fields = ()

    def draw(self, context):
        settings = context.scene.worldseed.trees
        col = self.layout.column(align=True)
        col.use_property_split = True
        for name in self.fields:
            col.prop(settings, name)


class WORLDSEED_PT_trees_turtle(_TreeFields, bpy.types.Panel):
    bl_label = "Growth"
    bl_idname = "WORLDSEED_PT_trees_turtle"
    fields = (
        "angle",
        "step",
        "width",
        "width_decay",
        "length_decay",
        "order_width_ratio",
        "order_length_ratio",
        "tropism",
        "tropism_strength",
        "jitter",
        "leaf_size",
    )


class WORLDSEED_PT_trees_mesh(_TreeFields, bpy.types.Panel):
    bl_label = "Mesh"
    bl_idname = "WORLDSEED_PT_trees_mesh"
    fields = ("sides", "leaf_shape", "leaf_width", "lods", "billboard", "uv_scale", "bark_colour", "leaf_colour")


classes = (WORLDSEED_PT_trees, WORLDSEED_PT_trees_turtle, WORLDSEED_PT_trees_mesh)
