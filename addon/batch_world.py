"""Headless tiled worlds: the ``[world] tiles`` path of ``worldseed_run.py``.

:func:`build_tiled_world` builds the sections a tiled world builds once (``[[trees]]``, ``[[level]]``),
runs ``core.world.run_world`` into the output folder under its lock (the tiles on the executor
``addon.batch`` makes for ``--workers`` / ``--scheduler``), then with ``[export] fbx`` writes each
tile's FBX and the prop library (``operators.bridge.world_export``), with ``[export] preview`` the
overview picture ``<name>_overview.png`` of a complete world, and moves them in with the files
of the sections built once and the world JSON listing everything, removing the files of a
single-terrain run of the same name, in one switch of files.  Also here, as
both runs need them: the ``--name`` rule (:data:`FILE_NAME`), :func:`fresh_scene` and the files of a
tiled world (:func:`world_outputs`) that a single-terrain run removes.
"""

import os
import re
import sys

import bpy

from ..core import recipe as core_recipe
from ..core import rivers as core_rivers
from ..core import roads as core_roads
from ..core import settlements as core_settlements
from ..core import terrain as core_terrain
from ..core import world as core_world
from ..core.errors import short
from ..operators.bridge import outputs
from ..operators.bridge.export import ExportError

#: What ``--name`` may be: 1 to 64 letters, digits, ``-`` or ``_``, no folders.
FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,63}$")
#: The sections a tiled world builds once for the whole world (``core.recipe.Section.tiled``).
ONCE = tuple(s for s in core_recipe.SECTIONS if s.tiled == "once")


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


