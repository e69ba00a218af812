"""Tiled worlds in Blender (issue 13): a tile's files assembled as objects, and its FBX for Unity.

The tiles of a world are built by core (``core.world``: numpy only, on any executor) into files in
the world folder; this module makes Blender objects of them, in bulk, and writes the FBX per tile.
Tile ``(x, z)`` of a world named ``World`` whose files are named ``name`` becomes:

``World_x_z``
    The terrain mesh (or an empty with ``World_x_z_LOD0`` .. children, as a single terrain) from
    ``<name>_<x>_<z>.raw`` (16-bit, Unity's orientation: turned back by 180 degrees), centred at
    Blender ``(-(x + 0.5) * S, -(z + 0.5) * S, 0)`` (``S`` the tile size), so the tiles lie side by
    side and land in Unity at ``(x * S, 0, z * S)``; with the splat material of
    ``<name>_<x>_<z>_splat<k>.png`` when the recipe has texture layers.
``World_x_z_Scatter``
    The props of ``<name>_<x>_<z>_placements.json`` (Unity positions turned back into Blender's),
    one point each, instanced as the scatter panel's scatters are.

Builds are generators of ``(done, total, label)`` steps (a modal operator shows progress and Esc
stops them); everything a build made is removed again when it fails or is closed early, and
tiles already in the scene are replaced only at its very end.  :func:`build_steps` is Build Tiles:
``core.world.run_world`` on a worker thread (:func:`run_steps`), then the assembly.

For Unity each tile is ``<name>_<x>_<z>.fbx`` (:func:`export_tile_fbx`: the terrain and its LODs,
rotation 0, scale 1, Y up, metres; the props are placed from the placement file), beside it the prop
library ``<name>_props.fbx`` (each prop once) and ``<name>_world.json`` listing each tile's FBX
with its size and SHA-256 (:func:`export_world_steps`).  The sidebar exports the tiles in the
scene; the headless run (:func:`export_world_fbx`) assembles each tile from its files, writes it
and removes it again, with the same bytes.
"""

import concurrent.futures
import json
import os
import queue
import threading

import bpy
import numpy as np

from ...core import mesh as core_mesh
from ...core import recipe as core_recipe
from ...core import scatter as core_scatter
from ...core import terrain as core_terrain
from ...core import unity as core_unity
from ...core.errors import ParameterError
from ...core.steps import drive
from ...core.world import (
    ThreadExecutor,
    file_record,
    read_world_json,
    recipe_digest,
    run_world,
    tile_base,
    world_grid,
    world_json_path,
    write_world_json,
)
from . import outputs
from . import scatter as bridge_scatter
from .export import exportable
from .fbx import ExportError, write_fbx
from .materials import (
    SPLAT_IMAGE_KEY,
    SPLAT_MATERIAL,
    set_shading_properties,
    splat_material,
    splat_pixels,
    terrain_material,
)
from .mesh import descendants, free_base_name, mesh_topology, remove_objects, set_corners
from .outputs import folder_lock, output_folder, writing
from .query import KIND_KEY, SCATTER_KIND
from .terrain import RECIPE_KEY, grid_topology_and_uvs, set_terrain_positions

__all__ = [
    "TILE_KIND",
    "TILE_KEY",
    "WORLD_FILE_KEY",
    "DIGEST_KEY",
    "check_exportable",
    "tile_recipe",
    "read_tile_heights",
    "tile_heights",
    "tile_splats",
    "tile_placements",
    "tile_steps",
    "assemble_steps",
    "assemble_tiles",
    "tile_roots",
    "tile_objects",
    "export_tile_fbx",
    "export_world_steps",
    "world_json_with_fbx",
    "export_world_fbx",
    "export_props_fbx",
    "world_props",
    "run_steps",
    "run_stopping",
    "wait_for_runs",
    "build_steps",
    "RUN_PROGRESS",
]

#: ``worldseed_kind`` of a tile's root object.
TILE_KIND = "world_tile"
#: On a tile root: its grid index ``[x, z]``.
TILE_KEY = "worldseed_world_tile"
#: On a tile root: the file name (``name``) its files have in the world folder.
WORLD_FILE_KEY = "worldseed_world_file"
#: On a tile root: the digest of the world's recipe (``core.world.recipe_digest``), as the world JSON has it.
DIGEST_KEY = "worldseed_world_recipe_sha256"


