"""Sidebar (View3D > N > Worldseed): the Scatter panel with its list of prop layers. Drawing only."""

import bpy

from .common import SidebarPanel


class WORLDSEED_UL_scatter_layers(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="PARTICLES")
        row.label(text=item.builtin if item.source == "BUILTIN" else item.source.title())


class WORLDSEED_PT_scatter(SidebarPanel, bpy.types.Panel):
    bl_label = "Scatter"
    bl_idname = "WORLDSEED_PT_scatter"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.scatter
        row = layout.row()
        row.template_list("WORLDSEED_UL_scatter_layers", "", settings, "layers", settings, "active_layer", rows=3)
        col = row.column(align=True)
        col.operator("worldseed.scatter_layer_add", text="", icon="ADD")
        col.operator("worldseed.scatter_layer_remove", text="", icon="REMOVE")
        if 0 <= settings.active_layer < len(settings.layers):
            draw_layer(layout, settings.layers[settings.active_layer])
        row = layout.row(align=True)
        row.prop(settings, "seed")
        row.operator("worldseed.scatter_reseed", text="", icon="FILE_REFRESH")
        scatter = settings.active_root(context.active_object)
        if scatter is None and context.scene.worldseed.terrain.active_root(context.active_object) is None:
            layout.label(text="Select a Worldseed terrain to scatter on", icon="INFO")
        layout.operator("worldseed.scatter_add", icon="PARTICLES")
        if scatter is not None:
            box = layout.box()
            box.label(text=f"{scatter.name}: {len(scatter.data.vertices):,} props", icon="OBJECT_DATA")
            row = box.row(align=True)
            row.operator("worldseed.scatter_update", icon="FILE_REFRESH")
            row.operator("worldseed.scatter_make_real", icon="DUPLICATE")
            box.prop(settings, "auto_update")
            if settings.last_error:
                err = box.column(align=True)
                err.alert = True
                err.label(text=settings.last_error, icon="ERROR")


def draw_layer(layout, layer):
    """One layer's props, spacing, rules and placement."""
    col = layout.column(align=True)
    col.use_property_split = True
    col.prop(layer, "source")
    if layer.source == "BUILTIN":
        col.prop(layer, "builtin")
        col.prop(layer, "variants")
    else:
        col.prop(layer, "collection" if layer.source == "COLLECTION" else "object")
    col.separator()
    for name in (
        "radius",
        "radius_max",
        "height_range",
        "slope_range",
        "patchiness",
        "patch_scale",
        "above_sea",
        "keep_away",
    ):
        col.prop(layer, name)
    for name in ("biomes", "deposits", "flow"):  # the terrain's layers' rules
        if name in layer.bl_rna.properties:
            col.prop(layer, name)
    col.separator()
    for name in ("scale_range", "align", "max_tilt", "sink", "unity_tree"):
        col.prop(layer, name)


classes = (WORLDSEED_UL_scatter_layers, WORLDSEED_PT_scatter)
