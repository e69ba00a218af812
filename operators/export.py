"""Export for Unity: the sidebar's way to the same files a headless run writes (:mod:`.bridge.world`).

Big scatters export modally, with Blender's progress bar and Esc to cancel
(which removes every temporary object and file and leaves the scene and the
earlier files as they were).
"""

import dataclasses
import os

import bpy

from ..core.export import LIMITS, ExportSpec
from .bridge import export, world
from .bridge import terrain as bridge_terrain
from .bridge import terrain_layers as bridge_layers
from .bridge.export import ExportError
from .bridge.query import is_terrain, worldseed_roots
from .common import ModalBuild

#: Exports with more scattered instances than this run modally (progress bar, Esc to cancel).
MODAL_INSTANCES = 1_000

SCATTER_MODE_ITEMS = [
    (
        "AUTO",
        "Auto",
        f"Instances as objects up to {export.PROP_LIBRARY_ABOVE:,} instances, a prop library above",
    ),
    ("OBJECTS", "Instances as Objects", "Every scattered instance an object in the FBX (a tree with its LODs)"),
    (
        "LIBRARY",
        "Prop Library + Placements",
        "Each prop once in <name>_props.fbx, placed by <name>_placements.json (for tens of thousands of props)",
    ),
]


def export_steps(context, objects, path, spec, *, scatter_mode="auto", relief_file=None, render_file=None):
    """Write every file ``spec`` asks for, as :func:`.bridge.world.write_exports` does, yielding
    ``(done, total, stage)``; returns ``(paths, export_paths)`` (the final paths, and the
    :class:`.bridge.export.ExportPaths` of the FBX/glTF part, which says what became of the scatters).

    Everything goes through one staging folder under the output folder's lock (all or nothing);
    closing the generator early leaves the folder as it was.
    """
    folder, name = os.path.dirname(os.path.abspath(path)), os.path.splitext(os.path.basename(path))[0]
    try:
        os.makedirs(folder, exist_ok=True)  # as the headless run does
    except OSError as err:
        raise ExportError(f"export folder {folder!r} cannot be created: {err.strerror or err}") from None
    formats = tuple(f for f in ("fbx", "glb") if getattr(spec, f))
    layers, heights = {}, {}
    if spec.heightmap_raw or spec.preview:  # terrains' layers (erosion ...) not kept: worked out with progress
        for root in (o for o in objects if is_terrain(o)):
            recipe = bridge_terrain.stored_recipe(root)
            if bridge_layers.has_layers(recipe):
                kept = yield from bridge_layers.worker_steps(recipe)
                layers[root.name], heights[root.name] = kept, kept.heights
    with world.output_folder(folder) as stage:
        parts = export.ExportPaths()
        if formats:
            with world.level_kits_as_objects(objects):  # a kit level's modules as objects in the FBX
                parts = yield from export.export_steps(
                    objects,
                    os.path.join(stage.path, f"{name}.fbx"),
                    formats=formats,
                    per_object=spec.per_object,
                    scatter_mode=scatter_mode,
                )
        rest = world.write_exports(
            objects,
            folder,
            name,
            dataclasses.replace(spec, fbx=False, glb=False),
            scene=context.scene,
            relief_file=relief_file or f"{name}_relief.png",
            render_file=render_file or f"{name}_preview.png",
            stage=stage,
            heights=heights,
            layers=layers,
        )
        staged = list(dict.fromkeys([*parts, *rest]))  # the prop library wrote the placement file already
        paths = stage.commit(staged)
    return paths, parts


def erodes_first(objects, spec):
    """Whether an export of ``objects`` has a terrain's layers (erosion ...) to work out first (not
    kept from its build): then it runs modally, with progress and Esc, in a window."""
    if bpy.app.background or not (spec.heightmap_raw or spec.preview):
        return False
    recipes = [bridge_terrain.stored_recipe(o) for o in objects if is_terrain(o)]
    return any(bridge_layers.has_layers(r) and not bridge_layers.is_kept(r) for r in recipes)


def _flag(name, default):
    limit = LIMITS[name]
    return bpy.props.BoolProperty(name=limit.label, description=limit.description, default=default)


class WORLDSEED_OT_export_unity(ModalBuild, bpy.types.Operator):
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
    scatter_mode: bpy.props.EnumProperty(
        name="Scatters",
        default="AUTO",
        items=SCATTER_MODE_ITEMS,
        description="How scattered props go to Unity: objects in the FBX, or a prop library plus placements",
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
        try:
            if not objects:
                raise ExportError(
                    "nothing to export: no Worldseed objects in the scene"
                    if self.scope == "WORLDSEED"
                    else "nothing to export: select the objects to export"
                )
            instances = sum(len(o.data.vertices) for o in export.scatters_among(objects))
            steps = export_steps(context, objects, path, spec, scatter_mode=self.scatter_mode.lower())
            if context.window is not None and (instances > MODAL_INSTANCES or erodes_first(objects, spec)):
                return self.start_modal(context, steps, "exporting for Unity")
            while True:
                try:
                    next(steps)
                except StopIteration as stop:
                    result = stop.value
                    break
        except (ExportError, OSError) as err:
            self.report({"ERROR"}, f"Worldseed export failed: {err}")
            return {"CANCELLED"}
        self.finished(context, result)
        return {"FINISHED"}

    def modal(self, context, event):
        try:
            return super().modal(context, event)
        except (ExportError, OSError) as err:  # ModalBuild has ended the modal run already
            self.report({"ERROR"}, f"Worldseed export failed: {err}")
            return {"CANCELLED"}

    def finished(self, context, result):
        paths, parts = result
        message = f"Worldseed: wrote {', '.join(os.path.basename(p) for p in paths)}"
        if parts.summary:
            message += f"; {parts.summary}"
        self.report({"INFO"}, message)


classes = (WORLDSEED_OT_export_unity,)
