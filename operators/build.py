"""Arrays to Blender objects: the one bridge between core and bpy.

Used by the operators and by the headless batch entry alike, so the UI and
``blender --background`` build the same thing. Meshes are written in bulk
through the attribute API (``position``, ``.edge_verts``, ``.corner_vert``,
``.corner_edge``) with precomputed edges, so Blender never has to derive the
topology itself, and never with per-vertex Python loops.

Builds are generators that yield ``(done, total, label)`` between stages, so
the UI can show progress and cancel; a build that fails or is closed removes
everything it created, leaving the scene as it was.
"""
import concurrent.futures
import functools

import bpy
import numpy as np
from mathutils import Vector

from ..core import mesh as core_mesh
from ..core import recipe as core_recipe
from ..core import terrain as core_terrain
from ..core.steps import drive
from .material import is_terrain_material, set_shading_properties, terrain_material

KIND_KEY = "worldseed_kind"
RECIPE_KEY = "worldseed_recipe"


# --------------------------------------------------------------------------- meshes

def _set_attr(mesh, name, key, values):
    mesh.attributes[name].data.foreach_set(key, values)


def _resolve(value):
    return value() if callable(value) else value


def mesh_topology(name, n_vertices, topology, *, corner_uvs=None):
    """A new mesh with ``n_vertices`` vertices (positions still zero) and the polygons,
    edges and corner UVs of ``topology``; finish it with :func:`set_positions`.

    ``topology`` and ``corner_uvs`` may also be functions returning them: they
    are then made just before they are written and dropped just after, which
    keeps the peak memory of huge grids down.
    """
    me = bpy.data.meshes.new(name)
    try:
        me.vertices.add(n_vertices)
        topo = _resolve(topology)
        me.edges.add(len(topo.edges))
        _set_attr(me, ".edge_verts", "value", np.ascontiguousarray(topo.edges, np.int32).ravel())
        me.loops.add(len(topo.corner_verts))
        _set_attr(me, ".corner_vert", "value", np.ascontiguousarray(topo.corner_verts, np.int32))
        _set_attr(me, ".corner_edge", "value", np.ascontiguousarray(topo.corner_edges, np.int32))
        me.polygons.add(len(topo.loop_starts))
        # loop_start has no raw-array path in Blender: it converts item by item, and Python ints from
        # a memoryview convert twice as fast as numpy scalars (15 ms against 33 ms per million).
        me.polygons.foreach_set("loop_start", memoryview(np.ascontiguousarray(topo.loop_starts, np.int32)))
        del topo
        if corner_uvs is not None:
            uvs = np.ascontiguousarray(_resolve(corner_uvs), np.float32)
            uv = me.attributes.new("UVMap", "FLOAT2", "CORNER")
            uv.data.foreach_set("vector", uvs.ravel())
            del uvs
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def set_positions(me, positions, *, normals=None):
    """Write (V, 3) float32 positions (and optional custom vertex normals) and finish the mesh."""
    _set_attr(me, "position", "vector", np.ascontiguousarray(_resolve(positions), np.float32).ravel())
    if normals is not None:
        normals = np.ascontiguousarray(_resolve(normals), np.float32)
        if bpy.app.version >= (4, 5, 0):  # free normals: a plain attribute, written in bulk
            attr = me.attributes.new("custom_normal", "FLOAT_VECTOR", "POINT")
            attr.data.foreach_set("vector", normals.ravel())
        else:
            me.update()
            me.normals_split_custom_set_from_vertices(normals)
    me.update()
    return me


def mesh_from_topology(name, positions, topology, *, corner_uvs=None, normals=None):
    """A new mesh from (V, 3) float32 positions and a :class:`core.mesh.PolygonTopology`."""
    me = mesh_topology(name, len(positions), topology, corner_uvs=corner_uvs)
    try:
        return set_positions(me, positions, normals=normals)
    except BaseException:
        bpy.data.meshes.remove(me)
        raise


def mesh_from_indexed(name, indexed, *, normals=False):
    """A new triangle mesh from a :class:`core.mesh.IndexedMesh` (UVs included; its normals as
    custom normals when ``normals``)."""
    topology = core_mesh.triangle_topology(indexed.indices)
    corner_uvs = indexed.uvs[topology.corner_verts]
    return mesh_from_topology(name, indexed.vertices, topology, corner_uvs=corner_uvs,
                              normals=indexed.normals if normals else None)


