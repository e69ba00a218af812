"""Headless tiled worlds (issue 13): the ``[world] tiles`` path of ``worldseed_run.py``.

:func:`build_tiled_world` runs ``core.world.run_world`` into the output folder under its lock (the
tiles on the executor ``addon.batch`` makes for ``--workers`` / ``--scheduler``), then with
``[export] fbx`` writes each tile's FBX and the prop library (``operators.bridge.world_export``),
and removes the files of a single-terrain run of the same name.  Also here, as both runs need
them: the ``--name`` rule (:data:`FILE_NAME`), :func:`fresh_scene`, :func:`remove_files` and the
files of a tiled world (:func:`world_outputs`) that a single-terrain run removes.
"""

import os
import re
import sys

import bpy

from ..core import recipe as core_recipe
from ..core import unity as core_unity
from ..core import world as core_world
from ..core.errors import short
from ..operators.bridge import outputs
from ..operators.bridge.export import ExportError

#: What ``--name`` may be: 1 to 64 letters, digits, ``-`` or ``_``, no folders.
FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")


def fresh_scene():
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


def _regular_files(paths):
    return [p for p in paths if os.path.isfile(p) and not os.path.islink(p)]


def remove_files(paths):
    """Remove the regular files of ``paths`` (never a link or a folder; one that cannot be removed is
    left); returns the removed paths."""
    removed = []
    for path in _regular_files(paths):
        try:
            os.remove(path)
        except OSError:
            continue  # not ours to remove after all (permissions): leave it
        removed.append(path)
    return removed


def world_outputs(out_dir, name):
    """The files in ``out_dir`` of a tiled world run named ``name`` (what a single-terrain run of the
    same name removes, so the folder holds one build): ``<name>_world.json``, every file its tiles
    list (names in ``out_dir`` only), ``<name>_props.fbx`` and ``<name>_overview.png``."""
    path = core_world.world_json_path(out_dir, name)
    document = core_world.read_world_json(path)
    if document is None:
        return []
    names = {
        str(f.get("name", "")) for t in document.get("tiles", ()) for f in t.get("files", ()) if isinstance(f, dict)
    }
    names = {n for n in names if n and os.path.basename(n) == n and not n.startswith(".")}
    paths = [os.path.join(out_dir, n) for n in sorted(names)]
    extras = [f"{name}_props.fbx", core_world.overview_name(name)]
    return paths + [os.path.join(out_dir, e) for e in extras] + [path]


def remove_world_outputs(out_dir, name):
    """Remove :func:`world_outputs` (regular files only, never a link); returns the removed paths."""
    return remove_files(world_outputs(out_dir, name))


def is_tiled(recipe):
    """Whether ``recipe`` is a tiled world (``[world] tiles`` other than ``[1, 1]``)."""
    return tuple(recipe.world.tiles) != (1, 1)


#: ``[export]`` keys a tiled world does not use, and the value that asks for something from them:
#: its files per tile (RAW heights, splats, placements, terrain JSON) are always written, with ``fbx``
#: the FBX per tile and the prop library; no .glb, no file per object, no preview render.
TILED_UNUSED_EXPORT = {"glb": True, "per_object": True, "render": True}


def tiled_export_note(recipe):
    """One line naming the ``[export]`` keys of ``recipe`` that ask for what a tiled world does not
    write (:data:`TILED_UNUSED_EXPORT`), or None."""
    keys = [k for k, asks in TILED_UNUSED_EXPORT.items() if getattr(recipe.export, k) == asks]
    if not keys:
        return None
    return (
        f"worldseed: note: [export] {', '.join(f'{k} = true' for k in keys)} not used by a tiled world "
        "(it writes per tile the RAW heights, splats, placements and terrain JSON, with fbx the tile FBX and "
        "<name>_props.fbx)"
    )


