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
"""

import json
import os

import bpy
import numpy as np

from ...core import levels as core_levels
from ...core import preview as core_preview
from ...core.errors import ParameterError
from ...core.levels import spec as level_spec
from ...core.steps import drive
from .level_kit import KIT_FALLBACK as KIT_FALLBACK
from .level_kit import KIT_MODULES_KEY as KIT_MODULES_KEY
from .level_kit import (
    KIT_OBJECT_NAME,
    KIT_ROLES,
    kit_modules,
    kit_object,
    kits_as_objects,
    make_kit_real,
    remove_kit,
)
from .level_kit import KIT_ROLES_KEY as KIT_ROLES_KEY
from .level_wfc import cells_quads, sample_file, tile_modules, tile_placements, tiles_object
from .mesh import mesh_from_topology, remove_objects
from .query import (
    KIND_KEY,
    LEVEL_KIND,
    LEVEL_KIT_KIND,
    LEVEL_MAP_KEY,
    LEVEL_MARKER_KIND,
    level_root,
)
from .query import level_kit_of as level_kit_of  # re-exported: world.py reaches it as bridge_level.level_kit_of

__all__ = [
    "SPEC_KEY",
    "GEOMETRY_KEY",
    "KIT_KEY",
    "MARKER_KEY",
    "GEOMETRIES",
    "MATERIAL_NAMES",
    "KIT_ROLES",
    "level_for",
    "level_steps",
    "build_steps",
    "stored_source",
    "BASE_KEY",
    "SAMPLE_IMAGE_KEY",
    "TILES_MISSING_KEY",
    "build_level",
    "free_level_name",
    "MAX_MARKERS",
    "stored_spec",
    "stored_geometry",
    "spec_json",
    "marker_names",
    "marker_positions",
    "kit_modules",
    "map_pixels",
    "make_kit_real",
    "kits_as_objects",
    "remove_kit",
    "KIT_OBJECT_NAME",
    "level_files",
    "build_section",
]

SPEC_KEY = "worldseed_level"  # on the root: the level's settings as JSON (core.levels.to_dict)
GEOMETRY_KEY = "worldseed_level_geometry"  # on the root: "MESH" or "KIT"
KIT_KEY = "worldseed_level_kit"  # on the root: the kit (or WFC tile objects) collection (an ID property)
BASE_KEY = "worldseed_level_base"  # on the root: folder a WFC tileset/sample path is relative to
SAMPLE_IMAGE_KEY = "worldseed_level_sample_image"  # on the root: the image a WFC sample was read from
TILES_MISSING_KEY = "worldseed_level_tiles_missing"  # on the root: base tiles without an object
MARKER_KEY = "worldseed_marker"  # on a marker empty: its kind
#: How a level becomes geometry: its own mesh, the modules of a kit collection, or (WFC tiles) the
#: artist's tile objects, one per WFC cell.
GEOMETRIES = ("MESH", "KIT", "TILES")
#: The level mesh's material slots (core's material ids 0, 1, 2) and their base colours (linear RGB).
MATERIAL_NAMES = ("Worldseed Level Floor", "Worldseed Level Wall", "Worldseed Level Ceiling")
MATERIAL_COLOURS = ((0.30, 0.27, 0.22), (0.52, 0.50, 0.47), (0.20, 0.20, 0.23))
#: Most marker objects (one empty each) a level may get: beyond, Blender slows to a crawl (182,000 took
#: 30 s and 4.6 GB); the build is refused before any object is made.
MAX_MARKERS = 20_000
#: Largest side of the map image kept in the .blend (the panel shows it as an icon; the PNG file is full size).
MAP_SIDE = 512


# --------------------------------------------------------------------------- core


#: The last few levels made: ``(spec, base) -> Level`` (a rebuild, an export and a preview of the same
#: settings generate once).
_LEVELS = {}
_LEVELS_KEPT = 4


def _files_stamp(spec, base):
    """``(mtime, size)`` of the WFC tileset and sample files ``spec`` reads: an edited tileset makes a
    new level on Update, not the cached one."""
    if spec.generator not in core_levels.WFC_GENERATORS:
        return ()
    stamp = []
    for key in ("tileset", "sample"):
        value = getattr(spec, key)
        if not value or (key == "tileset" and value in core_levels.AUTOTILE_SETS):
            continue
        try:
            info = os.stat(core_levels.resolve_file(value, key=key, base=base)[0])
        except (ParameterError, OSError):
            continue  # generating says what is wrong
        stamp.append((info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def level_steps(spec, *, base=None):
    """Steps of making the :class:`Level` ``spec`` describes: yields ``(done, total, label)`` (the WFC
    solver's progress), returns the level.  ``base`` is the folder a relative WFC tileset or sample
    path is found in.  Cached, see :func:`level_for` (a WFC level also by its files' times and sizes)."""
    key = (spec, None if base is None else os.path.abspath(base), _files_stamp(spec, base))
    level = _LEVELS.get(key)
    if level is None:
        level = yield from core_levels.generate_steps(spec, base=base)
        while len(_LEVELS) >= _LEVELS_KEPT:
            _LEVELS.pop(next(iter(_LEVELS)))
        _LEVELS[key] = level
    return level


def level_for(spec, *, base=None):
    """The :class:`Level` ``spec`` describes (the last few are cached)."""
    return drive(level_steps(spec, base=base))


def spec_json(spec):
    """``spec`` as the JSON text stored on a level root."""
    return json.dumps(core_levels.to_dict(spec), sort_keys=True)


def stored_spec(obj):
    """The :class:`LevelSpec` a level (``obj`` or the level it belongs to) was built from."""
    root = level_root(obj)
    if root is None:
        raise ParameterError(f"object {obj.name!r} is not part of a Worldseed level")
    try:
        data = json.loads(root[SPEC_KEY])
    except (KeyError, ValueError):
        raise ParameterError(f"level {root.name!r} has lost its settings ({SPEC_KEY})") from None
    image = root.get(SAMPLE_IMAGE_KEY)
    if image is not None and data.get("sample"):
        data["sample"] = sample_file(image)  # the image's pixels as the PNG the sample names (made again if gone)
    base = root.get(BASE_KEY)
    return core_levels.from_dict(data, prefix=f"object {root.name!r}: level.", base=base)


def stored_geometry(obj):
    """``("MESH", None)``, ``("KIT", collection)`` or ``("TILES", collection)`` of the level ``obj``
    belongs to."""
    root = level_root(obj)
    return root.get(GEOMETRY_KEY, "MESH"), root.get(KIT_KEY)


def stored_source(obj):
    """``(base, sample image)`` a WFC level was made with (``(None, None)`` for the others)."""
    root = level_root(obj)
    return root.get(BASE_KEY), root.get(SAMPLE_IMAGE_KEY)


def stored_level(obj):
    """The :class:`Level` the level ``obj`` belongs to was built from (made again, or cached)."""
    return level_for(stored_spec(obj), base=stored_source(obj)[0])


# --------------------------------------------------------------------------- pieces


def _material(name, rgb):
    """A plain material of base colour ``rgb`` (what the FBX diffuse colour and glTF's
    ``baseColorFactor`` carry), made once per file."""
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    rgba = (*rgb, 1.0)
    mat.diffuse_color = rgba
    mat.roughness = 0.85
    bsdf = next((n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        bsdf = mat.node_tree.nodes.new("ShaderNodeBsdfPrincipled")
        out = next((n for n in mat.node_tree.nodes if n.type == "OUTPUT_MATERIAL"), None)
        out = out or mat.node_tree.nodes.new("ShaderNodeOutputMaterial")
        mat.node_tree.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Roughness"].default_value = 0.85
    return mat


def level_materials():
    """The floor, wall and ceiling materials (slots 0, 1, 2 of every level mesh)."""
    return [_material(n, c) for n, c in zip(MATERIAL_NAMES, MATERIAL_COLOURS)]


def _level_mesh(level, spec, name, cells=None):
    """The level mesh as a Blender quad mesh with world-scaled UVs and its three material slots (floor,
    wall, ceiling), its south-west corner at the object's origin; with ``cells`` ((height, width)
    bool) only the faces of those cells."""
    quads = core_levels.level_quads(
        level, cell_size=spec.cell_size, wall_height=spec.wall_height, ceiling=spec.ceiling, origin=(0.0, 0.0, 0.0)
    )
    if cells is None:
        vertices, topology, corner_uvs, materials = (
            quads.vertices,
            quads.topology(),
            quads.corner_uvs(),
            quads.materials,
        )
    else:
        vertices, topology, corner_uvs, materials = cells_quads(
            quads, cells, cell_size=spec.cell_size, height=level.height
        )
    me = mesh_from_topology(name, vertices, topology, corner_uvs=corner_uvs)
    try:
        attr = me.attributes.get("material_index") or me.attributes.new("material_index", "INT", "FACE")
        attr.data.foreach_set("value", np.ascontiguousarray(materials, np.int32))
        for mat in level_materials():
            me.materials.append(mat)
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def marker_names(markers, level=None):
    """Object names of the markers: ``<level>_Spawn``, ``<level>_Exit`` (when one of their kind), else
    ``<level>_Kind_001``.. per kind (more digits when a kind has 1,000 or more); without ``level``, the
    names without the prefix.  Prefixed with the level's name they are unique and stable across
    Updates, so a Unity script can find them (``GameObject.Find("Crypt_Spawn")``).

    >>> from collections import namedtuple
    >>> M = namedtuple("M", "kind x y")
    >>> marker_names([M("spawn", 1, 1), M("enemy", 2, 2), M("enemy", 3, 3), M("exit", 4, 4)], "Crypt")
    ['Crypt_Spawn', 'Crypt_Enemy_001', 'Crypt_Enemy_002', 'Crypt_Exit']
    """
    counts, seen, out = {}, {}, []
    prefix = f"{level}_" if level else ""
    for m in markers:
        counts[m.kind] = counts.get(m.kind, 0) + 1
    for m in markers:
        seen[m.kind] = seen.get(m.kind, 0) + 1
        if counts[m.kind] == 1 and m.kind in ("spawn", "exit"):
            out.append(prefix + m.kind.title())
        else:
            out.append(f"{prefix}{m.kind.title()}_{seen[m.kind]:0{max(3, len(str(counts[m.kind])))}d}")
    return out


def marker_positions(level, cell_size):
    """(N, 3) float64 positions of the markers' cell centres on the floor, from the level's south-west corner."""
    xy = np.array([(m.x, m.y) for m in level.markers], np.float64).reshape(-1, 2)
    out = np.zeros((len(xy), 3))
    out[:, 0] = (xy[:, 0] + 0.5) * cell_size
    out[:, 1] = (level.height - xy[:, 1] - 0.5) * cell_size
    return out


def _markers(level, spec, root, made):
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


def map_pixels(rgb):
    """Blender image pixels (bottom row first, RGBA float32, flat) of a uint8 (h, w, 3) picture whose
    row 0 is the top, sampled down to at most :data:`MAP_SIDE` per side; returns ``(pixels, w, h)``."""
    rgb = np.asarray(rgb)
    step = max(1, -(-max(rgb.shape[:2]) // MAP_SIDE))
    rgb = rgb[::step, ::step]
    h, w = rgb.shape[:2]
    px = np.ones((h, w, 4), np.float32)
    px[..., :3] = rgb[::-1, :, :3] * np.float32(1 / 255)
    return px.ravel(), w, h


def _map_image(level, name, image=None):
    """The level's 2-D map as an image datablock (made, or ``image`` refilled), with its preview icon."""
    pixels, w, h = map_pixels(core_levels.level_image(level, max_side=MAP_SIDE))
    if image is None:
        image = bpy.data.images.new(f"{name} Map", w, h, alpha=False)
    elif tuple(image.size) != (w, h):
        image.scale(w, h)
    image.pixels.foreach_set(pixels)
    image.update()
    preview = image.preview_ensure()  # the panel's icon: the map itself, not a blurred thumbnail of it
    preview.image_size = (w, h)
    preview.image_pixels_float.foreach_set(pixels)
    return image


# --------------------------------------------------------------------------- objects


def _own_keys(obj):
    return {k: obj[k] for k in obj.keys() if not k.startswith("worldseed_")}


def _remove_level(root):
    """Remove a level root with its markers and kit object (and the kit's node tree, when unused)."""
    objs = [root, *root.children_recursive]
    trees = [m.node_group for o in objs for m in o.modifiers if m.type == "NODES" and m.node_group is not None]
    image = root.get(LEVEL_MAP_KEY)
    remove_objects(objs)
    for tree in trees:
        if tree.users == 0:
            bpy.data.node_groups.remove(tree)
    return image


def _tiles_plan(level, spec, collection):
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


def free_level_name(name):
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


def build_level(spec, *, collection, replace=None, geometry="MESH", kit=None, level=None, base=None, sample_image=None):
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
    holds (:func:`.level_wfc.sample_file`; both kept on the root for rebuilds and exports).
    A level whose kit was made real is not rebuilt (that would delete the
    real modules, hand edits and all).  Nothing is changed when the build fails.
    """
    if geometry not in GEOMETRIES:
        raise ParameterError(f"geometry must be one of {list(GEOMETRIES)}, got {geometry!r}")
    if replace is not None:
        real = [o for o in replace.children_recursive if o.get(KIND_KEY) == LEVEL_KIT_KIND + "_module"]
        if real:
            raise ParameterError(
                f"{replace.name} has {len(real):,} real kit modules; Update would delete them — delete them, "
                "or unparent them (Alt+P) to keep them, then Update"
            )
    if level is None:
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
            me = _level_mesh(level, spec, name)
            meshes.append(me)
            root = bpy.data.objects.new(name, me)
        elif tiles is not None and tiles["missing_cells"].any():
            me = _level_mesh(level, spec, name, cells=tiles["missing_cells"])
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
        image = _map_image(level, name, replace.get(LEVEL_MAP_KEY) if replace is not None else None)
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
        view_layer = bpy.context.view_layer
        active = view_layer.objects.active
        was_active = active is not None and level_root(active) == replace
        was_selected = replace.name in view_layer.objects and replace.select_get()
        _remove_level(replace)  # before the new markers are made: their names are free again
        root.name = old_name
        if root.type == "MESH":
            root.data.name = old_name
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
            root[key] = os.path.abspath(value) if key == BASE_KEY else value
        elif key in root:
            del root[key]
    if tiles is not None:
        root[TILES_MISSING_KEY] = tiles["missing"]
    elif TILES_MISSING_KEY in root:
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


def build_steps(spec, *, collection, geometry="MESH", kit=None, base=None, sample_image=None, replace=None):
    """:func:`build_level` as steps for a modal run: yields the WFC solver's ``(done, total, label)``
    while the level is made, then builds it (nothing in the scene changes before); returns the root.
    Closing the steps early (Esc) leaves the scene as it was."""
    level = yield from level_steps(spec, base=base)
    yield 1, 1, "building"
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


def level_files(root, stem):
    """``{file name: bytes}`` of the level ``root``: ``<stem>.tmx`` with its tileset (``.tsx`` and image),
    ``<stem>_level.json`` and ``<stem>_level.png``, placed where the root stands (its south-west corner
    at the root's world position, as in the FBX)."""
    spec = stored_spec(root)
    level = stored_level(root)
    origin = tuple(float(v) for v in root.matrix_world.translation)
    cs = spec.cell_size
    tileset = level_spec.autotile_set(spec)  # a WFC level's tileset is its WFC tileset; its auto-tiles blob
    files = dict(core_levels.tiled_files(level, name=stem, tileset=tileset, cell_size=cs, origin=origin))
    files[f"{stem}_level.json"] = core_levels.level_json_bytes(level, name=stem, cell_size=cs, origin=origin)
    files[f"{stem}_level.png"] = core_preview.png_bytes(core_levels.level_image(level))
    return files


def build_section(recipe, world, *, scene, progress=None):
    """``[[level]]`` of a world build (see :mod:`.world`): each level as a mesh at its origin, built in
    name order (Blender adds objects named after the last ones in constant time: 4 levels of 10,000
    markers each take 2.4 s so, 7 s in reverse order) and added to the world in the recipe's order."""
    total = len(recipe.level)
    # Blender sorts names without case: "Crypt2_Spawn" before "Crypt_Spawn", so Crypt2 is built first
    order = sorted(range(total), key=lambda i: (recipe.level[i].name + "_").lower())
    roots = {}
    for done, i in enumerate(order):
        spec = recipe.level[i]
        if progress is not None:
            progress(done, total, f"level {spec.name}")
        try:
            # a WFC level reports its solver's progress as a fraction of this level's step
            within = None
            if progress is not None:
                within = lambda d, t, label, done=done, name=spec.name: progress(  # noqa: E731
                    done + d / max(t, 1), total, f"level {name}: {label}"
                )
            level = drive(level_steps(spec), within)
            roots[i] = build_level(spec, collection=scene.collection, level=level)
        except ParameterError as err:
            err.spec = spec  # world.build_world names the entry: level[1]
            raise
    world.roots.extend(roots[i] for i in range(total))
    if progress is not None and total:
        progress(total, total, "levels")