def grid_positions(heights_m, xs, ys):
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
def _cached_grid(side):
    topology, uvs = core_mesh.grid_topology(side, side), core_mesh.grid_corner_uvs(side, side)
    for a in (topology.loop_starts, topology.corner_verts, topology.edges, topology.corner_edges, uvs):
        a.flags.writeable = False
    return topology, uvs


def grid_topology_and_uvs(side):
    """Topology and corner UVs of a ``side x side`` grid: cached arrays for grids up to
    :data:`CACHED_GRID_VERTICES`, functions that make them on demand for larger ones."""
    if side * side <= CACHED_GRID_VERTICES:
        return _cached_grid(side)
    return (lambda: core_mesh.grid_topology(side, side)), (lambda: core_mesh.grid_corner_uvs(side, side))


def terrain_positions(heights, *, stride=1):
    """(k * k, 3) float32 positions of a terrain LOD, centred on the origin."""
    n = heights.values.shape[0]
    idx = core_mesh.lod_indices(n, stride)
    coords = ((idx - (n - 1) / 2.0) * heights.cell_size).astype(np.float32)
    z = heights.values[np.ix_(idx, idx)] if stride > 1 else heights.values
    return grid_positions(z * np.float32(heights.height), coords, coords)


def set_terrain_positions(me, heights, *, stride=1):
    """Finish a terrain LOD mesh made by :func:`mesh_topology` with the heights.

    Tiles (heights with a margin) also get custom normals that join their
    neighbours' (Blender's own would not see past the edge).
    """
    normals = ((lambda: core_terrain.grid_normals(heights, stride=stride))
               if heights.margin is not None else None)
    return set_positions(me, lambda: terrain_positions(heights, stride=stride), normals=normals)


# --------------------------------------------------------------------------- objects

def is_terrain(obj):
    """True for the root object of a Worldseed terrain."""
    return obj is not None and obj.get(KIND_KEY) == "terrain"


def terrain_root(obj):
    """The Worldseed terrain root of ``obj`` (itself, or its LOD parent), or None."""
    while obj is not None:
        if is_terrain(obj):
            return obj
        obj = obj.parent
    return None


def stored_recipe(obj):
    """The recipe a Worldseed object was built from."""
    return core_recipe.loads(obj[RECIPE_KEY], source=f"object {obj.name!r}")


def free_base_name(base, lods):
    """``base`` or ``base.001`` ... such that the root and ``base_LOD0 .. base_LOD{lods-1}`` are unused."""
    def free(name):
        return all(bpy.data.objects.get(n) is None for n in [name] + [f"{name}_LOD{i}" for i in range(lods)])
    if free(base):
        return base
    k = 1
    while not free(f"{base}.{k:03d}"):
        k += 1
    return f"{base}.{k:03d}"


def _tag(obj, recipe):
    obj[KIND_KEY] = "terrain"
    obj[RECIPE_KEY] = core_recipe.dumps(recipe)


def _descendants(obj):
    out = []
    for child in obj.children:
        out.append(child)
        out.extend(_descendants(child))
    return out


def _remove_objects(objs):
    meshes = {o.data for o in objs if o.type == "MESH"}
    for o in objs:
        bpy.data.objects.remove(o, do_unlink=True)
    for me in meshes:
        if me.users == 0:
            bpy.data.meshes.remove(me)


def _wait(future, poll=0.05):
    """Yield while ``future`` runs (so a modal operator stays responsive); return its result."""
    while True:
        try:
            return future.result(timeout=poll)
        except concurrent.futures.TimeoutError:
            yield


