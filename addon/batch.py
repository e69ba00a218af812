"""Headless entry: build a world from a recipe file and write FBX, .blend and a preview.

Besides the FBX (and .glb) and the .blend it writes ``relief.png`` (a shaded
relief map) and, with ``render = true``, ``preview.png`` (a 3-D Workbench
render). Run through the ``worldseed_run.py`` script at the extension root, either in
Blender (``blender --background --python worldseed_run.py -- --recipe
world.toml --out DIR``) or with the ``bpy`` module (``python worldseed_run.py
--recipe world.toml --out DIR``). Errors print one line naming the problem and
exit with status 2; nothing already on disk is replaced by a partial file.

The files of a run are written to a hidden staging folder inside the output
folder and moved into place together once every one is complete (see
``operators/bridge/world.output_folder``): a full disk or a kill leaves the
previous build whole.  The moves and the removals of the earlier files are one
switch (``operators/bridge/outputs``): a ``kill -9`` at any of its renames leaves
a record the next run into the folder reads first and finishes, so the folder
holds the earlier set or the new one, never a mix.  Two runs into one folder take turns (the second waits
up to ``--wait`` seconds for the first to finish writing).  Files of the
fixed set a run may write (``world.fbx``, ``world.glb``, ``relief.png``,
``preview.png``, ``world_placements.json``, ``world_heightmap.raw/.json`` and the terrain package
``world_splat<k>.png``, ``_biomes.png``, ``_flow.png``, ``_terrain.json`` and the texture
layers' images copied as ``world_texture<k>.png`` / ``.jpg``, the networks' ``world_rivers.json``
and ``world_roads.json``)
that an earlier run left and this run does not write are removed, and the
run says so, so the folder always holds one build.  So are the files of a
level an earlier run wrote (recognised by its ``<stem>_level.json`` record:
``<stem>.tmx``, its tilesets, ``_level.json`` and ``_level.png``) that this
run does not write: a level gone from the recipe, a tileset switched.

A tiled world (``[world] tiles`` other than ``[1, 1]``) is built by :mod:`.batch_world`
(:func:`main` dispatches; :func:`world_executor` makes its executor for ``--workers`` /
``--scheduler``).
"""

import argparse
import dataclasses
import os
import re
import sys

import bpy

from ..core import ecosystem as core_ecosystem
from ..core import export as core_export
from ..core import levels as core_levels
from ..core import recipe as core_recipe
from ..core import terrain as core_terrain
from ..core import unity as core_unity
from ..core import unity_package as core_package
from ..core import world as core_world
from ..core.errors import ParameterError, short
from ..operators.bridge import ecosystem as bridge_ecosystem
from ..operators.bridge import outputs, render, terrain_layers, world
from ..operators.bridge.export import ExportError
from . import batch_world
from .progress import RunProgress, TerminalProgress

