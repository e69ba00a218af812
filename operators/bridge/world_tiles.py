"""Tiled worlds in Blender: one tile assembled as objects from its files.

The tiles of a world are built by core (``core.world``: numpy only, on any executor) into files in
the world folder; this module makes Blender objects of one tile, in bulk (:func:`tile_steps`: its
heights, LOD meshes, normals, material and props).  Tile ``(x, z)`` of a world named ``World``
whose files are named ``name`` becomes:

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
stops them); everything a build made is removed again when it fails or is closed early
(:func:`remove_tiles`, :func:`data_names` / :func:`remove_new_data`).  Many tiles into the scene
and the world run (Build Tiles) are :mod:`.world_build`; the FBX for Unity is :mod:`.world_export`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np
import numpy.typing as npt

from ...core import mesh as core_mesh
from ...core import recipe as core_recipe
from ...core import scatter as core_scatter
from ...core import terrain as core_terrain
from ...core import unity as core_unity
from ...core.errors import ParameterError
from ...core.world import (
    cache_folder,
    planned_roads,
    recipe_digest,
    tile_base,
    wants_networks,
    without_once,
    world_grid,
    world_networks,
    world_settlements,
)
from . import scatter as bridge_scatter
from . import settlements as bridge_settlements
from .materials import (
    SPLAT_IMAGE_KEY,
    SPLAT_MATERIAL,
    set_shading_properties,
    splat_material,
    splat_pixels,
    terrain_material,
)
from .mesh import bulk, descendants, free_base_name, mesh_of, mesh_topology, remove_objects, set_corners
from .networks import attach_planned
from .query import KIND_KEY
from .terrain import RECIPE_KEY, grid_topology_and_uvs, set_terrain_positions

if TYPE_CHECKING:
    from ...core.mesh import PolygonTopology
    from ...core.recipe import Recipe
    from ...core.steps import Steps
    from ...core.terrain import TerrainHeights

#: A tile's props as its placement file has them: positions (N, 3) in Blender's world, rotations
#: (N, 4) ``(w, x, y, z)``, scales (N,), prop names and layer names.
TilePlacements = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], list[str], list[str]]

__all__ = [
    "TILE_KIND",
    "TILE_KEY",
    "WORLD_FILE_KEY",
    "DIGEST_KEY",
    "tile_recipe",
    "read_tile_heights",
    "tile_heights",
    "tile_splats",
    "tile_placements",
    "tile_steps",
    "tile_roots",
    "tile_objects",
    "remove_tiles",
    "data_names",
    "remove_new_data",
    "rename_tile",
]

#: ``worldseed_kind`` of a tile's root object.
TILE_KIND = "world_tile"
#: On a tile root: its grid index ``[x, z]``.
TILE_KEY = "worldseed_world_tile"
#: On a tile root: the file name (``name``) its files have in the world folder.
WORLD_FILE_KEY = "worldseed_world_file"
#: On a tile root: the digest of the world's recipe (``core.world.recipe_digest``), as the world JSON has it.
DIGEST_KEY = "worldseed_world_recipe_sha256"


def _tile_settlements(
    recipe: Recipe, grid: Any, x: int, z: int, root: bpy.types.Object, cache: str
) -> list[bpy.types.Object]:
    """The objects of the world's settlements that tile ``(x, z)`` owns, under ``root`` (the
    settlements' root placed at minus the tile's centre: the sites keep their world positions);
    none when the tile owns no site."""
    bare = without_once(recipe)  # the tiles' recipe: the plan they levelled, kept in this process
    own = world_settlements(bare, grid, recipe_digest(bare), cache).tile_sites(grid, x, z)
    if not own.sites:
        return []
    cx, cy, _ = grid.blender_centre(x, z)
    made = bridge_settlements.settlement_objects(own, root, spec=recipe.settlements, offset=(-cx, -cy, 0.0))
    return [made, *descendants(made)]


def tile_recipe(recipe: Recipe, x: int, z: int) -> Recipe:
    """The recipe of tile ``(x, z)`` alone: one terrain at the tile's noise offset (stored on the
    tile's root, as a terrain keeps its own; what the placement file and exports read), without the
    world's rivers, roads and settlements (planned over the whole world, carved into the tile's files)."""
    data = core_recipe.to_dict(recipe)
    data["world"].pop("tiles", None)
    data["world"].pop("halo", None)
    for key in ("rivers", "roads", "settlements"):  # planned over the world: the tile's files hold its part
        data.pop(key, None)
    corner = world_grid(recipe).blender_corner(x, z)
    data["terrain"]["offset"] = [o + c for o, c in zip(recipe.terrain.offset, corner)]
    return core_recipe.from_dict(data, source=f"tile {x}_{z}")


# --------------------------------------------------------------------------- files


def read_tile_heights(path: str, *, side: int) -> npt.NDArray[np.float32]:
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


def tile_heights(recipe: Recipe, folder: str, name: str, x: int, z: int) -> TerrainHeights:
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

    def neighbour(dx: int, dz: int) -> npt.NDArray[np.float32] | None:
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


def tile_splats(folder: str, name: str, x: int, z: int, count: int) -> list[npt.NDArray[np.uint8]]:
    """The packed splat images ``(h, w, 4)`` uint8 (our layout, row 0 at the bottom as the material
    reads them) of ``<name>_<x>_<z>_splat<k>.png``, ``k < count``; [] when any is missing."""
    paths = [os.path.join(folder, f"{tile_base(name, x, z)}_splat{k}.png") for k in range(count)]
    if not paths or not all(os.path.isfile(p) for p in paths):
        return []
    out = []
    for path in paths:
        image = bpy.data.images.load(path, check_existing=False)
        try:
            image.colorspace_settings.name = "Non-Color"  # type: ignore[union-attr]  # an image always has them
            image.alpha_mode = "CHANNEL_PACKED"
            pixels = splat_pixels(image)  # row 0 = the file's last row = Unity's -Z edge
        finally:
            bpy.data.images.remove(image)
        # the file is ours[:, ::-1] top row first (core.unity_package.unity_image): turn it back
        out.append(np.ascontiguousarray(pixels[::-1, ::-1]))
    return out


def _unity_to_blender_positions(p: npt.ArrayLike) -> npt.NDArray[np.float64]:
    p = np.asarray(p, np.float64).reshape(-1, 3)
    return np.stack([-p[:, 0], -p[:, 2], p[:, 1]], axis=1)


def _unity_to_blender_rotations(q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Unity ``(x, y, z, w)`` -> Blender ``(w, x, y, z)``: the inverse of ``core.placement.unity_rotation``."""
    q = np.asarray(q, np.float64).reshape(-1, 4)
    return np.stack([q[:, 3], q[:, 0], q[:, 2], -q[:, 1]], axis=1)


