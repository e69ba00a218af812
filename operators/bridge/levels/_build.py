"""Levels: a core :class:`~core.levels.Level` into Blender, built or rebuilt in place.

A level is one root object named after the level: the level mesh (floor, wall
and ceiling quads, three materials whose base colours FBX and glTF carry), or,
built from a modular kit, an empty whose child ``<Name>_Kit`` instances the
kit's modules through Geometry Nodes (:mod:`.instancing`, shared meshes, as the
scatter does).  The markers are child empties (``<Level>_Spawn``, ``<Level>_Exit``,
``<Level>_Loot_001``, ``<Level>_Enemy_003`` ...) standing on their cells, so Unity gets a
GameObject at each.  The root sits at the level's ``origin`` (its south-west
corner) and carries its settings (``worldseed_level``) and its 2-D map as an
image (``worldseed_level_map``).  Used by the operators and the headless run
alike; a build that fails removes what it made, leaving the scene as it was.

Coordinates: column ``x`` runs along +X, row ``y`` (row 0 at the top, north)
along -Y, so cell ``(x, y)`` of a ``width x height`` level has its centre at
``((x + 0.5) * cell, (height - y - 0.5) * cell, 0)`` from the origin.

Names are stable and unique, for Unity scripts to find: the root is the
level's name (a second level of a name taken gets ``<name>_001``, never
Blender's ``.001``), its markers ``<Level>_Spawn``, ``<Level>_Exit``,
``<Level>_Enemy_001``, ``<Level>_Loot_001``, its kit object ``<Level>_Kit``.
An Update removes the old level before it makes the new markers, so they
take the same names again.

Its parts live beside it in this package (reached through its face, :mod:`.levels`): the stored
settings and the cache of levels in ``_store``, the materials, level mesh, marker names and map image
in ``_pieces``, the kits in ``_kit``, the WFC tile objects and samples in ``_wfc``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np

from ....core import levels as core_levels
from ....core import preview as core_preview
from ....core.errors import ParameterError
from ....core.steps import drive
from ..mesh import mesh_of, remove_objects
from ._kit import kit_object
from ._objects import KIND_KEY, LEVEL_KIND, LEVEL_MAP_KEY, LEVEL_MARKER_KIND, LEVEL_MODULE_KIND, level_root
from ._pieces import level_mesh, map_image, marker_names, marker_positions
from ._store import (
    BASE_KEY,
    GEOMETRY_KEY,
    KIT_KEY,
    SAMPLE_IMAGE_KEY,
    SPEC_KEY,
    TILES_MISSING_KEY,
    level_for,
    level_steps,
    spec_json,
    stored_level,
    stored_spec,
)
from ._wfc import naming_image, tile_modules, tile_placements, tiles_object

if TYPE_CHECKING:
    from ....core.levels import Level, LevelSpec
    from ....core.recipe import Recipe
    from ....core.steps import Steps
    from ..world import World

__all__ = [
    "MARKER_KEY",
    "GEOMETRIES",
    "MAX_MARKERS",
    "MARKER_MARGIN",
    "check_level_size",
    "build_level",
    "build_steps",
    "build_section",
    "free_level_name",
    "level_files",
    "level_warnings",
]

MARKER_KEY = "worldseed_marker"  # on a marker empty: its kind
#: How a level becomes geometry: its own mesh, the modules of a kit collection, or (WFC tiles) the
#: artist's tile objects, one per WFC cell.
GEOMETRIES = ("MESH", "KIT", "TILES")
#: Most marker objects (one empty each) a level may get: beyond, Blender slows to a crawl (182,000 took
#: 30 s and 4.6 GB); the build is refused before any object is made.
MAX_MARKERS = 20_000
#: A level whose estimated markers (``core.levels.estimate_markers``, within ~7 % at the defaults) pass
#: MAX_MARKERS by this factor is refused before it is made; nearer the limit it is made and counted.
MARKER_MARGIN = 1.25


def check_level_size(spec: LevelSpec, geometry: str = "MESH") -> None:
    """Refuse, before the level is made (milliseconds), a ``spec`` whose level could not be built: a
    mesh of more than ``core.levels.MAX_MESH_CELLS`` cells, or markers well over :data:`MAX_MARKERS`
    (estimated from a small level of the same settings: a 4096 x 4096 BSP dungeon or cave was
    refused only after it was made, 1.5 to 3 minutes).  A level near the marker limit is made and
    its markers counted (:func:`build_level`)."""
    rows, cols = core_levels.grid_shape(spec)
    if geometry == "MESH" and rows * cols > core_levels.MAX_MESH_CELLS:
        side = int(core_levels.MAX_MESH_CELLS**0.5)
        raise ParameterError(
            f"level {spec.name!r} is {cols} x {rows} = {rows * cols:,} cells, more than the "
            f"{core_levels.MAX_MESH_CELLS:,} ({side} x {side}) a level mesh may have (it would exhaust memory): "
            "make width or height smaller"
        )
    estimate = core_levels.estimate_markers(spec)  # None: small, counted once made
    if estimate is not None and estimate > MARKER_MARGIN * MAX_MARKERS:
        raise ParameterError(
            f"level {spec.name!r} would get about {estimate:,} markers, one object each (estimated from a small "
            f"level of the same settings), more than {MAX_MARKERS:,}: lower enemy_density ({spec.enemy_density:g}) "
            f"or loot_chance ({spec.loot_chance:g}), or make the level smaller ({spec.width} x {spec.height})"
        )


# --------------------------------------------------------------------------- objects


def _markers(level: Level, spec: LevelSpec, root: bpy.types.Object, made: list[bpy.types.Object]) -> None:
    names = marker_names(level.markers, root.name)
    positions = marker_positions(level, spec.cell_size)
    size = 0.4 * spec.cell_size
    # made in name order: Blender appends each new object at the end of its sorted list in constant time
    for i in sorted(range(len(names)), key=lambda i: names[i].lower()):  # Blender sorts without case
        marker = level.markers[i]
        empty = bpy.data.objects.new(names[i], None)
        made.append(empty)
        empty.empty_display_type = "SINGLE_ARROW" if marker.kind in ("spawn", "exit") else "PLAIN_AXES"
        empty.empty_display_size = size
        empty.location = positions[i]
        empty.parent = root
        empty[KIND_KEY] = LEVEL_MARKER_KIND
        empty[MARKER_KEY] = marker.kind


def _own_keys(obj: bpy.types.Object) -> dict[str, Any]:
    return {k: obj[k] for k in obj.keys() if not k.startswith("worldseed_")}


def _remove_level(root: bpy.types.Object) -> Any:
    """Remove a level root with its markers and kit object (and the kit's node tree, when unused)."""
    objs = [root, *root.children_recursive]
    nodes = [cast(bpy.types.NodesModifier, m) for o in objs for m in o.modifiers if m.type == "NODES"]
    trees = [m.node_group for m in nodes if m.node_group is not None]
    image = root.get(LEVEL_MAP_KEY)
    remove_objects(objs)
    for tree in trees:
        if tree.users == 0:
            bpy.data.node_groups.remove(tree)
    return image


def _tiles_plan(level: Level, spec: LevelSpec, collection: bpy.types.Collection | None) -> dict[str, Any]:
    """What a ``"TILES"`` build places: the placements of every WFC cell, the tile objects found in
    ``collection`` and the base tiles (and cells) without one."""
    wfc = getattr(level, "wfc", None)
    if wfc is None or wfc.model != "tiled" or not wfc.base_names:
        raise ParameterError(
            f"tile_objects: level {spec.name!r} is no WFC (tiles) level (generator {spec.generator!r}); "
            "tile objects stand on the cells of a WFC tileset's tiles"
        )
    placed = tile_placements(wfc, cell_size=spec.cell_size)
    modules, missing = tile_modules(collection, placed.names)
    used = set(np.unique(placed.tiles).tolist())
    missing = [n for n in missing if placed.names.index(n) in used]
    lacking = np.isin(placed.tiles, [placed.names.index(n) for n in missing]).reshape(np.shape(wfc.ids))
    return {"placed": placed, "modules": modules, "missing": missing, "missing_cells": lacking}


def free_level_name(name: str) -> str:
    """``name`` when no object has it, else ``name_001``, ``name_002`` ... (the first free): a level's
    object name is its file stem, so it takes no ``.001`` from Blender."""
    if bpy.data.objects.get(name) is None:
        return name
    n = 1
    while True:
        candidate = f"{name[: 48 - 1 - max(3, len(str(n)))]}_{n:03d}"
        if bpy.data.objects.get(candidate) is None:
            return candidate
        n += 1


def build_level(
    spec: LevelSpec,
    *,
    collection: bpy.types.Collection,
    replace: bpy.types.Object | None = None,
    geometry: str = "MESH",
    kit: bpy.types.Collection | None = None,
    level: Level | None = None,
    base: str | None = None,
    sample_image: bpy.types.Image | None = None,
) -> bpy.types.Object:
    """Build (or rebuild in place) the level ``spec`` describes; returns its root object.

    A new level's root stands at ``spec.origin``, named ``spec.name`` or, when an object has that
    name, the first free ``<name>_001``, ``<name>_002`` ... (stored as its name).  ``replace`` (a level root)
    is rebuilt in place: the new root takes its name, transform, parent,
    collections, custom properties and map image.  ``geometry`` is ``"MESH"``,
    ``"KIT"`` (with ``kit``, a collection of modules named by role) or, for a WFC (tiles) level,
    ``"TILES"`` (with ``kit``, a collection of objects named after the base tiles: one per WFC cell,
    turned as its variant; cells whose tile has no object keep the level mesh, and the root's
    ``worldseed_level_tiles_missing`` lists those tiles).  ``base`` is the folder a WFC tileset or
    sample path is relative to, ``sample_image`` the image of the .blend whose pixels the sample file
    holds (:func:`._wfc.sample_file`; both kept on the root for rebuilds and exports).
    A level whose kit was made real is not rebuilt (that would delete the
    real modules, hand edits and all).  Nothing is changed when the build fails.
    """
    if geometry not in GEOMETRIES:
        raise ParameterError(f"geometry must be one of {list(GEOMETRIES)}, got {geometry!r}")
    if replace is not None:
        real = [o for o in replace.children_recursive if o.get(KIND_KEY) == LEVEL_MODULE_KIND]
        if real:
            raise ParameterError(
                f"{replace.name} has {len(real):,} real kit modules; Update would delete them — delete them, "
                "or unparent them (Alt+P) to keep them, then Update"
            )
    if level is None:
        check_level_size(spec, geometry)
        with naming_image(sample_image):  # the image's name, not the temporary PNG of its pixels
            level = level_for(spec, base=base)
    if len(level.markers) > MAX_MARKERS:
        raise ParameterError(
            f"level {spec.name!r} would get {len(level.markers):,} markers, one object each, more than "
            f"{MAX_MARKERS:,}: lower enemy_density ({spec.enemy_density:g}) or loot_chance ({spec.loot_chance:g})"
        )
    tiles = _tiles_plan(level, spec, kit) if geometry == "TILES" else None
    if replace is None and free_level_name(spec.name) != spec.name:
        spec = core_levels.from_dict({**core_levels.to_dict(spec), "name": free_level_name(spec.name)})
    name = replace.name if replace is not None else spec.name
    made, meshes = [], []
    try:
        if geometry == "MESH" or (tiles is not None and tiles["missing_cells"].all()):
            me = level_mesh(level, spec, name)
            meshes.append(me)
            root = bpy.data.objects.new(name, me)
        elif tiles is not None and tiles["missing_cells"].any():
            me = level_mesh(level, spec, name, cells=tiles["missing_cells"])
            meshes.append(me)
            root = bpy.data.objects.new(name, me)
        else:
            root = bpy.data.objects.new(name, None)
            root.empty_display_type = "PLAIN_AXES"
            root.empty_display_size = spec.cell_size
        made.append(root)
        kit_obj = None
        if geometry == "KIT":
            kit_obj = kit_object(level, spec, kit, name, made)
        elif tiles is not None:
            kit_obj = tiles_object(tiles["placed"], tiles["modules"], name, made)
        if kit_obj is not None:
            kit_obj.parent = root
        image = map_image(level, name, replace.get(LEVEL_MAP_KEY) if replace is not None else None)
    except BaseException:
        remove_objects(made)
        for me in meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        raise
    # the scene changes from here on only
    if replace is not None:
        matrix, parent, collections, keep = (
            replace.matrix_world.copy(),
            replace.parent,
            list(replace.users_collection),
            _own_keys(replace),
        )
        old_name = replace.name
        view_layer = cast(bpy.types.ViewLayer, bpy.context.view_layer)
        active = view_layer.objects.active
        was_active = active is not None and level_root(active) == replace
        was_selected = replace.name in view_layer.objects and replace.select_get()
        _remove_level(replace)  # before the new markers are made: their names are free again
        root.name = old_name
        if root.type == "MESH":
            mesh_of(root).name = old_name
        if kit_obj is not None:
            kit_obj.name = f"{old_name}_{'Kit' if geometry == 'KIT' else 'Tiles'}"
        for key, value in keep.items():
            root[key] = value
    else:
        matrix, parent, collections = None, None, [collection]
    try:
        _markers(level, spec, root, made)
    except BaseException:  # hardly happens (objects.new of an empty); the old level is gone by now
        remove_objects(made)
        raise
    for obj in made:
        for coll in collections:
            coll.objects.link(obj)
    root[KIND_KEY] = LEVEL_KIND
    root[SPEC_KEY] = spec_json(spec)
    root[GEOMETRY_KEY] = geometry
    if kit is not None and geometry in ("KIT", "TILES"):
        root[KIT_KEY] = kit
    for key, value in ((BASE_KEY, base), (SAMPLE_IMAGE_KEY, sample_image)):
        if value is not None:
            root[key] = os.path.abspath(cast(str, value)) if key == BASE_KEY else value
        elif key in root.keys():
            del root[key]
    if tiles is not None:
        root[TILES_MISSING_KEY] = tiles["missing"]
    elif TILES_MISSING_KEY in root.keys():
        del root[TILES_MISSING_KEY]
    root[LEVEL_MAP_KEY] = image
    if matrix is not None:
        root.parent = parent
        root.matrix_world = matrix
        if was_active or was_selected:  # the rebuilt level is selected and active as the old one was
            view_layer.update()  # let the view layer see the new objects
            if root.name in view_layer.objects:
                root.select_set(True)
                if was_active:
                    view_layer.objects.active = root
    else:
        root.location = tuple(spec.origin)
    return root


def _alive(obj: bpy.types.Object) -> bool:
    """False once ``obj`` was removed from the .blend."""
    try:
        return obj.name is not None
    except ReferenceError:
        return False


def build_steps(
    spec: LevelSpec,
    *,
    collection: bpy.types.Collection,
    geometry: str = "MESH",
    kit: bpy.types.Collection | None = None,
    base: str | None = None,
    sample_image: bpy.types.Image | None = None,
    replace: bpy.types.Object | None = None,
) -> Steps[bpy.types.Object]:
    """:func:`build_level` as steps for a modal run: yields the WFC solver's ``(done, total, label)``
    while the level is made, then builds it (nothing in the scene changes before); returns the root.
    Closing the steps early (Esc) leaves the scene as it was; ``replace`` deleted meanwhile is an error."""
    name = replace.name if replace is not None else None
    check_level_size(spec, geometry)
    with naming_image(sample_image):  # the image's name, not the temporary PNG of its pixels
        level = yield from level_steps(spec, base=base)
    yield 1, 1, "building"
    if replace is not None and not _alive(replace):  # the artist may delete the level while it is made
        raise ParameterError(f"level {name!r} was deleted while it was made: nothing to update")
    return build_level(
        spec,
        collection=collection,
        replace=replace,
        geometry=geometry,
        kit=kit,
        level=level,
        base=base,
        sample_image=sample_image,
    )


def level_files(root: bpy.types.Object, stem: str) -> dict[str, bytes]:
    """``{file name: bytes}`` of the level ``root``: ``<stem>.tmx`` with its tileset (``.tsx`` and image),
    ``<stem>_level.json`` and ``<stem>_level.png``, placed where the root stands (its south-west corner
    at the root's world position, as in the FBX)."""
    spec = stored_spec(root)
    level = stored_level(root)
    origin = tuple(float(v) for v in root.matrix_world.translation.to_tuple())
    cs = spec.cell_size
    tileset = spec.autotile  # the Tiled map's auto-tiles
    files = dict(core_levels.tiled_files(level, name=stem, tileset=tileset, cell_size=cs, origin=origin))
    files[f"{stem}_level.json"] = core_levels.level_json_bytes(level, name=stem, cell_size=cs, origin=origin)
    files[f"{stem}_level.png"] = core_preview.png_bytes(core_levels.level_image(level))
    return files


def build_section(
    recipe: Recipe, world: World, *, scene: bpy.types.Scene, progress: Callable[[int, int, str], object] | None = None
) -> None:
    """``[[level]]`` of a world build (see :mod:`.world`): each level made in the recipe's order (the
    progress shows them so, a WFC level its solver's progress too), then built as a mesh at its origin
    in name order (Blender adds objects named after the last ones in constant time: 4 levels of 10,000
    markers each take 2.4 s so, 7 s in reverse order) and added to the world in the recipe's order."""
    total = len(recipe.level)
    steps = 2 * total  # making each level, then building each
    for spec in recipe.level:  # every level buildable before the first is made
        try:
            check_level_size(spec)
        except ParameterError as err:
            err.spec = spec  # type: ignore[attr-defined]  # read by world.build_world
            raise
    levels = []
    for i, spec in enumerate(recipe.level):
        if progress is not None:
            progress(i, steps, f"level {spec.name}")
        # a WFC level reports its solver's progress as a fraction of this level's step
        within = None
        if progress is not None:
            within = lambda d, t, label, i=i, name=spec.name: progress(  # noqa: E731
                i + d / max(t, 1), steps, f"level {name}: {label}"
            )
        try:
            levels.append(drive(level_steps(spec), within))
        except ParameterError as err:
            err.spec = spec  # type: ignore[attr-defined]  # world.build_world names the entry: level[1]
            raise
        for line in core_levels.level_warnings(levels[-1], name=spec.name):
            print(f"worldseed: warning: {line}", file=sys.stderr)
    # Blender sorts names without case: "Crypt2_Spawn" before "Crypt_Spawn", so Crypt2 is built first
    order = sorted(range(total), key=lambda i: (recipe.level[i].name + "_").lower())
    roots = {}
    for done, i in enumerate(order):
        spec = recipe.level[i]
        if progress is not None:
            progress(total + done, steps, f"building level {spec.name}")
        try:
            roots[i] = build_level(spec, collection=scene.collection, level=levels[i])
        except ParameterError as err:
            err.spec = spec  # type: ignore[attr-defined]  # read by world.build_world
            raise
    world.roots.extend(roots[i] for i in range(total))
    if progress is not None and total:
        progress(steps, steps, "levels")


def level_warnings(root: bpy.types.Object) -> list[str]:
    """What the user should hear about the level under ``root`` (a WFC level in several regions)."""
    try:
        level = stored_level(root)
    except ParameterError:  # its files are gone: nothing to say about it here
        return []
    return core_levels.level_warnings(level, name=root.name)
