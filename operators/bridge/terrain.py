"""Terrain: a core heightmap into Blender as a grid mesh per LOD, built or rebuilt in place.

``Name`` (LOD0) or an empty ``Name`` with ``Name_LOD0 .. Name_LODn`` for
Unity's LOD Group.  Used by the operators and by the headless run alike.
Builds are generators that yield ``(done, total, label)`` between stages, so
the UI can show progress and cancel; a build that fails or is closed removes
everything it created, leaving the scene as it was.
"""

from __future__ import annotations

import concurrent.futures
import functools
import sys
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import bpy
import numpy as np
import numpy.typing as npt
from mathutils import Vector

from ...core import erosion as core_erosion
from ...core import mesh as core_mesh
from ...core import recipe as core_recipe
from ...core import terrain as core_terrain
from ...core.steps import drive
from . import terrain_layers
from .materials import (
    is_terrain_material,
    set_shading_properties,
    splat_material,
    staged_splat_image,
    terrain_material,
)
from .mesh import descendants, free_base_name, mesh_of, mesh_topology, remove_objects, set_corners, set_positions
from .networks import attach as attach_networks
from .networks import is_network
from .query import KIND_KEY, is_kind, root_of

if TYPE_CHECKING:
    from ...core.mesh import PolygonTopology
    from ...core.recipe import Recipe
    from ...core.steps import Steps
    from ...core.terrain import TerrainHeights, TerrainLayers
    from .world import World

T = TypeVar("T", covariant=True)


class Pending(Protocol[T]):
    """A result on its way: a ``concurrent.futures.Future`` or a :class:`.terrain_layers.Then` of one."""

    def result(self, timeout: float | None = None) -> T: ...

    def cancel(self) -> bool: ...


#: The corners of a grid LOD: vertices, edges and UVs, each an array or (too large to cache) made on demand.
Corners = tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.float32]]
F32 = npt.NDArray[np.float32]

RECIPE_KEY = "worldseed_recipe"
#: The tag of a terrain's root.
TERRAIN_KIND = "terrain"
#: Progress steps of a rebuild's followers (:data:`Follow`: the scatter and the forest on the new ground).
FOLLOW_PROGRESS = 20

#: What follows a terrain through a rebuild in place (its scatter, its forest: :mod:`.follow`): called
#: with the old root, the new recipe, its heights and layers (None without) before anything in the scene
#: changes, its steps yield ``(done, total, label)`` (Esc lands between them) and return the function
#: that puts the followers on the new ground, called with the new root once it is in the scene.
Follow = Callable[
    [bpy.types.Object, "Recipe", "TerrainHeights", "TerrainLayers | None"],
    "Steps[Callable[[bpy.types.Object], None]]",
]


def is_terrain(obj: bpy.types.Object | None) -> bool:
    """True for the root object of a Worldseed terrain."""
    return is_kind(obj, TERRAIN_KIND)


def terrain_root(obj: bpy.types.Object | None) -> bpy.types.Object | None:
    """The Worldseed terrain root of ``obj`` (itself, or its LOD parent), or None."""
    return root_of(obj, TERRAIN_KIND)


__all__ = [
    "RECIPE_KEY",
    "FOLLOW_PROGRESS",
    "Follow",
    "followers",
    "terrain_steps",
    "build_terrain",
    "stored_recipe",
    "terrain_root",
    "is_terrain",
    "TERRAIN_KIND",
    "terrain_positions",
    "grid_topology_and_uvs",
    "terrain_heights_of",
    "terrain_layers_of",
    "set_terrain_positions",
    "LAYER_PROGRESS",
    "erosion_note",
    "NOTE_SECONDS",
]

#: An erosion estimated at this many seconds or more is announced before it starts (:func:`erosion_note`).
NOTE_SECONDS = 10.0

#: Progress steps the terrain's layers (erosion, flow, biomes, splats) count for in a build.
LAYER_PROGRESS = 100


