"""Export for Unity: the sidebar's way to the same files a headless run writes (:mod:`.bridge.world`).

Big scatters export modally, with Blender's progress bar and Esc to cancel
(which removes every temporary object and file and leaves the scene and the
earlier files as they were).
"""

import dataclasses
import os
import re

import bpy

from ..core import recipe as core_recipe
from ..core import unity as core_unity
from ..core.errors import ParameterError
from ..core.export import LIMITS, ExportSpec
from .bridge import export, sections, world
from .bridge import terrain as bridge_terrain
from .bridge import terrain_layers as bridge_layers
from .bridge.export import ExportError
from .bridge.query import worldseed_roots
from .bridge.terrain import is_terrain
from .common import ModalBuild, Reports

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
    errors = (ExportError, OSError)

    def message(self, err):
        return f"Worldseed export failed: {err}"

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
        return self.guard(context, lambda: self.run(context))

    def run(self, context):
        if not self.filepath:
            raise ExportError("filepath must name the file to write, got an empty path")
        path = bpy.path.abspath(self.filepath)
        if os.path.isdir(path):
            raise ExportError(f"filepath {path!r} is a folder; give the name of the file to write")
        if os.path.splitext(path)[1].lower() not in ("", ".fbx", ".glb"):
            raise ExportError(f"filepath must end in .fbx (or .glb), got {os.path.basename(path)!r}")
        objects = worldseed_roots(context.scene) if self.scope == "WORLDSEED" else list(context.selected_objects)
        if not objects:
            raise ExportError(
                "nothing to export: no Worldseed objects in the scene"
                if self.scope == "WORLDSEED"
                else "nothing to export: select the objects to export"
            )
        spec = ExportSpec(
            fbx=self.formats in ("FBX", "BOTH"),
            glb=self.formats in ("GLB", "BOTH"),
            per_object=self.per_object,
            heightmap_raw=self.heightmap_raw,
            preview=self.relief,
            render=self.render,
            placements=self.placements,
        )
        instances = sum(len(o.data.vertices) for o in export.scatters_among(objects))
        steps = export_steps(context, objects, path, spec, scatter_mode=self.scatter_mode.lower())
        modal = instances > MODAL_INSTANCES or erodes_first(objects, spec)
        return self.run_steps(context, steps, "exporting for Unity", modal=modal)

    def finished(self, context, result):
        paths, parts = result
        message = f"Worldseed: wrote {', '.join(os.path.basename(p) for p in paths)}"
        if parts.summary:
            message += f"; {parts.summary}"
        self.report({"INFO"}, message)


#: A recipe's file name: no folders (it stays in the folder chosen), ending in .toml.
RECIPE_NAME = re.compile(r"^[^/\\]{1,128}\.toml$")


def recipe_path(filepath):
    """The recipe file ``filepath`` names, absolute and checked: a ``.toml`` name (added when there is no
    extension) in an existing folder, not a folder nor a link; raises :class:`ParameterError`."""
    path = os.path.abspath(bpy.path.abspath(filepath)) if filepath.strip() else ""
    if not path:
        raise ParameterError("filepath must name the recipe file to write, got an empty path")
    if not os.path.splitext(path)[1]:
        path += ".toml"
    folder, name = os.path.split(path)
    if not RECIPE_NAME.match(name):
        raise ParameterError(f"filepath must end in .toml, got {name!r}")
    if not os.path.isdir(folder):
        raise ParameterError(f"folder {folder!r} does not exist; choose a folder for the recipe")
    if os.path.islink(path) or os.path.isdir(path):
        raise ParameterError(f"{path!r} is a {'link' if os.path.islink(path) else 'folder'}; choose a file name")
    return path


def _has_objects(scene, family):
    return any(family.root(o) is o for o in scene.objects)


class WORLDSEED_OT_recipe_save(Reports, bpy.types.Operator):
    """Save the whole sidebar (every section, texture layers and levels) as a recipe: worldseed_run.py
    builds it into the files Export for Unity writes of the same scene"""

    bl_idname = "worldseed.recipe_save"
    bl_label = "Save Sidebar as Recipe"
    bl_options = {"REGISTER"}
    errors = (ParameterError, OSError)

    __annotations__ = {
        "filepath": bpy.props.StringProperty(subtype="FILE_PATH", options={"SKIP_SAVE"}),
        "filter_glob": bpy.props.StringProperty(default="*.toml", options={"HIDDEN"}),
        "check_existing": bpy.props.BoolProperty(default=True, options={"HIDDEN"}),
        **{
            family.key: bpy.props.BoolProperty(
                name=family.section.label,
                default=True,
                description=f"Write the {family.section.label} panel's settings ({family.section.header})",
            )
            for family in sections.families()
        },
    }

    def invoke(self, context, event):
        if not self.filepath:
            stem = os.path.splitext(os.path.basename(bpy.data.filepath))[0] or "world"
            self.filepath = os.path.join(os.path.dirname(bpy.data.filepath) or os.getcwd(), f"{stem}.toml")
        for family in sections.families():  # the sections the scene has objects of (the terrain always)
            setattr(self, family.key, family.key == "terrain" or _has_objects(context.scene, family))
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        def work():
            path = recipe_path(self.filepath)
            chosen = [f for f in sections.families() if getattr(self, f.key)]
            recipe = sections.recipe_from_sidebar(context.scene, sections={f.key for f in chosen})
            core_unity.write_bytes_atomic(path, core_recipe.dumps(recipe).encode())
            for family in chosen:
                for line in family.notes(context.scene):
                    self.report({"WARNING"}, f"Worldseed: {line}")
            self.report({"INFO"}, f"Worldseed: wrote {path} (worldseed_run.py --recipe {os.path.basename(path)})")
            return {"FINISHED"}

        return self.guard(context, work)


classes = (WORLDSEED_OT_export_unity, WORLDSEED_OT_recipe_save)