def tile_recipe(recipe, x, z):
    """The recipe of tile ``(x, z)`` alone: one terrain at the tile's noise offset (stored on the
    tile's root, as a terrain keeps its own; what the placement file and exports read)."""
    data = core_recipe.to_dict(recipe)
    data["world"].pop("tiles", None)
    data["world"].pop("halo", None)
    corner = world_grid(recipe).blender_corner(x, z)
    data["terrain"]["offset"] = [o + c for o, c in zip(recipe.terrain.offset, corner)]
    return core_recipe.from_dict(data, source=f"tile {x}_{z}")


# --------------------------------------------------------------------------- files


def read_tile_heights(path, *, side):
    """Heights in [0, 1] (float32 (side, side), our layout: row 0 at Blender -Y) of a tile's RAW file
    (16-bit little-endian, Unity's orientation: ``core.unity.unity_heights`` turned it by 180 degrees)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise ParameterError(f"tile heights {path!r} cannot be read: {err.strerror or err}") from None
    if len(data) != side * side * 2:
        raise ParameterError(
            f"tile heights {os.path.basename(path)!r} must hold {side} x {side} 16-bit samples "
            f"({side * side * 2:,} bytes), got {len(data):,} bytes"
        )
    values = core_unity.read_raw16(data, side=side, byte_order="little")
    return np.ascontiguousarray(values[::-1, ::-1])


def tile_heights(recipe, folder, name, x, z):
    """The :class:`core.terrain.TerrainHeights` of tile ``(x, z)`` from its RAW file, with a one-cell
    margin from the neighbouring tiles' files (so the normals along a shared edge agree); where a
    neighbour has no file the margin continues the tile's own slope."""
    spec = recipe.terrain
    side = spec.resolution
    values = read_tile_heights(os.path.join(folder, tile_base(name, x, z) + ".raw"), side=side)
    margin = np.empty((side + 2, side + 2), np.float32)
    margin[1:-1, 1:-1] = values
    # our column 0 is Blender -X = Unity +X: tile x + 1; row 0 is Blender -Y = Unity +Z: tile z + 1
    margin[1:-1, 0] = 2 * values[:, 0] - values[:, 1]
    margin[1:-1, -1] = 2 * values[:, -1] - values[:, -2]
    margin[0, :] = 2 * margin[1, :] - margin[2, :]
    margin[-1, :] = 2 * margin[-2, :] - margin[-3, :]

    def neighbour(dx, dz):
        path = os.path.join(folder, tile_base(name, x + dx, z + dz) + ".raw")
        return read_tile_heights(path, side=side) if os.path.isfile(path) else None

    for (dx, dz), rows, cols, src_rows, src_cols in (
        ((1, 0), slice(1, -1), 0, slice(None), -2),
        ((-1, 0), slice(1, -1), -1, slice(None), 1),
        ((0, 1), 0, slice(1, -1), -2, slice(None)),
        ((0, -1), -1, slice(1, -1), 1, slice(None)),
        ((1, 1), 0, 0, -2, -2),
        ((-1, 1), 0, -1, -2, 1),
        ((1, -1), -1, 0, 1, -2),
        ((-1, -1), -1, -1, 1, 1),
    ):
        other = neighbour(dx, dz)
        if other is not None:
            margin[rows, cols] = other[src_rows, src_cols]
    return core_terrain.TerrainHeights(
        values=values, cell_size=spec.cell_size, height=float(spec.height), margin=margin
    )


def tile_splats(folder, name, x, z, count):
    """The packed splat images ``(h, w, 4)`` uint8 (our layout, row 0 at the bottom as the material
    reads them) of ``<name>_<x>_<z>_splat<k>.png``, ``k < count``; [] when any is missing."""
    paths = [os.path.join(folder, f"{tile_base(name, x, z)}_splat{k}.png") for k in range(count)]
    if not paths or not all(os.path.isfile(p) for p in paths):
        return []
    out = []
    for path in paths:
        image = bpy.data.images.load(path, check_existing=False)
        try:
            image.colorspace_settings.name = "Non-Color"
            image.alpha_mode = "CHANNEL_PACKED"
            pixels = splat_pixels(image)  # row 0 = the file's last row = Unity's -Z edge
        finally:
            bpy.data.images.remove(image)
        # the file is ours[:, ::-1] top row first (core.unity_package.unity_image): turn it back
        out.append(np.ascontiguousarray(pixels[::-1, ::-1]))
    return out


def _unity_to_blender_positions(p):
    p = np.asarray(p, np.float64).reshape(-1, 3)
    return np.stack([-p[:, 0], -p[:, 2], p[:, 1]], axis=1)