#: The recipe `make demo` builds when no --recipe is given: the showcase, an island that shows every family.
#: Its [rivers], [roads] and [ecosystem] are read and checked today and built once their Blender side lands
#: (issues 23, 24); tests/core/test_showcase.py builds them in core on this terrain, so they fit it.
DEFAULT_RECIPE = """\
# Worldseed showcase (make demo): a 1 km island, 257 x 257 vertices, three LODs for Unity, with every
# family at once. Files: see the README ("What make demo writes").
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

[terrain.erosion]
enabled = true
droplets_per_km2 = 60000.0

# Rivers from the eroded terrain's flow (wide enough to see from above), a lake where a filled pit
# holds water.
[rivers]
enabled = true
threshold = 6000.0
width_scale = 30.0
min_width = 3.0
depth_scale = 2.0
lake_min_area = 3000.0
lake_min_depth = 1.0

# Roads between the settlements (the settlements' stage lays them: least-cost paths that keep to
# the road class's grade, bridges where they cross a river).
[roads]
enabled = true
road_class = "trail"

# Three settlements on the island's best sites (flat, sunny, near water, above the floods): a walled
# town, then villages; the crypt's entrance at the town's edge.
[settlements]
enabled = true
count = 3
types = "mixed"
spacing = 220.0
scale = 0.6
max_slope = 28.0
level = "Crypt"

[biomes]
enabled = true
table = "whittaker"

# Texture layers: the terrain's material and the Unity terrain package's splat maps.
[[splat]]
name = "Grass"
color = [0.16, 0.30, 0.07]

[[splat]]
name = "Sand"
color = [0.62, 0.55, 0.36]
biomes = ["ocean", "beach", "desert"]

[[splat]]
name = "Forest Floor"
color = [0.09, 0.13, 0.05]
biomes = { forest = 1.0, "rain forest" = 1.0, taiga = 0.8 }
patchiness = 0.2

[[splat]]
name = "Rock"
color = [0.30, 0.28, 0.26]
slope_range = [38.0, 90.0]
slope_fade = 8.0

[[splat]]
name = "Snow"
color = [0.85, 0.87, 0.90]
biomes = ["snow"]

# The networks' layers: their rules read the rivers' and roads' maps.
[[splat]]
name = "Riverbed"
color = [0.22, 0.20, 0.15]
river = 1.0

[[splat]]
name = "Bank"
color = [0.20, 0.26, 0.10]
bank = 1.0

[[splat]]
name = "Road"
color = [0.35, 0.29, 0.20]
road = 1.0

[[splat]]
name = "Trail"
color = [0.30, 0.24, 0.16]
trail = 0.8

# A forest grown over 50 years (birch pioneers, shade-tolerant oaks), then deer and wolves for 400
# steps on the grass it leaves, wearing game trails.
[ecosystem]
years = 50
steps = 400
burn_in = 100
trail_attraction = 3.0

[[ecosystem.species]]
name = "Birch"
tree = "birch"
initial_density = 15.0
seeds_per_year = 20.0
dispersal = 15.0
max_age = 90
max_radius = 3.0
max_height = 18.0
growth_years = 10.0
shade_tolerance = 0.0
max_slope = 30.0

[[ecosystem.species]]
name = "Oak"
tree = "broadleaf"
initial_density = 6.0
seeds_per_year = 15.0
dispersal = 8.0
max_age = 300
max_radius = 6.0
max_height = 24.0
growth_years = 25.0
shade_tolerance = 1.0
max_slope = 30.0

[[ecosystem.animals]]
name = "Deer"
eats = "plants"
count = 120
energy_gain = 4.0
reproduce = 0.03
speed = 4.0
vision = 20.0
max_age = 300
drink_every = 30
home_range = 150.0

[[ecosystem.animals]]
name = "Wolf"
eats = ["Deer"]
count = 30
energy_gain = 20.0
reproduce = 0.05
speed = 6.0
vision = 40.0
max_age = 500
drink_every = 40
home_range = 120.0

# Pines higher up (the grown forest holds the lower slopes), rocks where it is steep, grass in
# patches: each layer keeps its distance from the ones before it; every prop arrives in the FBX and in
# world_placements.json.
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

[[scatter]]
name = "Grass"
prop = "grass"
variants = 2
radius = 7.0
height_range = [20.0, 70.0]
slope_range = [0.0, 20.0]
patchiness = 0.5
patch_scale = 60.0
keep_away = 3.0
unity_detail = 0.5

# Levels, each also a Tiled map, a JSON record and a picture: a BSP crypt under the walled town (south),
# a cave in the hills, a WFC town square (the town sample: streets and gardens walkable) by the west village.
[[level]]
name = "Crypt"
generator = "bsp"
width = 32
height = 32
origin = [-144.0, -336.0, 16.0]
seed = 3

[[level]]
name = "HillCave"
generator = "cave"
width = 48
height = 32
origin = [-60.0, -200.0, 100.0]
seed = 5

[[level]]
name = "TownSquare"
generator = "wfc_overlapping"
sample = "town"
classes = [["0", "floor"], ["1", "floor"], ["2", "wall"], ["3", "wall"], ["4", "wall"]]
width = 16
height = 16
origin = [-333.0, -83.0, 30.0]
seed = 2

[export]
fbx = true
glb = false
heightmap_raw = true
preview = true
render = true
placements = true
"""


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="worldseed_run.py", description="Build a Worldseed world headless.")
    parser.add_argument("--recipe", help="recipe file (TOML); the embedded demo recipe when left out")
    parser.add_argument("--out", required=True, help="output folder (created if missing)")
    parser.add_argument("--name", default="world", help="base name of the output files (default: world)")
    parser.add_argument("--write-recipe", action="store_true", help="also write the recipe used, as recipe.toml")
    parser.add_argument(
        "--wait",
        type=float,
        default=world.LOCK_WAIT,
        metavar="SECONDS",
        help=f"how long to wait for another run writing into the same folder (default: {world.LOCK_WAIT:g})",
    )
    tiled = parser.add_argument_group(
        "tiled worlds", "for a recipe with [world] tiles other than [1, 1]: the tiles run serially unless one is given"
    )
    where = tiled.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="build the tiles on a Dask LocalCluster of N worker processes on this machine (at most its cores: "
        "more is lowered to them, with a warning)",
    )
    where.add_argument(
        "--scheduler", metavar="ADDRESS", help="build the tiles on a running Dask cluster (tcp://host:8786)"
    )
    tiled.add_argument("--tiles", metavar="X0:X1,Z0:Z1", help="build only these tiles (half-open ranges, as Python's)")
    return parser.parse_args(_joined_values(argv, ("--tiles",)))


