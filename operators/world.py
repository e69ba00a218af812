"""World operators: Build Tiles and Export World for Unity.

Thin, as every family's: they gather a tiled world's recipe from the sidebar (the Terrain panel's
terrain and layers, the Scatter panel's built-in layers, the World panel's grid and halo), and hand
it to :mod:`.bridge.world_build`, which runs ``core.world.run_world`` on a worker thread (tile files
into the world folder; tiles complete already are kept), assembles the tiles as objects
``<File Name>_<x>_<z>`` side by side (named as their files are), and to :mod:`.bridge.world_export`,
which writes their FBX, the prop library and the world JSON.  Both run modally in a window, with
progress and Esc (the scene, and the folder's earlier files, stay as they were; the tiles a cancelled
run finished stay for the next); without a window (background runs) they run at once.  One at a
time: they write the same folder.
"""

import os
import re
import tempfile

import bpy

from ..core import mesh as core_mesh
from ..core import world as core_world
from ..core.errors import ParameterError
from .bridge import sections, world_build, world_export, world_tiles
from .bridge.export import ExportError
from .common import ModalBuild, select_only

__all__ = [
    "world_recipe",
    "world_folder",
    "session_folder",
    "file_name",
    "chosen_tiles",
    "check_scene_vertices",
    "note_complete_tiles",
    "world_busy",
    "MAX_SCENE_VERTICES",
    "classes",
]

#: Most vertices Build Tiles puts in the scene at once (16 tiles of 1025^2, LOD0 only): a larger world
#: is built headless (``worldseed_run.py``), or a range of its tiles at a time.
MAX_SCENE_VERTICES = 16 * 1025 * 1025


#: What a world's file name may be (the headless run's ``--name`` alike): no folders, no dots.
FILE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,48}$")


def file_name(settings):
    """The World panel's file name, checked: 1 to 48 letters, digits, '-' or '_' (it names the tiles in the
    scene too: an object's name has at most 48)."""
    name = settings.file_name
    if not FILE_NAME.match(name):
        raise ParameterError(f"File Name must be 1 to 48 letters, digits, '-' or '_' (no folders), got {name!r}")
    return name


_SESSION_FOLDER: list[str] = []  # this Blender session's own temporary folder, made when first asked for


def session_folder():
    """A temporary folder of this Blender session's own (``<tmp>/worldseed-XXXX``, made once): an
    unsaved file's world tiles go there, never into a folder another process builds in."""
    if not _SESSION_FOLDER or not os.path.isdir(_SESSION_FOLDER[0]):
        _SESSION_FOLDER[:] = [tempfile.mkdtemp(prefix="worldseed-")]
    return _SESSION_FOLDER[0]


def world_folder(settings):
    """The world folder of the World panel's settings, absolute: ``//`` is the .blend's folder, or
    this session's temporary folder (:func:`session_folder`) while the file is unsaved."""
    folder = settings.folder.strip() or "//world/"
    if folder.startswith("//") and not bpy.data.filepath:
        return os.path.join(session_folder(), folder[2:].strip("/\\") or "world")
    return os.path.abspath(bpy.path.abspath(folder))


def world_recipe(scene):
    """The tiled world the sidebar describes (:func:`.bridge.sections.world_recipe`): the Terrain panel's
    terrain and layers, the World panel's grid and halo and, when its Scatter is on, the Scatter panel's
    built-in layers.  Validated: a tiled world needs a Unity resolution ... (``core.world.check_world``,
    errors naming the key); the terrain's Normalize at its default becomes Fixed, as headless.  The
    World panel's File Name names the world: the tiles are ``<File Name>_<x>_<z>`` in the scene, as the
    files are."""
    settings = scene.worldseed.world
    return sections.world_recipe(scene, scatter=settings.scatter, name=file_name(settings))


def chosen_tiles(settings):
    """The tiles ``(x, z)`` the World panel builds (row-major), every tile with All Tiles on."""
    nx, nz = settings.tiles_x, settings.tiles_z
    if settings.build_all:
        return [(x, z) for z in range(nz) for x in range(nx)]
    for axis, first, last, count in (("x", settings.x0, settings.x1, nx), ("z", settings.z0, settings.z1, nz)):
        if not 0 <= first <= last < count:
            raise ParameterError(
                f"tile range {axis}: {first}..{last} must lie within 0..{count - 1} (the grid has {count} tiles "
                f"along {axis.upper()}), first <= last"
            )
    return [(x, z) for z in range(settings.z0, settings.z1 + 1) for x in range(settings.x0, settings.x1 + 1)]


#: The labels of the world's modal runs (one at a time: they write the same folder).
BUILD_LABEL, EXPORT_LABEL = "building world tiles", "exporting the world"


def world_busy():
    """Whether a Build Tiles or Export World runs (modally) now, or a cancelled build's worker still
    ends its running tasks."""
    running = any(label in (BUILD_LABEL, EXPORT_LABEL) for label in ModalBuild.running.values())
    return running or world_build.run_stopping()


def note_complete_tiles(settings, folder):
    """Note in the World panel's settings which tiles the world folder holds complete (its world
    JSON), for the panel's grid: ``"x,z;x,z"``."""
    document = core_world.read_world_json(core_world.world_json_path(folder, settings.file_name))
    tiles = [(t["x"], t["z"]) for t in (document or {}).get("tiles", ()) if t.get("complete")]
    settings.complete_tiles = ";".join(f"{x},{z}" for x, z in tiles)