def world_outputs(out_dir, name):
    """The files in ``out_dir`` of a tiled world run named ``name`` (what a single-terrain run of the
    same name removes, so the folder holds one build): ``<name>_world.json``, every file it lists (its
    tiles', its own and those of its sections built once; names in ``out_dir`` only, and never
    recipe.toml, which may be the recipe being read), ``<name>_props.fbx`` and ``<name>_overview.png``."""
    path = core_world.world_json_path(out_dir, name)
    document = core_world.read_world_json(path)
    if document is None:
        return []
    lists = [t.get("files", ()) for t in document.get("tiles", ()) if isinstance(t, dict)]
    lists.append(document.get("files", ()) if isinstance(document.get("files"), list) else ())
    names = {str(f.get("name", "")) for fs in lists if isinstance(fs, list) for f in fs if isinstance(f, dict)}
    names.update(core_world.once_names(document))
    names = {n for n in names if n and os.path.basename(n) == n and not n.startswith(".") and n != "recipe.toml"}
    names.update((f"{name}_props.fbx", core_world.overview_name(name)))  # listed or not (an older JSON)
    return [os.path.join(out_dir, n) for n in sorted(names)] + [path]


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
    then is refused in one line).  First the sections a tiled world builds once (``[[trees]]``,
    ``[[level]]``) are built and staged for the run's switch unless the world JSON lists them whole for
    this recipe (:func:`_once_files`: a bad level fails before the tiles).  The tiles run
    on the executor ``make_executor()`` makes (serial by default;
    the headless run's is ``addon.batch.world_executor``: it checks ``--workers`` / ``--scheduler`` after
    ``name`` and ``tiles`` are checked; workers write their tile files themselves, atomically;
    ``core.world.run_world`` skips tiles already complete and keeps ``<name>_world.json`` current after every
    tile), then, with ``[export] fbx``, each chosen tile whose FBX is not already listed whole in the world JSON
    is assembled from its files in this (bpy) process and written as ``<name>_<x>_<z>.fbx``, with the prop
    library ``<name>_props.fbx`` (each prop the placement files name, once) when the recipe scatters props and
    the world JSON does not list it whole, ``recipe.toml`` with ``write_recipe``, ``<name>_overview.png`` with
    ``[export] preview`` when the world is complete (:func:`_wants_overview`), and the staged files of the
    sections built once: these and the world JSON listing them all (each file with its size and SHA-256, those
    of the sections built once under ``"once"``: every file of the world but the JSON itself) go into the
    folder in one switch (``operators.bridge.world_export.export_world_fbx``; a kill before it leaves the
    earlier set, which the world JSON keeps listing, ``core.world.run_world`` carrying its ``"once"`` entry
    over; a kill at any rename is finished by the next run), with the removal of the files of a
    single-terrain run of the same ``name`` (``single_outputs(out_dir, name)``, the fixed set, and
    ``<name>.blend``), of a prop library or overview the world neither lists nor writes, and of the files of sections
    built once that this run does not write.  The files of tiles outside the grid that an earlier run left are removed
    (``core.world.run_world``: ``run.removed``).  A Ctrl-C keeps every tile finished before it.
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
    from ..operators.bridge import world_export

    earlier = core_world.read_world_json(core_world.world_json_path(out_dir, name))  # before the run rewrites it
    # one staging folder, one switch: the files of the sections built once are staged first (a bad level
    # fails before the tiles) and move in with the tile FBX, the prop library, recipe.toml and the world JSON
    stage = outputs.Staging(out_dir)  # under the folder's lock (build_tiled_world); discarded unless switched
    try:
        with outputs.explaining(stage):
            once_share = ONCE_SHARE if core_world.once_sections(recipe) else 0
            once, made = _once_files(recipe, out_dir, name, earlier, phase(progress, 0, once_share), stage)
        with executor:
            if getattr(executor, "start_seconds", None) is not None:
                where = f"{executor.workers} workers" if executor.workers is not None else executor.scheduler
                print(f"worldseed: Dask cluster ({where}) ready in {executor.start_seconds:.1f} s", file=sys.stderr)
            tell = phase(progress, once_share, TILES_END)
            run = core_world.run_world(recipe, out_dir, name=name, executor=executor, tiles=chosen, progress=tell)
        written = [os.path.join(out_dir, f["name"]) for tile in run.built for f in run.results[tile]["files"]]
        written += _animal_files_written(run, earlier, name, out_dir)
        props_name = f"{name}_props.fbx"
        listed = {f["name"] for f in run.document.get("files", ())}  # verified by run_world: the same recipe's
        tiles = _fbx_tiles(run, chosen, name) if recipe.export.fbx else []
        scatters = recipe.scatter or recipe.ecosystem.species  # the plants are placed as props too
        props = bool(recipe.export.fbx and scatters) and props_name not in listed
        extra = [("recipe.toml", core_recipe.dumps(recipe).encode())] if write_recipe else []
        networks = network_files(recipe, run.grid, name, out_dir)  # the whole world's graphs, beside the tiles' parts
        extra += [(n, data) for n, data in networks.items() if n not in listed]
        overview = core_world.overview_name(name)
        if _wants_overview(recipe, run, listed, overview):
            extra.append((overview, core_world.overview_png(recipe, run.grid, out_dir, name)))
        # a single-terrain run's files of the same name (its .blend too), a prop library or overview this
        # world neither lists nor writes (another recipe's), and the FBX of a section built once that this
        # world does not write (the world JSON's "once" names the rest): the folder holds one build
        stale = set(single_outputs(out_dir, name)) if single_outputs is not None else set()
        stale.add(os.path.join(out_dir, f"{name}.blend"))
        if not props and props_name not in listed:
            stale.add(os.path.join(out_dir, props_name))
        else:  # this world's prop library (a single run's of the same name would be stale)
            stale.discard(os.path.join(out_dir, props_name))
        if overview not in listed and not any(n == overview for n, _ in extra):  # another recipe's, or none asked
            stale.add(os.path.join(out_dir, overview))
        for file_name in [*core_terrain.network_file_names(name, rivers=True, roads=True), f"{name}_settlements.json"]:
            if file_name not in networks:  # an earlier world's networks, none now
                stale.add(os.path.join(out_dir, file_name))
        stale.update(os.path.join(out_dir, world_export.once_file_name(name, s.key)) for s in ONCE)
        keep = {os.path.basename(p) for paths in once.values() for p in paths}
        # the world's animal files (run_world wrote and listed them): a single run's names, this world's files
        keep.update(n for n in core_world.animal_world_names(name) if n in listed)
        # the world's graphs an earlier run of this recipe wrote and run_world verified (a single run's
        # names too): kept, not rewritten
        keep.update(n for n in networks if n in listed)
        stale = {p for p in stale if os.path.basename(p) not in keep}
        remove = sorted(p for p in stale - set(written) if os.path.isfile(p) and not os.path.islink(p))
        # the world JSON lists under "once" what run_world carried over from the earlier one: list this run's
        carried = set((run.document.get("once") or {}).keys())
        relist = made or carried != {k for k, paths in once.items() if paths}
        removed = []
        if tiles or props or extra or remove or relist:
            fresh_scene()
            # the tile FBX, the prop library, recipe.toml, the overview, the files of the sections built
            # once and the world JSON listing them all: one switch
            with outputs.explaining(stage):
                written += world_export.export_world_fbx(
                    recipe,
                    out_dir,
                    name,
                    tiles=tiles,
                    props=props,
                    extra=extra,
                    once_files=once,
                    remove=remove,
                    removed=removed,
                    stage=stage,
                    progress=phase(progress, TILES_END, PHASE_STEPS),
                )
    finally:
        stage.discard()
    if progress is not None:
        progress(PHASE_STEPS, PHASE_STEPS, "done")
    if run.path not in written:
        written.append(run.path)
    return run, written, list(run.removed) + removed


