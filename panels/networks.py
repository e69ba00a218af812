"""Sidebar (View3D > N > Worldseed): the Networks panel, rivers and roads ([rivers], [roads]). Drawing only."""

import bpy

from .common import SidebarPanel

#: The rivers' fields shown first, and the rest under More.
RIVER_FIELDS = ("threshold", "width_scale", "depth_scale", "carve", "lakes")
RIVER_MORE = ("min_width", "bank_slope", "bank_width", "lake_min_area", "lake_min_depth", "water_reach")
ROAD_FIELDS = ("network", "road_class", "shortcut_class", "shortcuts", "detour", "directions")
ROAD_CLASSES = ("highway", "road", "trail")
ROAD_COSTS = ("grade_weight", "curvature", "bridge_cost", "max_bridge", "forest_weight", "reuse")
ROAD_SHAPE = ("margin", "repose", "embankment", "bridge_height", "coarse")


class WORLDSEED_UL_road_points(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        layout.prop(item, "object", text="", emboss=False, icon="EMPTY_AXIS")


class WORLDSEED_PT_networks(SidebarPanel, bpy.types.Panel):
    bl_label = "Networks"
    bl_idname = "WORLDSEED_PT_networks"

    def draw(self, context):
        layout = self.layout
        ws = context.scene.worldseed
        rivers, roads = ws.rivers, ws.roads
        box = layout.box()
        box.prop(rivers, "enabled")
        col = box.column(align=True)
        col.use_property_split = True
        col.active = rivers.enabled
        for name in RIVER_FIELDS:
            col.prop(rivers, name)
        box = layout.box()
        box.prop(roads, "enabled")
        col = box.column(align=True)
        col.use_property_split = True
        col.active = roads.enabled
        col.prop(roads, "points_source")
        if roads.points_source == "TEXT":
            col.prop(roads, "points_text", text="")
        elif roads.points_source == "COLLECTION":
            col.prop(roads, "points_collection")
        else:
            box.template_list("WORLDSEED_UL_road_points", "", roads, "points_objects", roads, "active_point", rows=3)
        row = box.row(align=True)
        row.operator("worldseed.road_point_add", icon="EMPTY_SINGLE_ARROW")
        row.operator("worldseed.road_points_pick", icon="RESTRICT_SELECT_OFF")
        col = box.column(align=True)
        col.use_property_split = True
        col.active = roads.enabled
        for name in ROAD_FIELDS:
            col.prop(roads, name)
        terrain = ws.terrain.active_root(context.active_object)
        layout.operator("worldseed.networks_build", icon="MOD_OCEAN")
        if terrain is not None:
            row = layout.row(align=True)
            row.operator("worldseed.networks_update", icon="FILE_REFRESH")
            row.operator("worldseed.networks_load_settings", icon="IMPORT")
        else:
            layout.label(text="No terrain active: Build adds one", icon="INFO")


class WORLDSEED_PT_networks_more(SidebarPanel, bpy.types.Panel):
    bl_label = "Rivers and Roads: More"
    bl_idname = "WORLDSEED_PT_networks_more"
    bl_parent_id = "WORLDSEED_PT_networks"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        ws = context.scene.worldseed
        col = self.layout.column(align=True)
        col.use_property_split = True
        col.label(text="Rivers")
        for name in RIVER_MORE:
            col.prop(ws.rivers, name)
        col.separator()
        col.label(text="Road Classes")
        for cls in ROAD_CLASSES:
            col.prop(ws.roads, f"{cls}_width")
            col.prop(ws.roads, f"{cls}_max_grade")
        col.separator()
        col.label(text="Road Costs")
        for name in ROAD_COSTS:
            col.prop(ws.roads, name)
        col.separator()
        col.label(text="Cut, Fill and Bridges")
        for name in ROAD_SHAPE:
            col.prop(ws.roads, name)


classes = (WORLDSEED_UL_road_points, WORLDSEED_PT_networks, WORLDSEED_PT_networks_more)