def _noting_when_stopped(scene_name, folder):
    """A timer that waits for a cancelled build's worker to end, then notes the tiles complete (the
    ones it finished after the Esc too) and redraws the sidebars."""

    def note():
        if world_build.run_stopping():
            return 0.25
        scene = bpy.data.scenes.get(scene_name)
        if scene is not None:
            note_complete_tiles(scene.worldseed.world, folder)
        for window in bpy.context.window_manager.windows if bpy.context.window_manager else ():
            for area in window.screen.areas:
                if area.type == "VIEW_3D":
                    area.tag_redraw()
        return None

    return note


def check_scene_vertices(recipe, tiles):
    """Refuse a build that would put more than :data:`MAX_SCENE_VERTICES` vertices in the scene."""
    spec = recipe.terrain
    per_tile = sum(len(core_mesh.lod_indices(spec.resolution, 2**k)) ** 2 for k in range(spec.lods))
    if per_tile * len(tiles) > MAX_SCENE_VERTICES:
        raise ParameterError(
            f"Build Tiles: {len(tiles)} tiles of {spec.resolution}^2 make {per_tile * len(tiles):,} vertices; at "
            f"most {MAX_SCENE_VERTICES:,} go into the scene at once: build a range of tiles (All Tiles off), "
            "or the whole world headless (worldseed_run.py)"
        )


class WORLDSEED_OT_world_build(ModalBuild, bpy.types.Operator):
    """Build the chosen tiles of the world: their files into the world folder (on every core, tiles
    complete already are kept), then objects <File Name>_<x>_<z> side by side, named as their files"""

    bl_idname = "worldseed.world_build"
    bl_label = "Build Tiles"
    bl_options = {"REGISTER", "UNDO"}
    errors = (ParameterError, ExportError, OSError)

    def message(self, err):
        return f"Worldseed: {err}"

    @classmethod
    def poll(cls, context):
        return not world_busy()

    def _steps(self, context):
        settings = context.scene.worldseed.world
        recipe = world_recipe(context.scene)
        tiles = chosen_tiles(settings)
        check_scene_vertices(recipe, tiles)
        folder = world_folder(settings)
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise ParameterError(f"World Folder {folder!r} is a file; choose a folder for the tile files")
        self._folder = folder
        return world_build.build_steps(recipe, folder, file_name(settings), tiles, collection=context.scene.collection)

    def invoke(self, context, event):
        if context.window is None:
            return self.execute(context)
        return self.guard(context, lambda: self.start_modal(context, self._steps(context), BUILD_LABEL))

    def execute(self, context):
        world_build.wait_for_runs()  # a cancelled build still ending (scripts call this without poll)
        return self.guard(context, lambda: self.run_steps(context, self._steps(context), BUILD_LABEL, modal=False))

    def failed(self, context, err):
        settings = context.scene.worldseed.world
        settings.last_error = str(err)
        if getattr(self, "_folder", None):
            note_complete_tiles(settings, self._folder)

    def cancelled(self, context):
        settings = context.scene.worldseed.world
        settings.last_error = ""
        note_complete_tiles(settings, self._folder)
        bpy.app.timers.register(_noting_when_stopped(context.scene.name, self._folder), first_interval=0.25)
        kept = f"the tiles finished so far stay in {self._folder} (the next build skips them)"
        self.report({"INFO"}, f"Worldseed: {kept}")

    def finished(self, context, result):
        run, made = result
        context.scene.worldseed.world.last_error = ""
        note_complete_tiles(context.scene.worldseed.world, self._folder)
        context.view_layer.update()
        roots = [made[k] for k in sorted(made, key=lambda t: (t[1], t[0]))]
        select_only(context, roots[0] if roots else None)
        for root in roots[1:]:
            root.select_set(True)
        self.report(
            {"INFO"},
            f"Worldseed: {len(made)} tiles in the scene ({len(run.built)} built, {len(run.skipped)} kept) "
            f"from {self._folder}",
        )


class WORLDSEED_OT_world_export(ModalBuild, bpy.types.Operator):
    """Export the world's tiles in the scene for Unity: <name>_<x>_<z>.fbx per tile (rotation 0, scale 1,
    Y up, metres) into the world folder, the scene's trees and levels once where they stand, and the
    world JSON listing them"""

    bl_idname = "worldseed.world_export"
    bl_label = "Export World for Unity"
    bl_options = {"REGISTER"}
    errors = (ParameterError, ExportError, OSError)

    def message(self, err):
        return f"Worldseed export failed: {err}"

    @classmethod
    def poll(cls, context):
        return not world_busy() and bool(world_tiles.tile_roots(context.scene, context.scene.worldseed.world.file_name))

    def _steps(self, context):
        settings = context.scene.worldseed.world
        roots = world_tiles.tile_roots(context.scene, file_name(settings))
        folder, name = world_folder(settings), file_name(settings)
        world_export.check_exportable(roots, folder, name)
        return world_export.export_world_steps(
            roots,
            folder,
            name,
            world_json=world_export.world_json_with_fbx(folder, name),
            props=world_export.world_props(roots),
            once=world_export.scene_once(context.scene),  # the scene's trees and levels, where they stand
        )

    def invoke(self, context, event):
        if context.window is None:
            return self.execute(context)
        return self.guard(context, lambda: self.start_modal(context, self._steps(context), EXPORT_LABEL))

    def execute(self, context):
        world_build.wait_for_runs()  # a cancelled build still ending writes the same world JSON
        return self.guard(context, lambda: self.run_steps(context, self._steps(context), EXPORT_LABEL, modal=False))

    def finished(self, context, paths):
        self.report({"INFO"}, f"Worldseed: wrote {', '.join(os.path.basename(p) for p in paths)}")


classes = (WORLDSEED_OT_world_build, WORLDSEED_OT_world_export)