def _joined_values(argv, flags):
    """``argv`` with ``FLAG VALUE`` written ``FLAG=VALUE`` for ``flags`` whose value starts with '-'
    (``--tiles -1:2,0:1``): argparse would take the value for an option and say "expected one
    argument"; joined, the value reaches the flag's own check (and its message).

    >>> _joined_values(["--tiles", "-1:2,0:1", "--out", "o"], ("--tiles",))
    ['--tiles=-1:2,0:1', '--out', 'o']
    """
    out, i = [], 0
    argv = list(argv)
    while i < len(argv):
        arg = argv[i]
        if arg in flags and i + 1 < len(argv) and argv[i + 1].startswith("-") and not argv[i + 1].startswith("--"):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def _save_blend(path):
    """Save the open scene as a copy at ``path`` (a new name in a staging folder); refuse a short file."""
    try:
        with render.quiet_stdio():  # Blender's "Info: Saved copy as ..." on the terminal
            result = bpy.ops.wm.save_as_mainfile(filepath=path, copy=True, check_existing=False)
    except RuntimeError as err:
        reason = str(err).strip().splitlines()[-1] if str(err).strip() else "no reason given"
        raise ExportError(f"saving {os.path.basename(path)} failed: {reason}") from None
    if result != {"FINISHED"} or not os.path.isfile(path) or os.path.getsize(path) == 0:
        raise ExportError(f"saving {os.path.basename(path)} failed; kept the earlier files")
    return path


#: Longest --wait, seconds (a day).
MAX_WAIT = 86_400.0
#: Longest error line the run prints.
LINE_LIMIT = 400


def output_paths(recipe, out_dir, *, name="world"):
    """Every file a run of ``recipe`` may write (FBX/GLB per object are named after the objects)."""
    has_terrain = recipe.terrain.enabled
    return [os.path.join(out_dir, f"{name}.blend")] + world.export_paths(
        recipe.export,
        out_dir,
        name,
        terrains=int(has_terrain),
        scatters=bool(recipe.scatter or recipe.ecosystem.species),  # the forest is placed as a scatter is
        trees=bool(recipe.trees),
        levels=[(spec.name, spec.autotile, spec.generator in core_levels.WFC_GENERATORS) for spec in recipe.level],
        package=terrain_layers.package_names(recipe, name) if has_terrain else (),
        ecosystem=bridge_ecosystem.file_roles(recipe.ecosystem) if has_terrain else (),
        networks=core_terrain.network_file_names(name, rivers=recipe.rivers.enabled, roads=recipe.roads.enabled)
        if has_terrain
        else (),
        settlements=recipe.settlements.enabled,
    )


def check_outputs(recipe, out_dir, *, name="world"):
    """Refuse, before any work, an output folder or file name that cannot be written."""
    if not batch_world.FILE_NAME.match(name or ""):
        raise ExportError(f"--name must be 1 to 64 letters, digits, '-' or '_' (no folders), got {short(name)}")
    if not out_dir or not out_dir.strip():
        raise ExportError(f"--out must name a folder, got {short(out_dir)} (use --out . for the current folder)")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ExportError(f"output folder {short(out_dir)} is a file, not a folder")
    for path in output_paths(recipe, out_dir, name=name):
        if os.path.isdir(path):
            raise ExportError(f"cannot write {path!r}: a folder of that name is in the way")