def _unity_to_blender_rotations(q):
    """Unity ``(x, y, z, w)`` -> Blender ``(w, x, y, z)``: the inverse of ``core.placement.unity_rotation``."""
    q = np.asarray(q, np.float64).reshape(-1, 4)
    return np.stack([q[:, 3], q[:, 0], q[:, 2], -q[:, 1]], axis=1)


def tile_placements(path):
    """The props of a tile's placement file: ``(positions (N, 3) Blender world, rotations (N, 4)
    (w, x, y, z), scales (N,), prop names (list of N), layer names (list of N))``; empty arrays
    without a file."""
    if not os.path.isfile(path):
        return np.zeros((0, 3)), np.zeros((0, 4)), np.zeros(0), [], []
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        records = [r for s in data.get("scatters", [data]) for r in s.get("instances", [])]
        positions = _unity_to_blender_positions([r["position"] for r in records])
        rotations = _unity_to_blender_rotations([r["rotation"] for r in records])
        scales = np.asarray([r["scale"] for r in records], np.float64)
        props = [str(r["prop"]) for r in records]
        layers = [str(r.get("layer", "")) for r in records]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise ParameterError(f"placement file {os.path.basename(path)!r} cannot be read: {err}") from None
    return positions, rotations, scales, props, layers


# --------------------------------------------------------------------------- objects


def _lod_mesh(name, heights, stride):
    """One LOD of a tile, as a terrain's (``.terrain``): the grid of ``lod_indices(n, stride)``, the
    quads cut where the heights say (``core.mesh.grid_turns``), custom normals from the margin.
    Grids of a side the terrain caches (every tile of a world has the same) reuse the cached
    topology and UVs, only turned."""
    side = len(core_mesh.lod_indices(heights.values.shape[0], stride))
    turn = core_mesh.grid_turns(heights.metres, cell_size=heights.cell_size, stride=stride)
    topology, uvs = grid_topology_and_uvs(side)
    cached = not callable(topology)
    if not cached:  # too large to cache: made turned
        topology = core_mesh.grid_topology(side, side, turn=turn)
        uvs = core_mesh.grid_corner_uvs(side, side, turn=turn)
    me = mesh_topology(name, side * side, topology, corner_uvs=None if cached else uvs, corners=not cached)
    try:
        if cached:
            corners = (topology.corner_verts, topology.corner_edges, uvs)
            verts, edges, turned_uvs = (core_mesh.turn_quads(c, turn) for c in corners)
            set_corners(me, verts, edges, corner_uvs=turned_uvs)
        return set_terrain_positions(me, heights, stride=stride)
    except BaseException:
        bpy.data.meshes.remove(me)
        raise


def _scatter_specs(recipe):
    return list(getattr(recipe, "scatter", ()))


def _tile_scatter(root, recipe, placements, *, collection):
    """The tile's props as a scatter object under ``root`` (None without props)."""
    positions, rotations, scales, names, layer_names = placements
    specs = _scatter_specs(recipe)
    if not len(positions) or not specs:
        return None
    props_per_layer = bridge_scatter.layer_props(specs, [("BUILTIN", None)] * len(specs))
    all_props = [p for props in props_per_layer for p in props]
    index = {p.name: i for i, p in enumerate(all_props)}
    missing = sorted(set(names) - set(index))
    if missing:
        raise ParameterError(
            f"placement file of {root.name!r} names props {missing[:5]} that the recipe's scatter layers "
            f"do not make ({sorted(index)[:8]})"
        )
    layer_index = {s.name: i for i, s in enumerate(specs)}
    which = np.asarray([index[n] for n in names], np.int32)
    layers = np.asarray([layer_index.get(n, 0) for n in layer_names], np.int32)
    local = positions - np.asarray(root.matrix_world.translation, np.float64)[None, :]
    obj = bridge_scatter.scatter_object(f"{root.name}_Scatter", all_props, collection=collection, parent=root)
    bridge_scatter.write_points(obj.data, local, rotations, scales, which)
    attr = obj.data.attributes.new("ws_layer", "INT", "POINT")
    attr.data.foreach_set("value", layers)
    obj[bridge_scatter.LAYERS_KEY] = [core_scatter.dumps_layer(s) for s in specs]
    obj[bridge_scatter.SEED_KEY] = recipe.world.seed
    return obj