def tile_placements(path: str) -> TilePlacements:
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


def _lod_mesh(name: str, heights: TerrainHeights, stride: int) -> bpy.types.Mesh:
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
    # values now either way (made just above when the cache gave functions)
    topology, uvs = cast("PolygonTopology", topology), cast("npt.NDArray[np.float32]", uvs)
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


def _scatter_specs(recipe: Recipe) -> list[Any]:
    return list(getattr(recipe, "scatter", ()))


def _tile_scatter(
    root: bpy.types.Object, recipe: Recipe, placements: TilePlacements, *, collection: bpy.types.Collection
) -> bpy.types.Object | None:
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
    me = mesh_of(obj)
    bridge_scatter.write_points(me, local, rotations, scales, which)
    attr = me.attributes.new("ws_layer", "INT", "POINT")
    bulk(attr).foreach_set("value", layers)
    obj[bridge_scatter.LAYERS_KEY] = [core_scatter.dumps_layer(s) for s in specs]
    obj[bridge_scatter.SEED_KEY] = recipe.world.seed
    return obj


def tile_steps(
    recipe: Recipe,
    folder: str,
    name: str,
    x: int,
    z: int,
    *,
    collection: bpy.types.Collection,
    object_name: str | None = None,
    props: bool = True,
) -> Steps[bpy.types.Object]:
    """Assemble tile ``(x, z)`` of ``recipe``'s world from its files in ``folder`` (file base
    ``name``), yielding ``(done, total, label)``; returns its root object.

    ``object_name`` (default ``<World>_<x>_<z>``) is the name asked for; ``.001`` is added when it
    is taken (``.world_build.assemble_steps`` renames at the end).  ``props=False`` leaves the placement
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
            children: list[bpy.types.Object] = []
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
        root[DIGEST_KEY] = recipe_digest(without_once(recipe))  # as the world JSON has it
        if wants_networks(recipe):  # the tile's part of the world's rivers and roads (planned once)
            bare = without_once(recipe)  # the tiles' recipe: its plans (an eroded world's read the cache's heights)
            digest = recipe_digest(bare)
            cache = cache_folder(folder, name)
            nets = world_networks(bare, grid, digest, cache)
            centre = grid.blender_centre(x, z)[:2]  # the root's place
            roads = planned_roads(bare, grid, digest, cache)
            made_objects += attach_planned(
                root, nets.rivers, roads, origin=nets.origin, centre=centre, box=nets.box(grid, x, z)
            )
        if recipe.settlements.enabled:  # the sites whose centre stands in the tile (planned once)
            made_objects += _tile_settlements(recipe, grid, x, z, root, cache_folder(folder, name))
        yield spec.lods + 2, total, f"tile {x}, {z}: material"
        # the root's matrix_world, for the props' local positions
        cast(bpy.types.ViewLayer, bpy.context.view_layer).update()
        if props:
            placements = tile_placements(os.path.join(folder, f"{stem}_placements.json"))
            scatter = _tile_scatter(root, recipe, placements, collection=collection)
            if scatter is not None:
                made_objects.append(scatter)
        yield total, total, f"tile {x}, {z}: props"
        return root
    except BaseException:
        splats = [m for me in made_meshes for m in me.materials if m is not None and m.name.startswith(SPLAT_MATERIAL)]
        _remove_with_curves(made_objects)
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


def _remove_with_curves(objs: Iterable[bpy.types.Object]) -> None:
    """``remove_objects``, and the curves' data (a tile's road curves) only they used."""
    objs = list(objs)
    curves = {cast("bpy.types.Curve", o.data) for o in objs if o.type == "CURVE"}
    remove_objects(objs)
    unused = [c for c in curves if c.users == 0]
    if unused:
        bpy.data.batch_remove(unused)


def tile_roots(scene: bpy.types.Scene, world_name: str | None = None) -> dict[tuple[int, int], bpy.types.Object]:
    """``{(x, z): root}`` of the tiles in ``scene`` (of the world ``world_name`` when given)."""
    out: dict[tuple[int, int], bpy.types.Object] = {}
    for obj in scene.objects:
        if obj.get(KIND_KEY) == TILE_KIND and obj.get(TILE_KEY) is not None:
            x, z = (int(v) for v in obj[TILE_KEY])
            if world_name is None or obj.name.rpartition(f"_{x}_{z}")[0] == world_name:
                out[(x, z)] = obj
    return out


def tile_objects(root: bpy.types.Object) -> list[bpy.types.Object]:
    """A tile's root and everything below it, parents first."""
    return [root, *descendants(root)]