def grid_positions(heights_m: npt.NDArray[np.floating[Any]], xs: F32, ys: F32) -> F32:
    """(rows*cols, 3) float32 positions of a grid with column coords xs and row coords ys."""
    rows, cols = heights_m.shape
    pos = np.empty((rows, cols, 3), dtype=np.float32)
    pos[..., 0] = xs[None, :]
    pos[..., 1] = ys[:, None]
    pos[..., 2] = heights_m
    return pos.reshape(-1, 3)


#: Grids up to this many vertices keep their topology and UVs cached between builds (a rebuild
#: at the same resolution -- redo panel, auto update, new seed -- then only writes new heights).
CACHED_GRID_VERTICES = 1500 * 1500


@functools.lru_cache(maxsize=4)
def cached_grid(side: int) -> tuple[PolygonTopology, F32]:
    topology, uvs = core_mesh.grid_topology(side, side), core_mesh.grid_corner_uvs(side, side)
    for a in (topology.loop_starts, topology.corner_verts, topology.edges, topology.corner_edges, uvs):
        a.flags.writeable = False
    return topology, uvs


def grid_topology_and_uvs(side: int) -> tuple[PolygonTopology | Callable[[], PolygonTopology], F32 | Callable[[], F32]]:
    """Topology and corner UVs of a ``side x side`` grid: cached arrays for grids up to
    :data:`CACHED_GRID_VERTICES`, functions that make them on demand for larger ones."""
    if side * side <= CACHED_GRID_VERTICES:
        return cached_grid(side)
    return (lambda: core_mesh.grid_topology(side, side)), (lambda: core_mesh.grid_corner_uvs(side, side))


#: Bands of quad rows a cached grid's turns are worked out in, one per pool worker.
TURN_BANDS = 2


def band_rows(n: int, band: int, bands: int) -> tuple[int, int]:
    """Quad rows ``[first, stop)`` of band ``band`` of ``bands`` in a grid of ``n`` vertex rows."""
    return (n - 1) * band // bands, (n - 1) * (band + 1) // bands


def band_turns(heights_future: Pending[TerrainHeights], stride: int, band: int, bands: int) -> npt.NDArray[np.bool_]:
    """The quads to turn (``core.mesh.grid_turns``) in one band of quad rows of a terrain LOD,
    once its heights are known: on the heights in metres that the mesh and the scatter both use
    (a band's turns are those of the whole grid, each quad seeing only its own corners)."""
    heights = heights_future.result()
    idx = core_mesh.lod_indices(heights.values.shape[0], stride)
    first, stop = band_rows(len(idx), band, bands)
    if stop == first:  # a grid of fewer quad rows than bands (resolution 2: one row): this band has none
        return np.zeros(0, bool)
    rows = heights.values[idx[first] : idx[stop] + 1]
    return core_mesh.grid_turns(rows * np.float32(heights.height), cell_size=heights.cell_size, stride=stride)


def turn_band(
    topology_future: Pending[tuple[PolygonTopology, F32]],
    turn_future: Pending[npt.NDArray[np.bool_]],
    which: int,
    out: npt.NDArray[Any],
    start: int,
) -> None:
    """Write one band of a cached grid's corner array (``which``: 0 vertices, 1 edges, 2 UVs),
    turned, into ``out`` from corner ``start``."""
    topology, uvs = topology_future.result()
    turn = turn_future.result()
    values = (topology.corner_verts, topology.corner_edges, uvs)[which]
    stop = start + 4 * len(turn)
    core_mesh.turn_quads(values[start:stop], turn, out=out[start:stop])