def tile_steps(recipe, folder, name, x, z, *, collection, object_name=None, props=True):
    """Assemble tile ``(x, z)`` of ``recipe``'s world from its files in ``folder`` (file base
    ``name``), yielding ``(done, total, label)``; returns its root object.

    ``object_name`` (default ``<World>_<x>_<z>``) is the name asked for; ``.001`` is added when it
    is taken (:func:`assemble_steps` renames at the end).  ``props=False`` leaves the placement
    file's props out (a tile FBX does not hold them).  Removed again if closed early.
    """
    spec = recipe.terrain
    grid = world_grid(recipe)
    base = free_base_name(object_name or grid.object_name(x, z), spec.lods if spec.lods > 1 else 0)
    stem = tile_base(name, x, z)
    total = spec.lods + 3
    made_meshes, made_objects = [], []
    try:
        heights = tile_heights(recipe, folder, name, x, z)
        yield 1, total, f"tile {x}, {z}: heights"
        for level in range(spec.lods):
            made_meshes.append(_lod_mesh(f"{base}_LOD{level}" if spec.lods > 1 else base, heights, 2**level))
            yield 2 + level, total, f"tile {x}, {z}: mesh LOD{level}"
        material = None
        if spec.material:
            splats = getattr(recipe, "splat", ())
            packed = tile_splats(folder, name, x, z, -(-len(splats) // 4)) if splats else []
            material = (
                splat_material(base, packed, splats, size=spec.size) if packed else terrain_material(spec.palette)
            )
        for me in made_meshes:
            if material is not None:
                me.materials.append(material)
        if spec.lods == 1:
            root = bpy.data.objects.new(base, made_meshes[0])
            made_objects.append(root)
            children = []
        else:
            root = bpy.data.objects.new(base, None)
            root.empty_display_type = "PLAIN_AXES"
            made_objects.append(root)
            children = []
            for level, me in enumerate(made_meshes):
                child = bpy.data.objects.new(f"{root.name}_LOD{level}", me)
                me.name = child.name
                child.parent = root
                made_objects.append(child)
                children.append(child)
        for obj in made_objects:
            collection.objects.link(obj)
            set_shading_properties(obj, spec)
        for child in children[1:]:
            child.hide_set(True)  # LOD0 shows; the others stay exportable
        root.location = grid.blender_centre(x, z)
        root[KIND_KEY] = TILE_KIND
        root[TILE_KEY] = [x, z]
        root[WORLD_FILE_KEY] = name
        root[RECIPE_KEY] = core_recipe.dumps(tile_recipe(recipe, x, z))
        root[DIGEST_KEY] = recipe_digest(recipe)
        yield spec.lods + 2, total, f"tile {x}, {z}: material"
        bpy.context.view_layer.update()  # the root's matrix_world, for the props' local positions
        if props:
            placements = tile_placements(os.path.join(folder, f"{stem}_placements.json"))
            scatter = _tile_scatter(root, recipe, placements, collection=collection)
            if scatter is not None:
                made_objects.append(scatter)
        yield total, total, f"tile {x}, {z}: props"
        return root
    except BaseException:
        splats = [m for me in made_meshes for m in me.materials if m is not None and m.name.startswith(SPLAT_MATERIAL)]
        remove_objects(made_objects)
        for me in made_meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        for m in set(splats):
            images = [n.image for n in m.node_tree.nodes if getattr(n, "image", None) is not None]
            if m.users == 0:
                bpy.data.materials.remove(m)
            for image in images:
                if SPLAT_IMAGE_KEY in image and image.users == 0:
                    bpy.data.images.remove(image)
        raise


def tile_roots(scene, world_name=None):
    """``{(x, z): root}`` of the tiles in ``scene`` (of the world ``world_name`` when given)."""
    out = {}
    for obj in scene.objects:
        if obj.get(KIND_KEY) == TILE_KIND and TILE_KEY in obj:
            x, z = (int(v) for v in obj[TILE_KEY])
            if world_name is None or obj.name.rpartition(f"_{x}_{z}")[0] == world_name:
                out[(x, z)] = obj
    return out


def tile_objects(root):
    """A tile's root and everything below it, parents first."""
    return [root, *descendants(root)]


def _splat_data(root):
    """The splat materials and their images of a tile's meshes."""
    materials = {m for o in tile_objects(root) if o.type == "MESH" for m in o.data.materials if m is not None}
    materials = [m for m in materials if m.name.startswith(SPLAT_MATERIAL)]
    images = {
        n.image for m in materials if m.node_tree for n in m.node_tree.nodes if getattr(n, "image", None) is not None
    }
    return materials, [i for i in images if SPLAT_IMAGE_KEY in i]


def _remove_tiles(roots):
    """Remove tile objects, their meshes and the splat materials and images only they used."""
    materials, images = [], []
    for root in roots:
        m, i = _splat_data(root)
        materials += m
        images += i
    remove_objects([o for root in roots for o in tile_objects(root)])
    for m in materials:
        if m.users == 0:
            bpy.data.materials.remove(m)
    for i in images:
        if i.users == 0:
            bpy.data.images.remove(i)


#: The kinds of data a tile build may make besides its own objects: built-in props (objects, meshes,
#: materials, their collection, the scatter's node group), the terrain material.
_DATA = ("objects", "meshes", "materials", "images", "node_groups", "collections")


def _data_names():
    return {kind: set(getattr(bpy.data, kind).keys()) for kind in _DATA}


def _remove_new_data(before):
    """Remove what was made since ``before`` (:func:`_data_names`): new objects, then whatever new
    data nothing uses any more."""
    objects = [o for n, o in bpy.data.objects.items() if n not in before["objects"]]
    remove_objects(objects)
    for name, coll in list(bpy.data.collections.items()):  # the built-in props' collection, now empty
        if name not in before["collections"] and not coll.all_objects and not coll.children:
            bpy.data.collections.remove(coll)
    for kind in _DATA[1:]:
        data = getattr(bpy.data, kind)
        unused = [d for n, d in data.items() if n not in before[kind] and d.users == 0]
        if unused:
            bpy.data.batch_remove(unused)


def _rename(root, wanted):
    """Give a new tile root (its LODs, scatter, splat material and images) the names of the tile it
    replaces (removed already)."""
    old = root.name
    if old == wanted:
        return
    materials, images = _splat_data(root)
    for item in [root, *descendants(root), *materials, *images]:
        item.name = item.name.replace(old, wanted, 1)
        if isinstance(item, bpy.types.Object) and item.type == "MESH" and item.data.users == 1:
            item.data.name = item.name


def assemble_steps(recipe, folder, name, tiles, *, collection):
    """Assemble the tiles ``tiles`` (``(x, z)`` pairs) of ``recipe``'s world from ``folder``, yielding
    ``(done, total, label)``; returns ``{(x, z): root}``.

    Tiles of the same name already in the scene are replaced, all at the very end; an object of a
    tile's name that is not a tile is an error (before anything is made).  Closing early removes
    what was made and leaves the scene as it was.
    """
    tiles = [tuple(int(v) for v in t) for t in tiles]
    grid = world_grid(recipe)
    for x, z in tiles:
        wanted = grid.object_name(x, z)
        other = bpy.data.objects.get(wanted)
        if other is not None and other.get(KIND_KEY) != TILE_KIND:
            raise ParameterError(f"an object named {wanted!r} is in the way of tile ({x}, {z}); rename it")
        if not os.path.isfile(os.path.join(folder, tile_base(name, x, z) + ".raw")):
            raise ParameterError(f"tile ({x}, {z}) has no heights in {folder!r}: build it first")
    per_tile = recipe.terrain.lods + 3
    total = per_tile * len(tiles) + 1
    made, steps = {}, None
    before = _data_names()
    try:
        for i, (x, z) in enumerate(tiles):
            steps = tile_steps(recipe, folder, name, x, z, collection=collection)
            while True:
                try:
                    done, _of, label = next(steps)
                except StopIteration as stop:
                    made[(x, z)] = stop.value
                    break
                yield i * per_tile + done, total, label
        old = [bpy.data.objects.get(grid.object_name(x, z)) for x, z in tiles]
        _remove_tiles([o for o in old if o is not None and o not in made.values()])
        for (x, z), root in made.items():
            _rename(root, grid.object_name(x, z))
        yield total, total, "done"
        return made
    except BaseException:
        if steps is not None:
            steps.close()  # the tile being made removes itself first
        _remove_tiles(list(made.values()))
        _remove_new_data(before)
        raise


def assemble_tiles(recipe, folder, name, tiles, *, collection, progress=None):
    """:func:`assemble_steps` run to its end."""
    return drive(assemble_steps(recipe, folder, name, tiles, collection=collection), progress)


# --------------------------------------------------------------------------- export


def _terrain_objects(root):
    """What a tile's FBX holds: the terrain (root and LODs), not its scatter (placed in Unity from
    the placement file)."""
    return [o for o in tile_objects(root) if o.type in {"MESH", "EMPTY"} and o.get(KIND_KEY) != SCATTER_KIND]


def export_tile_fbx(objects_or_tile, path, *, recipe=None, folder=None, name="world", collection=None, stage=None):
    """Write a tile's FBX for Unity (rotation 0, scale 1, Y up, metres: ``fbx.FBX_UNITY``) to ``path``
    (``<name>_<x>_<z>.fbx``); returns the path written.

    ``objects_or_tile``: the tile's root object (or a list of its objects) as assembled here, or an
    ``(x, z)`` pair: the tile is then assembled from its files in ``folder`` (``recipe``'s world,
    file base ``name``, into ``collection``, the scene's by default), written and removed again --
    what the headless run does for ``[export] fbx``.  The file goes through a staging folder under
    the output folder's lock (``outputs.output_folder``) and replaces an earlier one only when
    complete; with ``stage`` (a ``Staging`` the caller holds) it is written there and the staged
    path returned, for the caller's commit.
    """
    if stage is None:
        target = os.path.abspath(path)
        with output_folder(os.path.dirname(target)) as own:
            staged = export_tile_fbx(
                objects_or_tile,
                os.path.join(own.path, os.path.basename(target)),
                recipe=recipe,
                folder=folder,
                name=name,
                collection=collection,
                stage=own,
            )
            return own.commit([staged])[0]
    if isinstance(objects_or_tile, tuple | list) and len(objects_or_tile) == 2 and isinstance(objects_or_tile[0], int):
        if recipe is None or folder is None:
            raise ParameterError("export_tile_fbx: a tile given as (x, z) needs recipe= and folder=")
        x, z = objects_or_tile
        coll = collection or bpy.context.scene.collection
        before = _data_names()
        root = drive(tile_steps(recipe, folder, name, x, z, collection=coll, props=False))
        try:
            return export_tile_fbx(root, path, stage=stage)
        finally:  # the tile, its props and material: the scene as it was
            _remove_tiles([root])
            _remove_new_data(before)
    if isinstance(objects_or_tile, bpy.types.Object):
        objects = _terrain_objects(objects_or_tile)
    else:
        objects = [o for o in objects_or_tile if o.type in {"MESH", "EMPTY"} and o.get(KIND_KEY) != SCATTER_KIND]
    if not objects:
        raise ExportError(f"nothing to export for {os.path.basename(path)!r}: no tile objects")
    with writing(path):
        try:
            write_fbx(path, objects)
        except ExportError as err:
            raise ExportError(f"cannot write {os.path.basename(path)!r}: {err}") from None
    return path


def check_exportable(roots, folder, name):
    """Refuse to export tiles (``{(x, z): root}``) that the world folder's world JSON does not list
    complete from the same recipe (built from other settings since, or from another folder): their
    FBX would not match the files beside it."""
    document = read_world_json(world_json_path(folder, name))
    if document is None:
        raise ParameterError(
            f"{name}_world.json is missing from {folder!r} (or is no world JSON): build the tiles first"
        )
    complete = {(t["x"], t["z"]) for t in document["tiles"] if t.get("complete")}
    digest = document["recipe_sha256"]
    stale = [k for k, root in roots.items() if k not in complete or root.get(DIGEST_KEY) != digest]
    stale.sort(key=lambda t: (t[1], t[0]))
    if stale:
        names = ", ".join(roots[k].name for k in stale[:6]) + (" ..." if len(stale) > 6 else "")
        raise ParameterError(
            f"tiles {names} in the scene do not match the tile files in {folder!r} (built from other "
            "settings, or another World Folder): Build Tiles again, or export from the folder they came from"
        )


def world_json_with_fbx(folder, name):
    """A function of ``{(x, z): FBX path}`` that returns the world JSON of ``folder`` (``<name>_world.json``,
    as the world run wrote it) with each tile's FBX added to its files (name, size, SHA-256), for
    :func:`export_world_steps`.  A folder without a world JSON is an error: build the tiles first."""
    document = read_world_json(world_json_path(folder, name))
    if document is None:
        raise ParameterError(
            f"{name}_world.json is missing from {folder!r} (or is no world JSON): build the tiles first"
        )

    def with_fbx(fbx):
        doc = json.loads(json.dumps(document))
        for entry in doc["tiles"]:
            path = fbx.get((entry["x"], entry["z"]))
            if path is not None:
                record = file_record(path)
                entry["files"] = [f for f in entry.get("files", []) if f.get("name") != record["name"]] + [record]
        return doc

    return with_fbx


def world_props(roots):
    """The prop objects the scatters of the tiles ``roots`` (``{(x, z): root}``) instance, each once, in
    name order."""
    props = {}
    for root in roots.values():
        for obj in tile_objects(root):
            if obj.get(KIND_KEY) == SCATTER_KIND:
                props.update((p.name, p) for p in bridge_scatter.scatter_props(obj))
    return [props[n] for n in sorted(props)]


def export_world_steps(roots, folder, name, *, world_json=None, recipe=None, collection=None, props=()):
    """Write the FBX of every tile in ``roots`` (``{(x, z): root}``; a root of None: the tile is
    assembled from its files with ``recipe``, written and removed, one tile at a time) into ``folder``
    as ``<name>_<x>_<z>.fbx``; with ``props`` (objects: the props the tiles' placement files name)
    the prop library ``<name>_props.fbx``, each prop once (a tree with its LODs), as Export for Unity
    writes one; and with ``world_json`` (a function of ``{(x, z): FBX path}`` returning the document,
    :func:`world_json_with_fbx`) ``<name>_world.json``.  All through one staging folder under the
    folder's lock: all or nothing.  Yields ``(done, total, label)``; returns the paths."""
    tiles = sorted(roots, key=lambda t: (t[1], t[0]))
    total = len(tiles) + 2
    with output_folder(folder) as stage:
        staged, fbx = [], {}
        for i, (x, z) in enumerate(tiles):
            file_name = tile_base(name, x, z) + ".fbx"
            yield i, total, f"writing {file_name}"
            tile = roots[(x, z)] if roots[(x, z)] is not None else (x, z)
            staged.append(
                export_tile_fbx(
                    tile,
                    os.path.join(stage.path, file_name),
                    recipe=recipe,
                    folder=folder,
                    name=name,
                    collection=collection,
                    stage=stage,
                )
            )
            fbx[(x, z)] = staged[-1]
        if props:
            yield len(tiles), total, f"writing {name}_props.fbx"
            path = os.path.join(stage.path, f"{name}_props.fbx")
            with writing(path):
                write_fbx(path, exportable(list(props)))
            staged.append(path)
        if world_json is not None:
            yield len(tiles) + 1, total, f"writing {name}_world.json"
            path = os.path.join(stage.path, f"{name}_world.json")
            with writing(path):
                write_world_json(path, world_json(fbx))
            staged.append(path)
        paths = stage.commit(staged)
    yield total, total, "done"
    return paths


def _recipe_props(recipe):
    """The built-in props ``recipe``'s scatter layers make (the ones its placement files name), each
    once, in name order (made in this file's Blender data: remove them again)."""
    specs = list(getattr(recipe, "scatter", ()))
    props = bridge_scatter.layer_props(specs, [("BUILTIN", None)] * len(specs)) if specs else []
    return sorted({p.name: p for layer in props for p in layer}.values(), key=lambda p: p.name)


def export_props_fbx(recipe, path):
    """Write the prop library of ``recipe``'s world, ``<name>_props.fbx`` at ``path`` (each prop its
    scatter layers make once, a tree with its LODs, as Export World and Export for Unity write it),
    through a staging folder under the folder's lock; returns the path.  The scene is left as it was."""
    before = _data_names()
    try:
        props = _recipe_props(recipe)
        if not props:
            raise ExportError(f"nothing to export for {os.path.basename(path)!r}: the recipe scatters no props")
        target = os.path.abspath(path)
        with output_folder(os.path.dirname(target)) as stage:
            staged = os.path.join(stage.path, os.path.basename(target))
            with writing(staged):
                write_fbx(staged, exportable(props))
            return stage.commit([staged])[0]
    finally:
        _remove_new_data(before)


def export_world_fbx(recipe, folder, name="world", *, tiles=None, collection=None, progress=None):
    """``[export] fbx`` of a world built into ``folder`` (the headless run's): the FBX of every complete
    tile (or of ``tiles``, ``(x, z)`` pairs), each assembled from its files, written and removed again
    (one tile in memory at a time), the prop library ``<name>_props.fbx`` when the recipe scatters
    props, and the world JSON listing each tile's FBX with its size and SHA-256 -- the files Export
    World writes from the sidebar.  ``progress(done, total, label)`` per step.  Returns the paths
    written; the scene is left as it was."""
    document = read_world_json(world_json_path(folder, name))
    complete = [(t["x"], t["z"]) for t in (document or {}).get("tiles", ()) if t.get("complete")]
    chosen = complete if tiles is None else [tuple(int(v) for v in t) for t in tiles]
    missing = sorted(set(chosen) - set(complete))
    if missing:
        raise ParameterError(f"tiles {missing} are not complete in {folder!r}: build them first")
    json_of = world_json_with_fbx(folder, name)
    before = _data_names()
    try:
        steps = export_world_steps(
            dict.fromkeys(chosen),
            folder,
            name,
            world_json=json_of,
            recipe=recipe,
            collection=collection,
            props=_recipe_props(recipe),
        )
        return drive(steps, progress)
    finally:
        _remove_new_data(before)


# --------------------------------------------------------------------------- the world run


#: Progress steps the world run (tiles built by core) counts for in :func:`build_steps`, before assembly.
RUN_PROGRESS = 1000


#: Cancelled world runs whose running tasks are still ending on their worker.
_STOPPING = []


def run_stopping():
    """Whether a cancelled world run still ends its running tasks (a new run waits for it: both would
    write the same world JSON)."""
    _STOPPING[:] = [f for f in _STOPPING if not f.done()]
    return bool(_STOPPING)


def wait_for_runs(timeout=None):
    """Wait for the cancelled world runs to end (at most ``timeout`` seconds); True when none runs."""
    concurrent.futures.wait(list(_STOPPING), timeout=timeout)
    return not run_stopping()


def _locked_run_world(recipe, folder, *, wait, **kwargs):
    """``core.world.run_world`` holding ``folder``'s lock (as the headless run and the exports do):
    another Worldseed run writing the folder is waited for up to ``wait`` seconds, then refused."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ExportError(f"world folder {folder!r} cannot be created: {err.strerror or err}") from None
    progress = kwargs.get("progress")
    if progress is not None:  # shown while another run holds the folder (the run's first step replaces it)
        progress(0, 1, "waiting for the world folder")
    with folder_lock(folder, wait=wait):
        return run_world(recipe, folder, **kwargs)


def run_steps(recipe, folder, name, tiles, *, workers=None, poll=0.05, wait=None):
    """``core.world.run_world`` of ``tiles`` into ``folder`` on a worker thread (a ``ThreadExecutor`` of
    ``workers`` threads under it), yielding ``(done, total, label)`` -- the last step again while
    waiting, so a modal operator stays responsive; returns its ``WorldRun``.

    The worker holds the folder's lock for the whole run (``outputs.folder_lock``; another
    Worldseed run writing the folder -- a headless run, an export -- is waited for up to ``wait``
    seconds, default ``outputs.LOCK_WAIT``, then the run fails with one line saying so).

    Closing the generator (Esc) cancels the run at once: no new task starts, the running ones end
    on the worker (their files are whole; :func:`run_stopping` says whether one still does, and
    :func:`wait_for_runs` waits for them), the tiles finished so far stay in the folder, listed in
    the world JSON, and the next run skips them.  Nothing of Blender is touched off the main thread.
    """
    cancel = threading.Event()
    steps = queue.SimpleQueue()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="worldseed-world-run")
    future = pool.submit(
        _locked_run_world,
        recipe,
        folder,
        wait=outputs.LOCK_WAIT if wait is None else wait,
        name=name,
        executor=ThreadExecutor(workers),
        tiles=tiles,
        progress=lambda done, total, label: steps.put((done, total, label)),
        cancel=cancel,
    )
    pool.shutdown(wait=False)
    last = (0, 1, "planning")
    try:
        while True:
            if not steps.empty():
                last = steps.get_nowait()
                yield last  # every task's step, so each shows (and Esc lands after it)
                continue
            if future.done():
                return future.result()
            try:
                future.result(timeout=poll)
            except concurrent.futures.TimeoutError:
                pass
            yield last
    finally:
        if not future.done():  # Esc: the UI comes back now, the worker ends its running tasks
            cancel.set()
            _STOPPING.append(future)


def build_steps(recipe, folder, name, tiles, *, collection, workers=None, wait=None):
    """Build ``tiles`` of ``recipe``'s world: their files into ``folder`` (:func:`run_steps`, tiles
    complete already are skipped), then their objects (:func:`assemble_steps`), yielding
    ``(done, total, label)``; returns ``(run, {(x, z): root})``.  Closing early leaves the scene
    as it was (and the folder with the tiles finished so far).  ``wait``: seconds to wait for the
    folder's lock (:func:`run_steps`)."""
    total = 2 * RUN_PROGRESS
    steps = run_steps(recipe, folder, name, tiles, workers=workers, wait=wait)
    while True:
        try:
            done, of, label = next(steps)
        except StopIteration as stop:
            run = stop.value
            break
        yield min(RUN_PROGRESS, RUN_PROGRESS * done // max(of, 1)), total, f"building tiles: {label}"
    chosen = sorted({*run.built, *run.skipped}, key=lambda t: (t[1], t[0]))
    steps = assemble_steps(recipe, folder, name, chosen, collection=collection)
    while True:
        try:
            done, of, label = next(steps)
        except StopIteration as stop:
            return run, stop.value
        yield RUN_PROGRESS + RUN_PROGRESS * done // max(of, 1), total, label