def build_tiled_world(
    recipe,
    out_dir,
    *,
    name="world",
    make_executor=None,
    single_outputs=None,
    tiles=None,
    progress=None,
    write_recipe=False,
    wait=outputs.LOCK_WAIT,
):
    """Build a tiled world headless; returns ``(run, written, removed)``.

    Every flag is checked before anything is made (the output folder neither).  The run holds the output folder's
    lock throughout (``outputs.folder_lock``: a second run into the same folder waits up to ``wait`` seconds,
    then is refused in one line).  The tiles run on the executor ``make_executor()`` makes (serial by default;
    the headless run's is ``addon.batch.world_executor``: it checks ``--workers`` / ``--scheduler`` after
    ``name`` and ``tiles`` are checked; workers write their tile files themselves, atomically;
    ``core.world.run_world`` skips tiles already complete and keeps ``<name>_world.json`` current after every
    tile), then, with ``[export] fbx``, each chosen tile whose FBX is not already listed whole in the world JSON
    is assembled from its files in this (bpy) process and written as ``<name>_<x>_<z>.fbx``
    (``operators.bridge.world_export.export_tile_fbx``), the world JSON lists the FBX files too, and the prop
    library ``<name>_props.fbx`` (each prop the placement files name, once) is written beside them when the
    recipe scatters props.  The files of tiles outside the grid that an earlier run left are removed
    (``core.world.run_world``: ``run.removed``), and so are the files of a single-terrain run of the same
    ``name`` (``single_outputs(out_dir, name)``, the fixed set, and ``<name>.blend``).  A Ctrl-C keeps every tile
    finished before it.
    """
    if not FILE_NAME.match(name or ""):
        raise ExportError(f"--name must be 1 to 64 letters, digits, '-' or '_' (no folders), got {short(name)}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ExportError(f"output folder {short(out_dir)} is a file, not a folder")
    grid = core_world.world_grid(recipe)
    chosen = core_world.parse_tile_range(tiles, grid) if tiles is not None else tuple(grid.tiles())
    executor = (make_executor or core_world.SerialExecutor)()  # checks --workers / --scheduler; starts nothing yet
    with outputs.new_folder(out_dir):  # a first run that failed before writing anything leaves no empty folder
        if not os.access(out_dir, os.W_OK):
            raise ExportError(f"output folder {short(out_dir)} is not writable")
        with outputs.folder_lock(out_dir, wait=wait):
            return _build_tiled_locked(recipe, out_dir, name, executor, chosen, progress, write_recipe, single_outputs)


def _build_tiled_locked(recipe, out_dir, name, executor, chosen, progress, write_recipe, single_outputs):
    with executor:
        if getattr(executor, "start_seconds", None) is not None:
            where = f"{executor.workers} workers" if executor.workers is not None else executor.scheduler
            print(f"worldseed: Dask cluster ({where}) ready in {executor.start_seconds:.1f} s", file=sys.stderr)
        run = core_world.run_world(recipe, out_dir, name=name, executor=executor, tiles=chosen, progress=progress)
    written = [os.path.join(out_dir, f["name"]) for tile in run.built for f in run.results[tile]["files"]]
    written += _overview(recipe, out_dir, name, run)
    if recipe.export.fbx:
        written += _tile_fbx(recipe, out_dir, name, run, chosen)
        written += _props_fbx(recipe, out_dir, name, run)
    if write_recipe:
        path = os.path.join(out_dir, "recipe.toml")
        core_unity.write_bytes_atomic(path, core_recipe.dumps(recipe).encode())
        written.append(path)
    written.append(run.path)
    # a single-terrain run's files of the same name (its .blend too): the folder holds one build
    single = set(single_outputs(out_dir, name)) if single_outputs is not None else set()
    single.add(os.path.join(out_dir, f"{name}.blend"))
    return run, written, list(run.removed) + remove_files(sorted(single - set(written)))


def _overview(recipe, out_dir, name, run):
    """``<name>_overview.png`` (``core.world.overview_png``: every tile's relief in its texture layers'
    colours, from the tiles' files) when ``[export] preview`` asks, the world is complete and this run built a
    tile or the file is missing; [] or its path."""
    path = os.path.join(out_dir, core_world.overview_name(name))
    if not recipe.export.preview or not run.complete or (not run.built and os.path.isfile(path)):
        return []
    core_unity.write_bytes_atomic(path, core_world.overview_png(recipe, run.grid, out_dir, name))
    return [path]


def _props_fbx(recipe, out_dir, name, run):
    """``<name>_props.fbx`` (the prop library the placement files' ``prop`` names) when the recipe
    scatters props and this run built a tile or the file is missing; [] or its path."""
    from ..operators.bridge import world_export

    path = os.path.join(out_dir, f"{name}_props.fbx")
    if not recipe.scatter or (not run.built and os.path.isfile(path)):
        return []
    return [world_export.export_props_fbx(recipe, path)]


def _tile_fbx(recipe, out_dir, name, run, chosen):
    """FBX of every chosen tile not listed whole in the world JSON, and again of every complete tile
    next to a tile this run built (its border normals come from its neighbours' files); the JSON
    then lists them."""
    from ..operators.bridge import world_export

    listed = {(t["x"], t["z"]): {f["name"] for f in t["files"]} for t in run.document["tiles"]}
    complete = {(t["x"], t["z"]) for t in run.document["tiles"] if t["complete"]}
    built = set(run.built)
    near_built = {
        (x, z) for x, z in complete if any((x + dx, z + dz) in built for dx in (-1, 0, 1) for dz in (-1, 0, 1))
    }
    fbx = {}
    fresh_scene()
    for x, z in sorted(set(chosen) | (near_built - built), key=lambda t: (t[1], t[0])):
        file_name = f"{core_world.tile_base(name, x, z)}.fbx"
        if (x, z) not in near_built and file_name in listed.get((x, z), ()):  # verified with the tile's files
            continue
        path = os.path.join(out_dir, file_name)
        fbx[(x, z)] = world_export.export_tile_fbx((x, z), path, recipe=recipe, folder=out_dir, name=name)
    if fbx:
        core_world.write_world_json(run.path, world_export.world_json_with_fbx(out_dir, name)(fbx))
    return list(fbx.values())