def corner_futures(
    pool: concurrent.futures.Executor,
    side: int,
    stride: int,
    heights_future: Pending[TerrainHeights],
    topology_future: Pending[Any],
) -> tuple[Corners, list[concurrent.futures.Future[Any]]] | None:
    """The turned corner vertices, edges and UVs of a cached grid, and the futures that fill
    them (band by band on the pool, as soon as the heights are known); None for grids too large
    to cache (made on demand)."""
    if side * side > CACHED_GRID_VERTICES:
        return None
    corners = 4 * (side - 1) ** 2
    arrays = (np.empty(corners, np.int32), np.empty(corners, np.int32), np.empty((corners, 2), np.float32))
    # every band's turns first, so both workers start on them as soon as the heights are known
    turns = [pool.submit(band_turns, heights_future, stride, band, TURN_BANDS) for band in range(TURN_BANDS)]
    futures: list[concurrent.futures.Future[Any]] = list(turns)
    for band, turn in enumerate(turns):
        start = 4 * (side - 1) * band_rows(side, band, TURN_BANDS)[0]
        futures += [pool.submit(turn_band, topology_future, turn, k, arrays[k], start) for k in range(3)]
    return arrays, futures


def uncached_corners(
    side: int, turn: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], Callable[[], F32]]:
    """The corner vertices, edges and (on demand) UVs of a grid too large to cache, turned."""
    topology = core_mesh.grid_topology(side, side, turn=turn)
    return topology.corner_verts, topology.corner_edges, (lambda: core_mesh.grid_corner_uvs(side, side, turn=turn))


def terrain_positions(heights: TerrainHeights, *, stride: int = 1) -> F32:
    """(k * k, 3) float32 positions of a terrain LOD, centred on the origin."""
    n = heights.values.shape[0]
    idx = core_mesh.lod_indices(n, stride)
    coords = ((idx - (n - 1) / 2.0) * heights.cell_size).astype(np.float32)
    z = heights.values[np.ix_(idx, idx)] if stride > 1 else heights.values
    return grid_positions(z * np.float32(heights.height), coords, coords)


def set_terrain_positions(me: bpy.types.Mesh, heights: TerrainHeights, *, stride: int = 1) -> bpy.types.Mesh:
    """Finish a terrain LOD mesh made by :func:`mesh_topology` with the heights.

    Tiles (heights with a margin) also get custom normals that join their
    neighbours' (Blender's own would not see past the edge).
    """
    normals = (lambda: core_terrain.grid_normals(heights, stride=stride)) if heights.margin is not None else None
    return set_positions(me, lambda: terrain_positions(heights, stride=stride), normals=normals)


# --------------------------------------------------------------------------- objects


def terrain_layers_of(
    root: bpy.types.Object, *, progress: Callable[[int, int, str], object] | None = None
) -> TerrainLayers | None:
    """The layers (``core.terrain.TerrainLayers``: eroded heights, flow, biomes, splats) of a
    Worldseed terrain, or None when its recipe has none (kept from the build, or worked out again)."""
    return terrain_layers.layers_for(stored_recipe(root), progress=progress)


def terrain_heights_of(root: bpy.types.Object) -> tuple[npt.NDArray[np.float32], float, float]:
    """(heights in metres (rows, cols), size in metres, sea level in metres) of a Worldseed terrain
    (after erosion, when it has some)."""
    recipe = stored_recipe(root)
    layers = terrain_layers_of(root)
    heights = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed) if layers is None else layers.heights
    spec = recipe.terrain
    return heights.metres, spec.size, spec.sea_level * spec.height


def stored_recipe(obj: bpy.types.Object) -> Recipe:
    """The recipe a Worldseed object was built from."""
    return core_recipe.loads(obj[RECIPE_KEY], source=f"object {obj.name!r}")


def _tag(obj: bpy.types.Object, recipe: Recipe) -> None:
    obj[KIND_KEY] = TERRAIN_KIND
    obj[RECIPE_KEY] = core_recipe.dumps(recipe)


def _wait(future: Pending[T], poll: float = 0.05) -> Generator[None, None, T]:
    """Yield while ``future`` runs (so a modal operator stays responsive); return its result."""
    while True:
        try:
            return future.result(timeout=poll)
        except concurrent.futures.TimeoutError:
            yield