def _splat_data(root: bpy.types.Object) -> tuple[list[bpy.types.Material], list[bpy.types.Image]]:
    """The splat materials and their images of a tile's meshes."""
    used = {m for o in tile_objects(root) if o.type == "MESH" for m in mesh_of(o).materials if m is not None}
    materials = [m for m in used if m.name.startswith(SPLAT_MATERIAL)]
    # image nodes: the stubs type a node by its base class
    images = {
        cast(Any, n).image
        for m in materials
        if m.node_tree
        for n in m.node_tree.nodes
        if getattr(n, "image", None) is not None
    }
    return materials, [i for i in images if SPLAT_IMAGE_KEY in i]


def remove_tiles(roots: Iterable[bpy.types.Object]) -> None:
    """Remove tile objects, their meshes and the splat materials and images only they used."""
    materials: list[bpy.types.Material] = []
    images: list[bpy.types.Image] = []
    for root in roots:
        root_materials, root_images = _splat_data(root)
        materials += root_materials
        images += root_images
    _remove_with_curves([o for root in roots for o in tile_objects(root)])
    for m in materials:
        if m.users == 0:
            bpy.data.materials.remove(m)
    for i in images:
        if i.users == 0:
            bpy.data.images.remove(i)


#: The kinds of data a tile build may make besides its own objects: built-in props (objects, meshes,
#: materials, their collection, the scatter's node group), the terrain material, the road curves.
_DATA = ("objects", "meshes", "materials", "images", "node_groups", "collections", "curves")


def data_names() -> dict[str, set[str]]:
    return {kind: set(getattr(bpy.data, kind).keys()) for kind in _DATA}


def remove_new_data(before: Mapping[str, set[str]]) -> None:
    """Remove what was made since ``before`` (:func:`data_names`): new objects, then whatever new
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


def rename_tile(root: bpy.types.Object, wanted: str) -> None:
    """Give a new tile root (its LODs, scatter, splat material and images) the names of the tile it
    replaces (removed already), as ``.world_build.assemble_steps`` does at its end."""
    old = root.name
    if old == wanted:
        return
    materials, images = _splat_data(root)
    for item in [root, *descendants(root), *materials, *images]:
        item.name = item.name.replace(old, wanted, 1)
        data = item.data if isinstance(item, bpy.types.Object) and item.type in {"MESH", "CURVE"} else None
        if data is not None and data.users == 1:
            data.name = item.name
