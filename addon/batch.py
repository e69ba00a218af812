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
import json
import os
import re
import sys
import time

import bpy

from ..core import preview as core_preview
from ..core import recipe as core_recipe
from ..core import unity as core_unity
from ..core._checks import ParameterError
from ..core.steps import drive
from ..operators import build, export, render, scatter, scatter_export, tree_build

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


#: Pixels per side of preview.png for maps smaller than this.
PREVIEW_SIDE = 513


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


def _write_atomic(path, data):
    core_unity.write_bytes_atomic(path, data)
    return path


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
    paths = [f"{name}.blend"]
    has_terrain = recipe.terrain.enabled
    if not recipe.export.per_object:
        paths += [f"{name}.{fmt}" for fmt in ("fbx", "glb") if getattr(recipe.export, fmt)]
    if recipe.export.preview and has_terrain:
        paths.append("relief.png")
    if recipe.export.render:
        paths.append("preview.png")
    if recipe.export.placements and has_terrain and recipe.scatter:
        paths.append(f"{name}_placements.json")
    if recipe.export.heightmap_raw and has_terrain:
        paths += [f"{name}_heightmap.raw", f"{name}_heightmap.json"]
    return [os.path.join(out_dir, p) for p in paths]


def check_outputs(recipe, out_dir, *, name="world"):
    """Refuse, before any work, an output folder or file name that cannot be written."""
    if not FILE_NAME.match(name or ""):
        raise export.ExportError(f"--name must be 1 to 64 letters, digits, '-' or '_' (no folders), got {name!r}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise export.ExportError(f"output folder {out_dir!r} is a file, not a folder")
    for path in output_paths(recipe, out_dir, name=name):
        if os.path.isdir(path):
            raise export.ExportError(f"cannot write {path!r}: a folder of that name is in the way")


def build_world(recipe, out_dir, *, name="world", progress=None):
    """Build ``recipe`` into the current scene and write the files; returns the paths written."""
    check_outputs(recipe, out_dir, name=name)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as err:
        raise export.ExportError(f"output folder {out_dir!r} cannot be created: {err.strerror}") from None
    if not os.access(out_dir, os.W_OK):
        raise export.ExportError(f"output folder {out_dir!r} is not writable")
    scene = _fresh_scene()
    root, heights = None, None
    if recipe.terrain.enabled:
        heights_out = []
        root = drive(build.terrain_steps(recipe, collection=scene.collection, heights_out=heights_out),
                     progress)
        heights = heights_out[0]
    trees = grow_trees(recipe, scene, progress=progress)
    scattered = None
    if root is not None and recipe.scatter:
        if progress is not None:
            progress(0, 1, "scatter")
        scattered = scatter.scatter_onto(root, list(recipe.scatter), [("BUILTIN", None)] * len(recipe.scatter),
                                         seed=recipe.world.seed, collection=scene.collection)
        if progress is not None:
            progress(1, 1, "scatter")
    written = []
    formats = tuple(f for f in ("fbx", "glb") if getattr(recipe.export, f))
    if formats:
        written += export.export_unity(([root] if root is not None else []) + trees,
                                       os.path.join(out_dir, f"{name}.fbx"), formats=formats,
                                       per_object=recipe.export.per_object)
    written.append(_save_blend(os.path.join(out_dir, f"{name}.blend")))
    if root is None:
        if recipe.export.render and trees:
            try:
                written.append(render.render_trees(scene, trees, os.path.join(out_dir, "preview.png")))
            except render.RenderError as err:
                print(f"worldseed: warning: {err}", file=sys.stderr)
        return written
    if recipe.export.preview:
        values, cell = heights.values, heights.cell_size
        n = values.shape[0]
        if n < PREVIEW_SIDE:  # small maps are resampled so the picture is worth looking at
            values, cell = core_unity.resample_square(values, side=PREVIEW_SIDE), cell * (n - 1) / (PREVIEW_SIDE - 1)
        image = core_preview.shaded_relief(values, cell_size=cell, height=heights.height,
                                           sea_level=recipe.terrain.sea_level, palette=recipe.terrain.palette)
        written.append(_write_atomic(os.path.join(out_dir, "relief.png"), core_preview.png_bytes(image)))
    if recipe.export.render:
        try:
            written.append(render.render_preview(scene, root, os.path.join(out_dir, "preview.png")))
        except render.RenderError as err:  # a machine without OpenGL still gets every other file
            print(f"worldseed: warning: {err}; relief.png is the preview", file=sys.stderr)
    if recipe.export.placements and scattered is not None:
        written.append(scatter_export.write_placement_file(
            [scattered], os.path.join(out_dir, f"{name}_placements.json")))
    if recipe.export.heightmap_raw:
        written += write_unity_heightmap(heights, recipe, out_dir, name=name,
                                         blender_centre=tuple(root.matrix_world.translation))
    return written


#: Metres between the trees a recipe grows, beyond their crowns.
TREE_GAP = 2.0


def grow_trees(recipe, scene, *, progress=None):
    """Grow every ``[[trees]]`` entry's variants (seeds ``seed``, ``seed + 1``, ...) into a "Trees"
    collection, in a row in front of the terrain (or at the origin without one); returns the roots."""
    if not recipe.trees:
        return []
    collection = bpy.data.collections.new("Trees")
    scene.collection.children.link(collection)
    jobs = [(spec, k) for spec in recipe.trees for k in range(spec.variants)]
    roots = []
    for i, (spec, k) in enumerate(jobs):
        if progress is not None:
            progress(i, len(jobs), "trees")
        name = spec.name if spec.variants == 1 else f"{spec.name}_V{k + 1:02d}"
        roots.append(tree_build.build_tree(spec, collection=collection, seed=(spec.seed + k) % 2**31, name=name))
    if progress is not None:
        progress(len(jobs), len(jobs), "trees")
    widths = [max(c.dimensions.x, c.dimensions.y) for r in roots for c in r.children if c.name.endswith("_LOD0")]
    spacing = max(widths, default=1.0) + TREE_GAP
    y = -(recipe.terrain.size / 2 + spacing) if recipe.terrain.enabled else 0.0
    x0 = -spacing * (len(roots) - 1) / 2
    for i, root in enumerate(roots):
        root.location = (x0 + i * spacing, y, 0.0)
    return roots


def write_unity_heightmap(heights, recipe, out_dir, *, name="world", blender_centre=(0.0, 0.0, 0.0)):
    """A 16-bit RAW heightmap for Unity's Terrain plus a JSON of its import settings.

    The heights are turned to match the exported FBX in Unity (see
    ``core.unity``), so a Terrain placed at ``terrain_position`` lines up
    with the mesh.
    """
    n = heights.values.shape[0]
    sides = [s for s in core_unity.UNITY_HEIGHTMAP_RESOLUTIONS if s >= n] or [max(core_unity.UNITY_HEIGHTMAP_RESOLUTIONS)]
    side = sides[0]
    values = heights.values if side == n else core_unity.resample_square(heights.values, side=side)
    raw_path = _write_atomic(os.path.join(out_dir, f"{name}_heightmap.raw"),
                             core_unity.heightmap_raw16(core_unity.unity_heights(values), byte_order="little"))
    size = recipe.terrain.size
    settings = {
        "file": os.path.basename(raw_path),
        "depth": "Bit16",
        "byte_order": "Windows",
        "width": side,
        "height": side,
        "flip_vertically": False,
        "terrain_size_m": {"width": size, "height": recipe.terrain.height, "length": size},
        "terrain_position": core_unity.unity_terrain_position(size, blender_centre=blender_centre).tolist(),
        "resampled_from": None if side == n else n,
        "note": "Terrain Settings > Import Raw with these values; put the Terrain at terrain_position "
                "(world space) and it lines up with the FBX mesh.",
    }
    json_path = _write_atomic(os.path.join(out_dir, f"{name}_heightmap.json"),
                              (json.dumps(settings, indent=2) + "\n").encode())
    return [raw_path, json_path]


def main(argv=None):
    """Entry point; returns the process exit status (0 ok, 2 bad input or failed write)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        recipe = (core_recipe.load(args.recipe) if args.recipe
                  else core_recipe.loads(DEFAULT_RECIPE, source="embedded demo recipe"))
        out_dir = os.path.abspath(args.out)
        written = build_world(recipe, out_dir, name=args.name,
                              progress=TerminalProgress(f"worldseed {recipe.world.name}"))
        if args.write_recipe:
            written.append(_write_atomic(os.path.join(out_dir, "recipe.toml"), core_recipe.dumps(recipe).encode()))
    except (ParameterError, export.ExportError, OSError) as err:
        print(f"worldseed: error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(f"worldseed: wrote {path}")
    return 0