def _all_outputs(out_dir, name):
    """Every file of the fixed set a run named ``name`` may write into ``out_dir``, but the .blend
    (always written) and recipe.toml (which may be the recipe being read)."""
    every = core_export.ExportSpec(fbx=True, glb=True, heightmap_raw=True, preview=True, render=True, placements=True)
    roles = core_ecosystem.file_names(name)
    paths = set(
        world.export_paths(
            every, out_dir, name, terrains=1, scatters=True, trees=True, ecosystem=roles, settlements=True
        )
    )
    paths.add(os.path.join(out_dir, f"{name}_props.fbx"))  # the prop library of a large scatter
    numbered = re.compile(rf"^{re.escape(name)}_\d+_heightmap\.(?:raw|json)$")
    package = re.compile(terrain_layers.PACKAGE_FILE.format(name=re.escape(name)))
    paths.update(os.path.join(out_dir, f) for f in os.listdir(out_dir) if numbered.match(f) or package.match(f))
    paths.update(os.path.join(out_dir, f) for f in core_terrain.network_file_names(name, rivers=True, roads=True))
    paths.update(world.earlier_level_files(out_dir))  # every level an earlier run wrote, by its _level.json
    return paths


def build_world(
    recipe, out_dir, *, name="world", progress=None, write_recipe=False, wait=world.LOCK_WAIT, source="recipe"
):
    """Build ``recipe`` into the current scene and write the files; returns ``(written, removed)``.

    Every file is staged, and the folder is switched to them at once when all are complete
    (``outputs.Staging.commit``): the files moved into ``out_dir`` and the files an earlier run left
    that this run does not write removed (the fixed set of :func:`_all_outputs`, and a tiled world's
    of the same name), all in one switch that a kill at any rename leaves for the next run to
    finish.  ``source`` (the recipe file) starts the message of an error found while building.
    """
    check_outputs(recipe, out_dir, name=name)
    with outputs.new_folder(out_dir):  # a failed first run leaves no empty folder behind
        return _build_into(recipe, out_dir, name, progress, write_recipe, wait, source)


def _build_into(recipe, out_dir, name, progress, write_recipe, wait, source):
    if not os.access(out_dir, os.W_OK):
        raise ExportError(f"output folder {short(out_dir)} is not writable")
    scene = batch_world.fresh_scene()
    run = RunProgress(progress) if progress is not None else None
    try:
        built = world.build_world(recipe, scene=scene, progress=run and run.build)
    except ParameterError as err:  # rules that fail while rewriting: name the recipe file too
        raise ParameterError(f"{source}: {err}") from None
    with world.output_folder(out_dir, wait=wait) as stage:
        staged = world.write_exports(
            built.roots,
            out_dir,
            name,
            recipe.export,
            scene=scene,
            heights=built.heights,
            layers=built.layers,
            stage=stage,
            progress=run and run.files,
        )
        staged.append(_save_blend(os.path.join(stage.path, f"{name}.blend")))
        if write_recipe:
            path = os.path.join(stage.path, "recipe.toml")
            with world.writing(path):
                core_unity.write_bytes_atomic(path, core_recipe.dumps(_beside_outputs(recipe, name, staged)).encode())
            staged.append(path)
        targets = {stage.target(p) for p in staged}
        earlier = _all_outputs(out_dir, name) | set(batch_world.world_outputs(out_dir, name))
        written = stage.commit(staged, remove=sorted(earlier - targets))  # one switch: all the new, none of the old
    if run is not None:
        run.end()
    return written, stage.removed


#: Exit status of a run cancelled with Ctrl-C (SIGINT), as shells report a process SIGINT ended.
CANCELLED = 130


def _beside_outputs(recipe, name, staged):
    """``recipe`` as written beside the files (``recipe.toml``): a texture layer whose image the
    Unity package copied names the copy (relative, found beside it), not the build machine's path."""
    copies = {os.path.basename(p) for p in staged}
    textured = [k for k, spec in enumerate(recipe.splat) if spec.texture]
    named = dict(zip(textured, core_package.texture_file_names(name, recipe.splat)))
    splats = tuple(
        dataclasses.replace(spec, texture=named[k]) if named.get(k) in copies else spec
        for k, spec in enumerate(recipe.splat)
    )
    return dataclasses.replace(recipe, splat=splats)