def terrain_steps(
    recipe: Recipe,
    *,
    collection: bpy.types.Collection,
    location: Sequence[float] = (0.0, 0.0, 0.0),
    replace: bpy.types.Object | None = None,
    heights_out: list[TerrainHeights] | None = None,
    layers_out: list[TerrainLayers] | None = None,
    follow: Follow | None = None,
) -> Steps[bpy.types.Object]:
    """Build a terrain, yielding ``(done, total, label)``; returns the root object.

    The heights (noise and shaping, numpy only) are computed on a worker
    thread while the main thread writes the grids' edges and polygons into
    Blender, since those depend on the resolution alone; the corners and UVs
    (each quad starts where Blender's cut, corner 0 -- corner 2, is the one
    ``core.mesh.quad_split`` picks from the heights, the cut the scatter and
    the FBX readers use) and positions go in last. Nothing of Blender is
    touched off the main thread.

    ``heights_out``, a list, receives the :class:`core.terrain.TerrainHeights`
    (for previews and heightmap files, without computing them twice).
    A recipe with erosion, biomes or texture layers has its layers worked out
    (``core.terrain.terrain_layers_steps``, on a worker thread: its progress
    shows, and a cancel stops it at its next step) once the heights are
    known; the mesh gets the eroded heights and, with texture layers, the
    splat material (:func:`.materials.splat_material`); ``layers_out``, a
    list, receives them.
    ``replace`` (a terrain root) is rebuilt in place: it keeps its transform,
    parent and collections, and its mesh objects keep their names; what stands
    on it (scatter, forest, settlements: :func:`followers`) stays below it, and
    ``follow`` (:data:`Follow`) puts the scatter and the forest on the new
    ground: worked out before the scene changes (progress, Esc), written after.
    Everything created is removed again if the build fails or is closed early.
    """
    spec = recipe.terrain
    sides = [len(core_mesh.lod_indices(spec.resolution, 2**level)) for level in range(spec.lods)]
    with_layers = terrain_layers.has_layers(recipe)
    # the splat images, one a step (Esc lands between them), for a terrain with texture layers
    images = -(-len(getattr(recipe, "splat", ())) // 4) if with_layers and spec.material else 0
    follow = follow if replace is not None else None
    total = 2 * spec.lods + 2 + (LAYER_PROGRESS if with_layers else 0) + images + (FOLLOW_PROGRESS if follow else 0)
    created_meshes: list[bpy.types.Mesh] = []
    created_objects: list[bpy.types.Object] = []
    staged_images: list[bpy.types.Image] = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="worldseed")
    strides = [2**level for level in range(spec.lods)]
    heights_future = pool.submit(core_terrain.terrain_heights, spec, seed=recipe.world.seed)
    topologies = [pool.submit(grid_topology_and_uvs, side) for side in sides]
    relay: terrain_layers.Relay[TerrainLayers] | None = None
    mesh_heights: Pending[TerrainHeights] = heights_future
    if with_layers:  # the layers' steps run on a worker; the mesh waits for their eroded heights
        relay = terrain_layers.Relay(pool, lambda: terrain_layers.layers_steps(recipe, heights_future.result()))
        mesh_heights = terrain_layers.Then(relay.future, lambda layers: layers.heights)
    # first in, first out: a task that waits for an earlier future never waits for a queued one
    corners = [
        corner_futures(pool, side, stride, mesh_heights, topology)
        for side, stride, topology in zip(sides, strides, topologies)
    ]
    pool.shutdown(wait=False)
    try:
        done = 0
        for level, side in enumerate(sides):
            topology, uvs = yield from _steps(_wait(topologies[level]), done, total, f"topology LOD{level}")
            me = mesh_topology(f"{recipe.world.name}_LOD{level}", side * side, topology, corners=False)
            created_meshes.append(me)
            done += 1
            yield done, total, f"topology LOD{level}"
        heights = yield from _steps(_wait(heights_future), done, total, "noise")
        done += 1
        yield done, total, "noise"
        layers = None
        if relay is not None:
            layers = yield from _relayed(relay.steps(), done, total, LAYER_PROGRESS)
            heights = layers.heights
            done += LAYER_PROGRESS
            yield done, total, "layers"
            if layers_out is not None:
                layers_out.append(layers)
        if heights_out is not None:
            heights_out.append(heights)
        for level, me in enumerate(created_meshes):
            cached = corners[level]
            corner_uvs: F32 | Callable[[], F32]
            if cached is None:
                turn = core_mesh.grid_turns(heights.metres, cell_size=heights.cell_size, stride=strides[level])
                corner_verts, corner_edges, corner_uvs = uncached_corners(sides[level], turn)
                del turn
            else:
                (corner_verts, corner_edges, corner_uvs), futures = cached
                del cached
                for future in futures:
                    yield from _steps(_wait(future), done, total, f"mesh LOD{level}")
            set_corners(me, corner_verts, corner_edges, corner_uvs=corner_uvs)
            del corner_verts, corner_edges, corner_uvs
            corners[level] = None
            set_terrain_positions(me, heights, stride=strides[level])
            done += 1
            yield done, total, f"mesh LOD{level}"
        place_followers = None
        if follow is not None and replace is not None:  # worked out now: the scene is still as it was
            place_followers = yield from _relayed(
                follow(replace, recipe, heights, layers), done, total, FOLLOW_PROGRESS
            )
            done += FOLLOW_PROGRESS
            yield done, total, "followers"
        material = terrain_material(spec.palette) if spec.material else None
        if material is not None and layers is not None and layers.splats:
            name = (
                replace.name
                if replace is not None
                else free_base_name(recipe.world.name, spec.lods if spec.lods > 1 else 0)
            )
            for k, pixels in enumerate(layers.splats):
                staged_images.append(staged_splat_image(f"{name}_splat{k}", pixels))
                done += 1
                yield done, total, f"splat {k}"
            material = splat_material(name, layers.splats, recipe.splat, size=spec.size, images=staged_images)
            staged_images = []  # the material's own now
        for me in created_meshes:
            if material is not None:
                me.materials.append(material)
        root = _commit_terrain(
            recipe,
            list(created_meshes),
            collection=collection,
            location=location,
            replace=replace,
            created_objects=created_objects,
        )
        attach_networks(root, layers)  # rivers, roads and their curves below the root (the old ones gone)
        if place_followers is not None:
            place_followers(root)
        yield total, total, "done"
        return root
    except BaseException:
        if relay is not None:
            relay.cancel()
        for future in [heights_future, *(f for c in corners if c for f in c[1])]:
            future.cancel()
        remove_objects(created_objects)
        for me in created_meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        for image in staged_images:
            bpy.data.images.remove(image)
        raise