def terrain_steps(recipe, *, collection, location=(0.0, 0.0, 0.0), replace=None, heights_out=None):
    """Build a terrain, yielding ``(done, total, label)``; returns the root object.

    The heights (noise and shaping, numpy only) are computed on a worker
    thread while the main thread writes the grids' topology and UVs into
    Blender, since those depend on the resolution alone; the positions go in
    last. Nothing of Blender is touched off the main thread.

    ``heights_out``, a list, receives the :class:`core.terrain.TerrainHeights`
    (for previews and heightmap files, without computing them twice).
    ``replace`` (a terrain root) is rebuilt in place: it keeps its transform,
    parent and collections, and its mesh objects keep their names.
    Everything created is removed again if the build fails or is closed early.
    """
    spec = recipe.terrain
    sides = [len(core_mesh.lod_indices(spec.resolution, 2 ** level)) for level in range(spec.lods)]
    total = 2 * spec.lods + 2
    created_meshes, created_objects = [], []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="worldseed")
    heights_future = pool.submit(core_terrain.terrain_heights, spec, seed=recipe.world.seed)
    topologies = [pool.submit(grid_topology_and_uvs, side) for side in sides]
    pool.shutdown(wait=False)
    try:
        done = 0
        for level, side in enumerate(sides):
            topology, uvs = yield from _steps(_wait(topologies[level]), done, total, f"topology LOD{level}")
            me = mesh_topology(f"{recipe.world.name}_LOD{level}", side * side, topology, corner_uvs=uvs)
            created_meshes.append(me)
            done += 1
            yield done, total, f"topology LOD{level}"
        heights = yield from _steps(_wait(heights_future), done, total, "noise")
        if heights_out is not None:
            heights_out.append(heights)
        done += 1
        yield done, total, "noise"
        for level, me in enumerate(created_meshes):
            set_terrain_positions(me, heights, stride=2 ** level)
            done += 1
            yield done, total, f"mesh LOD{level}"
        material = terrain_material(spec.palette) if spec.material else None
        for me in created_meshes:
            if material is not None:
                me.materials.append(material)
        root = _commit_terrain(recipe, list(created_meshes), collection=collection, location=location,
                               replace=replace, created_objects=created_objects)
        yield total, total, "done"
        return root
    except BaseException:
        heights_future.cancel()
        _remove_objects(created_objects)
        for me in created_meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        raise


def _steps(waiting, done, total, label):
    """Turn the bare yields of :func:`_wait` into progress steps; return its result."""
    while True:
        try:
            next(waiting)
        except StopIteration as stop:
            return stop.value
        yield done, total, label


def _own_keys(obj):
    return {k: obj[k] for k in obj.keys() if not k.startswith("worldseed_")}


def _commit_terrain(recipe, meshes, *, collection, location, replace, created_objects):
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
        old_meshes = ([replace] if replace.type == "MESH" else
                      sorted((c for c in replace.children if c.type == "MESH"), key=lambda o: o.name))
        artist_materials = [list(o.data.materials) for o in old_meshes if len(o.data.materials)]
        artist_materials = [m for m in artist_materials if not all(is_terrain_material(x) for x in m)]
        if artist_materials:
            for me in meshes:
                me.materials.clear()
                for mat in artist_materials[0]:
                    me.materials.append(mat)
        same_layout = ((lods == 1 and replace.type == "MESH" and not replace.children)
                       or (lods > 1 and replace.type == "EMPTY" and len(old_meshes) == lods))
        if same_layout:
            if lods > 1:  # LODs follow a renamed root, so Unity's LOD Group keeps matching names
                for level, obj in enumerate(old_meshes):
                    wanted = f"{replace.name}_LOD{level}"
                    if obj.name != wanted and bpy.data.objects.get(wanted) is None:
                        obj.name = wanted
                        obj.data.name = wanted
            for obj, me in zip(old_meshes, meshes):
                previous = obj.data
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
        _remove_objects([replace] + _descendants(replace))
        base = free_base_name(old_name, lods if lods > 1 else 0)
    else:
        base = free_base_name(recipe.world.name, lods if lods > 1 else 0)
        base_matrix, parent, collections, keep = None, None, [collection], {}
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
    else:
        root.location = (location[0] + spec.offset[0], location[1] + spec.offset[1], location[2])
    return root


def build_terrain(recipe, *, collection, location=(0.0, 0.0, 0.0), replace=None, progress=None):
    """Build (or rebuild in place) a terrain from a recipe and return its root object."""
    return drive(terrain_steps(recipe, collection=collection, location=location, replace=replace), progress)
