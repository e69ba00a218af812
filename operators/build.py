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


def mesh_from_topology(name, positions, topology, *, corner_uvs=None):
    """A new mesh from (V, 3) float32 positions and a :class:`core.mesh.PolygonTopology`.

    Each argument may also be a function returning it: the mesh is then
    written one array at a time, each made just before it is written and
    dropped just after, which keeps the peak memory of huge grids down.
    """
    me = bpy.data.meshes.new(name)
    try:
        pos = np.ascontiguousarray(_resolve(positions), np.float32)
        me.vertices.add(len(pos))
        _set_attr(me, "position", "vector", pos.ravel())
        del pos
        topo = _resolve(topology)
        me.edges.add(len(topo.edges))
        _set_attr(me, ".edge_verts", "value", np.ascontiguousarray(topo.edges, np.int32).ravel())
        me.loops.add(len(topo.corner_verts))
        _set_attr(me, ".corner_vert", "value", np.ascontiguousarray(topo.corner_verts, np.int32))
        _set_attr(me, ".corner_edge", "value", np.ascontiguousarray(topo.corner_edges, np.int32))
        me.polygons.add(len(topo.loop_starts))
        me.polygons.foreach_set("loop_start", np.ascontiguousarray(topo.loop_starts, np.int32))
        del topo
        if corner_uvs is not None:
            uvs = np.ascontiguousarray(_resolve(corner_uvs), np.float32)
            uv = me.attributes.new("UVMap", "FLOAT2", "CORNER")
            uv.data.foreach_set("vector", uvs.ravel())
            del uvs
        me.update()
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def mesh_from_indexed(name, indexed):
    """A new triangle mesh from a :class:`core.mesh.IndexedMesh` (UVs included)."""
    topology = core_mesh.triangle_topology(indexed.indices)
    corner_uvs = indexed.uvs[topology.corner_verts]
    return mesh_from_topology(name, indexed.vertices, topology, corner_uvs=corner_uvs)


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


def terrain_mesh(name, heights, *, stride=1, topology_and_uvs=None):
    """A quad-grid mesh of a :class:`core.terrain.TerrainHeights`, centred on the origin.

    ``topology_and_uvs`` may hand in :func:`grid_topology_and_uvs` of the LOD's
    side, computed ahead (the terrain build does so while the noise runs).
    """
    n = heights.values.shape[0]
    idx = core_mesh.lod_indices(n, stride)
    half = (n - 1) / 2.0
    coords = ((idx - half) * heights.cell_size).astype(np.float32)

    def positions():
        z = heights.values[np.ix_(idx, idx)] if stride > 1 else heights.values
        return grid_positions(z * np.float32(heights.height), coords, coords)

    topology, uvs = topology_and_uvs or grid_topology_and_uvs(len(idx))
    me = mesh_from_topology(name, positions, topology, corner_uvs=uvs)
    if heights.margin is not None:  # tiles: normals that join the neighbours' (Blender's own would not)
        try:
            normals = me.attributes.new("custom_normal", "FLOAT_VECTOR", "POINT")
            normals.data.foreach_set("vector", core_terrain.grid_normals(heights, stride=stride).ravel())
        except BaseException:
            bpy.data.meshes.remove(me)
            raise
    return me


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


def _free_base_name(base, lods):
    """``base`` or ``base.001`` ... such that the root and all ``_LODn`` names are unused."""
    def free(name):
        names = [name] + ([f"{name}_LOD{i}" for i in range(lods)] if lods > 1 else [])
        return all(bpy.data.objects.get(n) is None for n in names)
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


def terrain_steps(recipe, *, collection, location=(0.0, 0.0, 0.0), replace=None, heights_out=None):
    """Build a terrain, yielding ``(done, total, label)``; returns the root object.

    ``heights_out``, a list, receives the :class:`core.terrain.TerrainHeights`
    (for previews and heightmap files, without computing them twice).

    ``replace`` (a terrain root) is rebuilt in place: it keeps its transform,
    parent and collections, and its mesh objects keep their names.
    Everything created is removed again if the build fails or is closed early.
    """
    spec = recipe.terrain
    n = spec.resolution
    mesh_steps = spec.lods + 1
    total = core_terrain.band_count(spec) + 1 + mesh_steps
    created_meshes, created_objects = [], []
    # The grid topology and UVs depend only on the resolution: a second thread (numpy releases
    # the GIL) prepares them while the noise runs. Nothing of Blender is touched off the main thread.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="worldseed")
    sides = [len(core_mesh.lod_indices(n, 2 ** level)) for level in range(spec.lods)]
    topologies = [pool.submit(grid_topology_and_uvs, side) for side in sides]
    pool.shutdown(wait=False)
    try:
        heights = yield from core_terrain.heights_steps(spec, seed=recipe.world.seed, more_steps=mesh_steps)
        if heights_out is not None:
            heights_out.append(heights)
        done = total - mesh_steps
        meshes = []
        for level in range(spec.lods):
            me = terrain_mesh(f"{recipe.world.name}_LOD{level}", heights, stride=2 ** level,
                              topology_and_uvs=topologies[level].result())
            created_meshes.append(me)
            meshes.append(me)
            done += 1
            yield done, total, f"mesh LOD{level}"
        material = terrain_material(spec.palette) if spec.material else None
        for me in meshes:
            if material is not None:
                me.materials.append(material)
        root = _commit_terrain(recipe, meshes, collection=collection, location=location, replace=replace,
                               created_objects=created_objects)
        yield total, total, "done"
        return root
    except BaseException:
        _remove_objects(created_objects)
        for me in created_meshes:
            if me.users == 0:
                bpy.data.meshes.remove(me)
        raise


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
        base = _free_base_name(old_name, lods)
    else:
        base = _free_base_name(recipe.world.name, lods)
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
