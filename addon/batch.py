"""Headless entry: build a world from a recipe file and write FBX, .blend and a preview.

Besides the FBX (and .glb) and the .blend it writes ``relief.png`` (a shaded
relief map) and, with ``render = true``, ``preview.png`` (a 3-D Workbench
render). Run through the ``worldseed_run.py`` script at the extension root, either in
Blender (``blender --background --python worldseed_run.py -- --recipe
world.toml --out DIR``) or with the ``bpy`` module (``python worldseed_run.py
--recipe world.toml --out DIR``). Errors print one line naming the problem and
exit with status 2; nothing already on disk is replaced by a partial file.
"""

import argparse
import os
import re
import sys
import time

import bpy

from ..core import recipe as core_recipe
from ..core import unity as core_unity
from ..core.errors import ParameterError
from ..operators.bridge import world
from ..operators.bridge.export import ExportError

#: The recipe `make demo` builds when no --recipe is given: an island with a beach and snowy peaks.
DEFAULT_RECIPE = """\
# Worldseed demo recipe: a 1 km island, 257 x 257 vertices, three LODs for Unity.
[world]
name = "DemoIsland"
seed = 20261202

[terrain]
resolution = 257
size = 1024.0
height = 160.0
basis = "perlin"
kind = "fbm"
scale = 380.0
octaves = 7
persistence = 0.5
lacunarity = 2.0
warp = 0.2
falloff = "radial"
falloff_width = 0.6
redistribution = 1.35
curve = [[0.0, 0.0], [0.3, 0.22], [0.75, 0.8], [1.0, 1.0]]
sea_level = 0.12
lods = 3

# Oaks on the lower slopes, pines higher up, rocks where it is steep: each layer keeps its
# distance from the ones before it; every prop arrives in the FBX and in world_placements.json.
[[scatter]]
name = "Oaks"
prop = "broadleaf"
variants = 3
radius = 22.0
height_range = [24.0, 80.0]
slope_range = [0.0, 22.0]
patchiness = 0.35
patch_scale = 120.0
sink = 0.1
unity_tree = true

[[scatter]]
name = "Pines"
prop = "conifer"
variants = 3
radius = 20.0
height_range = [60.0, 125.0]
slope_range = [0.0, 30.0]
patchiness = 0.3
patch_scale = 90.0
sink = 0.1
unity_tree = true

[[scatter]]
name = "Rocks"
prop = "rock"
variants = 4
radius = 16.0
slope_range = [24.0, 90.0]
scale_range = [1.0, 3.0]
align = 1.0
max_tilt = 40.0
sink = 0.2

[export]
fbx = true
glb = false
heightmap_raw = true
preview = true
render = true
placements = true
"""


class TerminalProgress:
    """A one-line progress bar on stderr (a line every 10% when not a terminal)."""

    def __init__(self, label, stream=None, width=30):
        self.label, self.stream, self.width = label, stream or sys.stderr, width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.last_decile = -1
        self.last_frac = 0.0
        self.start = time.perf_counter()

    def __call__(self, done, total, stage):
        frac = done / max(total, 1)
        if self.tty:
            fill = int(frac * self.width)
            self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (self.width - fill)}] {frac:4.0%} {stage:<12}")
            if done >= total:
                self.stream.write(f" {time.perf_counter() - self.start:.2f}s\n")
        else:
            if frac < self.last_frac:  # the next part of the run (trees, scatter) counts from 0 again
                self.last_decile = -1
            self.last_frac = frac
        if not self.tty and int(frac * 10) > self.last_decile:
            self.last_decile = int(frac * 10)
            self.stream.write(f"{self.label}: {frac:4.0%} {stage}\n")
        self.stream.flush()


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="worldseed_run.py", description="Build a Worldseed world headless.")
    parser.add_argument("--recipe", help="recipe file (TOML); the embedded demo recipe when left out")
    parser.add_argument("--out", required=True, help="output folder (created if missing)")
    parser.add_argument("--name", default="world", help="base name of the output files (default: world)")
    parser.add_argument("--write-recipe", action="store_true", help="also write the recipe used, as recipe.toml")
    return parser.parse_args(argv)


def _fresh_scene():
    """An empty scene to build into (the default cube, camera and light would end up in the FBX)."""
    scene = bpy.context.scene
    for obj in list(scene.objects):
        bpy.data.objects.remove(obj, do_unlink=True)
    for block in (bpy.data.meshes, bpy.data.materials, bpy.data.cameras, bpy.data.lights):
        for item in list(block):
            if item.users == 0:
                block.remove(item)
    bpy.context.view_layer.update()  # or the view layer keeps listing the removed objects
    return scene


def _save_blend(path):
    folder = os.path.dirname(path)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp.blend")
    try:
        bpy.ops.wm.save_as_mainfile(filepath=tmp, copy=True, check_existing=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")


def output_paths(recipe, out_dir, *, name="world"):
    """Every file a run of ``recipe`` may write (FBX/GLB per object are named after the objects)."""
    has_terrain = recipe.terrain.enabled
    return [os.path.join(out_dir, f"{name}.blend")] + world.export_paths(
        recipe.export, out_dir, name, terrains=int(has_terrain), scatters=bool(recipe.scatter), trees=bool(recipe.trees)
    )


def check_outputs(recipe, out_dir, *, name="world"):
    """Refuse, before any work, an output folder or file name that cannot be written."""
    if not FILE_NAME.match(name or ""):
        raise ExportError(f"--name must be 1 to 64 letters, digits, '-' or '_' (no folders), got {name!r}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ExportError(f"output folder {out_dir!r} is a file, not a folder")
    for path in output_paths(recipe, out_dir, name=name):
        if os.path.isdir(path):
            raise ExportError(f"cannot write {path!r}: a folder of that name is in the way")


def build_world(recipe, out_dir, *, name="world", progress=None):
    """Build ``recipe`` into the current scene and write the files; returns the paths written."""
    check_outputs(recipe, out_dir, name=name)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as err:
        raise ExportError(f"output folder {out_dir!r} cannot be created: {err.strerror}") from None
    if not os.access(out_dir, os.W_OK):
        raise ExportError(f"output folder {out_dir!r} is not writable")
    scene = _fresh_scene()
    built = world.build_world(recipe, scene=scene, progress=progress)
    written = world.write_exports(built.roots, out_dir, name, recipe.export, scene=scene, heights=built.heights)
    written.append(_save_blend(os.path.join(out_dir, f"{name}.blend")))
    return written


def main(argv=None):
    """Entry point; returns the process exit status (0 ok, 2 bad input or failed write)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        recipe = (
            core_recipe.load(args.recipe)
            if args.recipe
            else core_recipe.loads(DEFAULT_RECIPE, source="embedded demo recipe")
        )
        out_dir = os.path.abspath(args.out)
        written = build_world(
            recipe, out_dir, name=args.name, progress=TerminalProgress(f"worldseed {recipe.world.name}")
        )
        if args.write_recipe:
            path = os.path.join(out_dir, "recipe.toml")
            core_unity.write_bytes_atomic(path, core_recipe.dumps(recipe).encode())
            written.append(path)
    except (ParameterError, ExportError, OSError) as err:
        print(f"worldseed: error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(f"worldseed: wrote {path}")
    return 0