def _relayed(
    steps: Generator[tuple[int, int, str] | None, None, T], done: int, total: int, band: int
) -> Generator[tuple[int, int, str], None, T]:
    """Yield the progress of ``steps`` (the layers' on their worker, the followers') as ``band`` steps
    after ``done`` while they run; return their result (closed early, they are closed)."""
    last = (done, total, "layers")
    try:
        while True:
            try:
                step = next(steps)
            except StopIteration as stop:
                return stop.value
            if step is not None:
                at, of, label = step
                last = (done + min(band, band * at // max(of, 1)), total, label or "layers")
            yield last
    finally:
        steps.close()


def _steps(
    waiting: Generator[None, None, T], done: int, total: int, label: str
) -> Generator[tuple[int, int, str], None, T]:
    """Turn the bare yields of :func:`_wait` into progress steps; return its result."""
    while True:
        try:
            next(waiting)
        except StopIteration as stop:
            return stop.value
        yield done, total, label


def followers(root: bpy.types.Object) -> list[bpy.types.Object]:
    """What stands on the terrain ``root`` and stays through a rebuild in place: every child but its
    LOD meshes (untagged meshes) and its networks (made again) -- its scatter, forest, settlements,
    the artist's own objects."""
    return [c for c in root.children if not is_network(c) and (c.type != "MESH" or c.get(KIND_KEY) is not None)]


def _own_keys(obj: bpy.types.Object) -> dict[str, Any]:
    return {k: obj[k] for k in obj.keys() if not k.startswith("worldseed_")}


def _commit_terrain(
    recipe: Recipe,
    meshes: Sequence[bpy.types.Mesh],
    *,
    collection: bpy.types.Collection,
    location: Sequence[float],
    replace: bpy.types.Object | None,
    created_objects: list[bpy.types.Object],
) -> bpy.types.Object:
    """Link the finished meshes as objects (the only step that changes the scene).

    A new terrain goes to ``location`` plus its tile offset, so tiles built
    from neighbouring offsets sit side by side. A rebuilt one keeps its name,
    transform (moved by any change of offset), parent, collections, its own
    custom properties and the materials the artist gave its meshes.
    """
    lods = len(meshes)
    spec = recipe.terrain
    if replace is not None:
        old = stored_recipe(replace)
        recipe = core_recipe.replace(recipe, world_name=old.world.name)  # the objects keep their names
        shift = Vector((spec.offset[0] - old.terrain.offset[0], spec.offset[1] - old.terrain.offset[1], 0.0))
        # its own meshes (the LODs); the networks are made again after; what stands on it stays
        stay = followers(replace)
        own = [c for c in replace.children if not is_network(c) and c not in stay]
        old_meshes = (
            [replace] if replace.type == "MESH" else sorted((c for c in own if c.type == "MESH"), key=lambda o: o.name)
        )
        artist_materials = [list(mesh_of(o).materials) for o in old_meshes if len(mesh_of(o).materials)]
        artist_materials = [m for m in artist_materials if not all(is_terrain_material(x) for x in m)]
        if artist_materials:
            for me in meshes:
                me.materials.clear()
                for mat in artist_materials[0]:
                    me.materials.append(mat)
        same_layout = (lods == 1 and replace.type == "MESH" and not own) or (
            lods > 1 and replace.type == "EMPTY" and len(old_meshes) == lods
        )
        if same_layout:
            if lods > 1:  # LODs follow a renamed root, so Unity's LOD Group keeps matching names
                for level, obj in enumerate(old_meshes):
                    wanted = f"{replace.name}_LOD{level}"
                    if obj.name != wanted and bpy.data.objects.get(wanted) is None:
                        obj.name = wanted
                        mesh_of(obj).name = wanted
            for obj, me in zip(old_meshes, meshes):
                previous = mesh_of(obj)
                name = previous.name
                previous.name = name + ".old"  # free the name for the new mesh
                obj.data = me
                me.name = name
                set_shading_properties(obj, spec)
                if previous.users == 0:
                    bpy.data.meshes.remove(previous)
            _tag(replace, recipe)
            set_shading_properties(replace, spec)
            replace.matrix_world.translation += shift
            return replace
        base_matrix, parent = replace.matrix_world.copy(), replace.parent
        base_matrix.translation += shift
        collections = list(replace.users_collection)
        keep = _own_keys(replace)
        old_name = replace.name
        staying = set(stay).union(*(descendants(c) for c in stay))
        for child in stay:  # kept out of the removal, below the new root at the end
            inverse, basis = child.matrix_parent_inverse.copy(), child.matrix_basis.copy()
            child.parent = None
            child.matrix_parent_inverse, child.matrix_basis = inverse, basis
        remove_objects([replace] + [d for d in descendants(replace) if d not in staying])
        base = free_base_name(old_name, lods if lods > 1 else 0)
    else:
        base = free_base_name(recipe.world.name, lods if lods > 1 else 0)
        base_matrix, parent, collections, keep = None, None, [collection], {}
        stay = []
    if lods == 1:
        root = bpy.data.objects.new(base, meshes[0])
        meshes[0].name = base
        objs = [root]
    else:
        root = bpy.data.objects.new(base, None)
        root.empty_display_type = "PLAIN_AXES"
        objs = [root]
        for level, me in enumerate(meshes):
            name = f"{base}_LOD{level}"
            me.name = name
            child = bpy.data.objects.new(name, me)
            child.parent = root
            objs.append(child)
    created_objects.extend(objs)
    for obj in objs:
        set_shading_properties(obj, spec)
        for coll in collections:
            coll.objects.link(obj)
    for child in objs[2:]:
        child.hide_set(True)  # show LOD0 only; the others stay exportable
    for key, value in keep.items():
        root[key] = value
    _tag(root, recipe)
    if base_matrix is not None:
        root.parent = parent
        root.matrix_world = base_matrix
        for child in stay:  # where they stood on the old root (moved by any change of offset)
            inverse, basis = child.matrix_parent_inverse.copy(), child.matrix_basis.copy()
            child.parent = root
            child.matrix_parent_inverse, child.matrix_basis = inverse, basis
    else:
        root.location = (location[0] + spec.offset[0], location[1] + spec.offset[1], location[2])
    return root


def build_terrain(
    recipe: Recipe,
    *,
    collection: bpy.types.Collection,
    location: Sequence[float] = (0.0, 0.0, 0.0),
    replace: bpy.types.Object | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> bpy.types.Object:
    """Build (or rebuild in place) a terrain from a recipe and return its root object."""
    return drive(terrain_steps(recipe, collection=collection, location=location, replace=replace), progress)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def erosion_note(recipe: Recipe) -> str | None:
    """What the terrain's erosion will cost, when ``core.erosion.erosion_seconds`` puts it at
    :data:`NOTE_SECONDS` or more (else None): said before it starts, on stderr headless and as a
    report in the sidebar.  An erosion at the allowed maximum on a 4 km terrain (15 million droplets
    of 100 steps on 4097^2 vertices) is about 12 minutes of CPU."""
    terrain = recipe.terrain
    spec = terrain.erosion
    if not (terrain.enabled and spec.enabled):
        return None
    seconds = core_erosion.erosion_seconds(spec, size=terrain.size, resolution=terrain.resolution)
    if seconds < NOTE_SECONDS:
        return None
    steps = max(1, int(round(spec.lifetime / terrain.cell_size)))
    count = core_terrain.erosion_droplets(terrain)
    thermal = f" and {spec.thermal_iterations:,} thermal passes" if spec.thermal and spec.thermal_iterations else ""
    return (
        f"erosion of {count:,} droplets of up to {steps:,} steps{thermal} on {terrain.resolution:,} x "
        f"{terrain.resolution:,} vertices: about {_duration(seconds)} of CPU (an estimate; Esc in the sidebar, "
        "Ctrl-C headless stops it)"
    )


def build_section(
    recipe: Recipe, world: World, *, scene: bpy.types.Scene, progress: Callable[[int, int, str], object] | None = None
) -> None:
    """``[terrain]`` of a world build (see :mod:`.world`): the terrain, its heights kept for later sections;
    a long erosion is announced on stderr first (:func:`erosion_note`)."""
    if not recipe.terrain.enabled:
        return
    note = erosion_note(recipe)
    if note is not None:
        print(f"worldseed: {note}", file=sys.stderr)
    heights_out: list[TerrainHeights] = []
    layers_out: list[TerrainLayers] = []
    world.terrain = drive(
        terrain_steps(recipe, collection=scene.collection, heights_out=heights_out, layers_out=layers_out), progress
    )
    world.heights[world.terrain.name] = heights_out[0]
    if layers_out:
        world.layers[world.terrain.name] = layers_out[0]
    world.roots.append(world.terrain)