#: The steps of a tiled run's one rising progress line: the sections built once (trees, levels) take
#: the first ONCE_SHARE, the tiles up to TILES_END, the tiles' FBX and the world's files the rest.
PHASE_STEPS, ONCE_SHARE, TILES_END = 1000, 150, 850


def phase(progress, start, end):
    """``progress(done, total, stage)`` of one phase of a run, mapped into steps ``start`` .. ``end`` of
    :data:`PHASE_STEPS`, so the run's line only rises (found from outside: the trees and levels ended at
    100 %, then the tiles began at 12 %); a phase's own ``"done"`` is not said (the run says it at its end).

    >>> said = []
    >>> tell = phase(lambda *a: said.append(a), 0, 150)
    >>> tell(1, 2, "trees"); tell(2, 2, "done")
    >>> phase(lambda *a: said.append(a), 150, 850)(4, 4, "tile_1_1"); said
    [(75, 1000, 'trees'), (850, 1000, 'tile_1_1')]
    """
    if progress is None:
        return None

    def tell(done, total, stage):
        if stage == "done":
            return
        progress(start + (end - start) * min(done, total) // max(total, 1), PHASE_STEPS, stage)

    return tell


def _animal_files_written(run, earlier, name, out_dir):
    """The paths of the world's animal files (``core.world.animal_world_names``) that ``core.world.run_world``
    wrote in this run: listed now, not listed alike (name, size, SHA-256) by the ``earlier`` world JSON."""
    before = {
        (f.get("name"), f.get("bytes"), f.get("sha256"))
        for f in (earlier or {}).get("files", ())
        if isinstance(f, dict)
    }
    names = set(core_world.animal_world_names(name))
    now = [f for f in run.document.get("files", ()) if f.get("name") in names]
    return [os.path.join(out_dir, f["name"]) for f in now if (f["name"], f["bytes"], f["sha256"]) not in before]


def network_files(recipe, grid, name, out_dir):
    """``{file name: bytes}`` of a tiled world's whole networks and settlements: ``<name>_rivers.json``,
    ``<name>_roads.json`` and ``<name>_settlements.json`` of the plans its tiles carved and levelled
    (``core.world.world_networks``, ``core.world.world_settlements``; each tile's file holds its
    part; an eroded world's plans read the stitched heights in ``out_dir``'s world cache), empty without
    ``[rivers]`` / ``[roads]`` / ``[settlements]``."""
    settled = bool(recipe.settlements.enabled)
    if not core_world.wants_networks(recipe) and not settled:
        return {}
    bare = core_world.without_once(recipe)  # the tiles' recipe: the plan they carved, kept in this process
    digest = core_world.recipe_digest(bare)
    cache = core_world.cache_folder(out_dir, name)
    nets = core_world.world_networks(bare, grid, digest, cache)
    roads = core_world.planned_roads(bare, grid, digest, cache)
    files = {}
    if nets.rivers is not None:
        files[f"{name}_rivers.json"] = core_rivers.rivers_json_bytes(nets.rivers, name=name, origin=nets.origin)
    if roads is not None:
        files[f"{name}_roads.json"] = core_roads.roads_json_bytes(roads, name=name, origin=nets.origin)
    if settled:
        plan = core_world.world_settlements(bare, grid, digest, cache).settlements
        files[f"{name}_settlements.json"] = core_settlements.settlements_json_bytes(plan, name=name)
    return files


def _wants_overview(recipe, run, listed, overview):
    """Whether this run writes ``<name>_overview.png`` (``core.world.overview_png``: every tile's relief
    in its texture layers' colours, from the tiles' files): ``[export] preview`` asks, the world is
    complete, and this run built a tile or the world JSON does not list the picture whole (``listed``:
    the world's own files ``run_world`` verified for this recipe)."""
    return bool(recipe.export.preview and run.complete and (run.built or overview not in listed))


def _once_files(recipe, out_dir, name, earlier, progress, stage):
    """The files of the sections built once for the whole world (``core.world.once_sections``:
    ``[[trees]]``, ``[[level]]``): each one the world JSON ``earlier`` (read before this run) lists whole
    for this recipe is kept, the others are built and written into ``stage`` (``world_export.export_once``),
    for the run's switch.  Returns ``({key: paths}, made)``: the kept files in ``out_dir``, the made
    ones staged; ``made`` whether any file was staged.  A section that wrote no file (trees with
    ``[export] fbx = false``) gets a note."""
    from ..operators.bridge import world_export

    sections = core_world.once_sections(recipe)
    known = core_world.verify_once(out_dir, earlier, recipe_sha256=core_world.recipe_digest(recipe))
    once = {s.key: [os.path.join(out_dir, f["name"]) for f in known[s.key]] for s in sections if s.key in known}
    todo = tuple(s.key for s in sections if s.key not in once)
    made = {}
    if todo:
        made = world_export.export_once(
            recipe, out_dir, name, keys=todo, scene=fresh_scene(), progress=progress, stage=stage
        )
        for section in sections:
            if section.key in made and not made[section.key]:
                print(f"worldseed: note: {section.header} wrote no file ([export] fbx = false)", file=sys.stderr)
    once.update(made)
    return {s.key: once[s.key] for s in sections if s.key in once}, any(made.values())


def _fbx_tiles(run, chosen, name):
    """The tiles whose FBX to write: every chosen tile whose FBX the world JSON does not list whole, and
    again every complete tile next to a tile this run built (its border normals come from its
    neighbours' files)."""
    listed = {(t["x"], t["z"]): {f["name"] for f in t["files"]} for t in run.document["tiles"]}
    complete = {(t["x"], t["z"]) for t in run.document["tiles"] if t["complete"]}
    built = set(run.built)
    near_built = {
        (x, z) for x, z in complete if any((x + dx, z + dz) in built for dx in (-1, 0, 1) for dz in (-1, 0, 1))
    }
    tiles = []
    for x, z in sorted(set(chosen) | (near_built - built), key=lambda t: (t[1], t[0])):
        if (x, z) not in near_built and f"{core_world.tile_base(name, x, z)}.fbx" in listed.get((x, z), ()):
            continue  # verified with the tile's files
        tiles.append((x, z))
    return tiles