def main(argv=None):
    """Entry point; returns the process exit status (0 ok, 2 bad input or failed write,
    :data:`CANCELLED` for Ctrl-C)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    source = args.recipe or "embedded demo recipe"
    progress = None
    try:
        recipe = core_recipe.load(args.recipe) if args.recipe else core_recipe.loads(DEFAULT_RECIPE, source=source)
        if not 0.0 <= args.wait <= MAX_WAIT:  # also refuses nan
            raise ExportError(f"--wait must be a number of seconds in [0, {MAX_WAIT:g}], got {args.wait:g}")
        if not args.out.strip():
            raise ExportError(f"--out must name a folder, got {short(args.out)} (use --out . for the current folder)")
        if batch_world.is_tiled(recipe):
            return _world_main(args, recipe, progress := TerminalProgress(f"worldseed {recipe.world.name[:40]}"))
        for flag, value in (("--workers", args.workers), ("--scheduler", args.scheduler), ("--tiles", args.tiles)):
            if value is not None:
                raise ExportError(f"{flag} is for tiled worlds; {source} has [world] tiles = [1, 1] (one terrain)")
        written, removed = build_world(
            recipe,
            os.path.abspath(args.out),
            name=args.name,
            progress=(progress := TerminalProgress(f"worldseed {recipe.world.name[:40]}")),
            write_recipe=args.write_recipe,
            wait=args.wait,
            source=source,
        )
    except (ParameterError, ExportError, OSError) as err:
        if progress is not None:
            progress.end_line()
        print(f"worldseed: error: {one_line(err)}", file=sys.stderr)
        return 2
    except (
        KeyboardInterrupt,
        core_world.Cancelled,
    ):  # Ctrl-C: the staging is gone (output_folder), earlier files are whole
        if progress is not None:
            progress.end_line()
        print("worldseed: cancelled", file=sys.stderr)
        return CANCELLED
    for path in written:
        print(f"worldseed: wrote {path}")
    for path in removed:
        print(f"worldseed: removed {path} (an earlier run's; this run does not write it)")
    return 0


def usable_cores():
    """CPU cores this process may run on (its affinity where the system tells it, else all of them)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def world_executor(workers=None, scheduler=None):
    """The executor of a tiled world's tiles: serial, or Dask (``--workers N`` / ``--scheduler ADDRESS``).

    ``--workers`` above the cores this run may use (:func:`usable_cores`) is lowered to them with a
    warning on stderr: the world's tasks are CPU-bound numpy, so more worker processes than cores only
    share the cores, each with its own memory (the output is the same bytes either way).  Dask is
    imported only here, only when asked for: the extension never needs it in Blender."""
    if workers is None and scheduler is None:
        return core_world.SerialExecutor()
    if workers is not None:
        core_world.check_workers(workers, name="--workers")
        cores = usable_cores()
        if workers > cores:
            print(
                f"worldseed: warning: --workers {workers} is more than the {cores} CPU core(s) this run may use: "
                f"using {cores} (more worker processes than cores only share them, each with its own memory)",
                file=sys.stderr,
            )
            workers = cores
    from ..scaleout import dask_executor

    return dask_executor.DaskExecutor(workers=workers, scheduler=scheduler)


def _world_main(args, recipe, progress):
    """The tiled-world run of :func:`main`: prints what it wrote, kept and removed; returns 0."""
    note = batch_world.tiled_export_note(recipe)
    if note:
        print(note, file=sys.stderr)
    run, written, removed = batch_world.build_tiled_world(
        recipe,
        os.path.abspath(args.out),
        name=args.name,
        make_executor=lambda: world_executor(args.workers, args.scheduler),
        single_outputs=_all_outputs,
        tiles=args.tiles,
        progress=progress,
        write_recipe=args.write_recipe,
        wait=args.wait,
    )
    progress.end_line()
    for path in written:
        print(f"worldseed: wrote {path}")
    for path in removed:
        print(f"worldseed: removed {path} (an earlier run's; this run does not write it)")
    if run.skipped:
        print(f"worldseed: kept {len(run.skipped)} complete tile(s) of an earlier run (size and SHA-256 checked)")
    state = "complete" if run.complete else f"{sum(t['complete'] for t in run.document['tiles'])} of "
    if not run.complete:
        state += f"{len(run.document['tiles'])} tiles complete"
    print(f"worldseed: world {state}: {run.path}")
    return 0


def one_line(err):
    """``err``'s message on one line of at most :data:`LINE_LIMIT` characters (an ``OSError`` as its
    reason and the file it names: ``No space left on device: /out/world_0_0.raw``)."""
    text = str(err)
    if isinstance(err, OSError) and err.strerror and err.filename is not None:
        text = f"{err.strerror}: {os.fsdecode(err.filename)}"
    text = text.replace("\r", " ").replace("\n", " ") or type(err).__name__
    return text if len(text) <= LINE_LIMIT else f"{text[: LINE_LIMIT - 30]}... ({len(text):,} characters)"
