"""Sidebar (View3D > N > Worldseed): the World panel, a tiled world. Drawing only."""

import bpy

from .common import SidebarPanel

#: Grids up to this many tiles show each tile's state (built in the scene or not).
SHOWN_TILES = 64


class WORLDSEED_PT_world(SidebarPanel, bpy.types.Panel):
    bl_label = "World"
    bl_idname = "WORLDSEED_PT_world"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        settings = context.scene.worldseed.world
        terrain = context.scene.worldseed.terrain
        col = layout.column(align=True)
        col.use_property_split = True
        col.prop(settings, "tiles_x")
        col.prop(settings, "tiles_z")
        col.prop(settings, "halo")
        tiled = settings.tiles_x * settings.tiles_z > 1
        if tiled and terrain.normalize != "fixed":
            layout.label(text="Tiles take Normalize Fixed (their edges join)", icon="INFO")
        col = layout.column(align=True)
        col.prop(settings, "build_all")
        if not settings.build_all:
            row = col.row(align=True)
            row.prop(settings, "x0", text="X")
            row.prop(settings, "x1", text="to")
            row = col.row(align=True)
            row.prop(settings, "z0", text="Z")
            row.prop(settings, "z1", text="to")
        col = layout.column(align=True)
        col.prop(settings, "folder", text="")
        col.prop(settings, "file_name")
        col.prop(settings, "scatter")
        layout.operator("worldseed.world_build", icon="MESH_GRID")
        self.draw_tiles(layout, settings, settings.file_name)
        layout.operator("worldseed.world_export", icon="EXPORT")
        if settings.last_error:
            layout.label(text=settings.last_error, icon="ERROR")

    def draw_tiles(self, layout, settings, world_name):
        """A small grid of the tiles, +Z at the top as in Unity's top view, +X to the right: in the
        scene, built (their files complete in the world folder), or not built."""
        nx, nz = settings.tiles_x, settings.tiles_z
        complete = {tuple(int(v) for v in t.split(",")) for t in settings.complete_tiles.split(";") if t}
        objects = bpy.context.scene.objects
        shown = {(x, z) for z in range(nz) for x in range(nx) if objects.get(f"{world_name}_{x}_{z}") is not None}
        built = len(complete & {(x, z) for z in range(nz) for x in range(nx)})
        if nx * nz <= SHOWN_TILES:
            box = layout.box()
            for z in reversed(range(nz)):
                row = box.row(align=True)
                for x in range(nx):
                    icon = (
                        "CHECKBOX_HLT" if (x, z) in shown else "FILE_TICK" if (x, z) in complete else "CHECKBOX_DEHLT"
                    )
                    row.label(text="", icon=icon)
            layout = box
        layout.label(text=f"{built} of {nx * nz} tiles built, {len(shown)} in the scene")


classes = (WORLDSEED_PT_world,)
