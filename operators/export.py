"""Export for Unity: the sidebar's way to the same files a headless run writes (:mod:`.bridge.world`)."""

import os

import bpy

from ..core.recipe import EXPORT_LIMITS, ExportSpec
from .bridge import world
from .bridge.export import ExportError
from .bridge.query import worldseed_roots


def _flag(name, default):
    limit = EXPORT_LIMITS[name]
    return bpy.props.BoolProperty(name=limit.label, description=limit.description, default=default)


class WORLDSEED_OT_export_unity(bpy.types.Operator):
    """Export Worldseed objects (or the selection) as FBX for Unity: rotation 0, scale 1, Y up, metres"""

    bl_idname = "worldseed.export_unity"
    bl_label = "Export for Unity"
    bl_options = {"REGISTER"}

    filepath: bpy.props.StringProperty(subtype="FILE_PATH", options={"SKIP_SAVE"})
    filter_glob: bpy.props.StringProperty(default="*.fbx;*.glb", options={"HIDDEN"})
    scope: bpy.props.EnumProperty(
        name="Objects",
        default="WORLDSEED",
        items=[
            ("WORLDSEED", "Worldseed Objects", "Every object Worldseed generated in this scene"),
            ("SELECTION", "Selection", "The selected objects and their children"),
        ],
    )
    formats: bpy.props.EnumProperty(
        name="Formats",
        default="FBX",
        items=[
            ("FBX", "FBX", "FBX for Unity's model importer"),
            ("GLB", "glTF Binary", "glTF binary (.glb), for glTFast and other glTF importers"),
            ("BOTH", "FBX and glTF", "Both files side by side"),
        ],
    )
    per_object: bpy.props.BoolProperty(
        name="One File per Object",
        default=False,
        description="Write one file per top-level object, named after it, in the chosen folder",
    )
    placements: _flag("placements", True)
    heightmap_raw: _flag("heightmap_raw", False)
    relief: bpy.props.BoolProperty(
        name="Relief Map", default=False, description="Also write <name>_relief.png, a shaded-relief map of the terrain"
    )
    render: bpy.props.BoolProperty(
        name="Render", default=False, description="Also write <name>_preview.png, a 3-D preview render (needs OpenGL)"
    )

    def invoke(self, context, event):
        if not self.filepath:
            stem = os.path.splitext(os.path.basename(bpy.data.filepath))[0] or "world"
            self.filepath = os.path.join(os.path.dirname(bpy.data.filepath) or os.getcwd(), stem + ".fbx")
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        if not self.filepath:
            self.report({"ERROR"}, "filepath must name the file to write, got an empty path")
            return {"CANCELLED"}
        objects = worldseed_roots(context.scene) if self.scope == "WORLDSEED" else list(context.selected_objects)
        spec = ExportSpec(
            fbx=self.formats in ("FBX", "BOTH"),
            glb=self.formats in ("GLB", "BOTH"),
            per_object=self.per_object,
            heightmap_raw=self.heightmap_raw,
            preview=self.relief,
            render=self.render,
            placements=self.placements,
        )
        path = bpy.path.abspath(self.filepath)
        if os.path.isdir(path):
            self.report({"ERROR"}, f"filepath {path!r} is a folder; give the name of the file to write")
            return {"CANCELLED"}
        if os.path.splitext(path)[1].lower() not in ("", ".fbx", ".glb"):
            self.report({"ERROR"}, f"filepath must end in .fbx (or .glb), got {os.path.basename(path)!r}")
            return {"CANCELLED"}
        folder, name = os.path.dirname(os.path.abspath(path)), os.path.splitext(os.path.basename(path))[0]
        try:
            if not objects:
                raise ExportError(
                    "nothing to export: no Worldseed objects in the scene"
                    if self.scope == "WORLDSEED"
                    else "nothing to export: select the objects to export"
                )
            written = world.write_exports(
                objects,
                folder,
                name,
                spec,
                scene=context.scene,
                relief_file=f"{name}_relief.png",
                render_file=f"{name}_preview.png",
            )
        except (ExportError, OSError) as err:
            self.report({"ERROR"}, f"Worldseed export failed: {err}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Worldseed: wrote {', '.join(os.path.basename(p) for p in written)}")
        return {"FINISHED"}


classes = (WORLDSEED_OT_export_unity,)
