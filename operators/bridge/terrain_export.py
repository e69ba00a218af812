"""The terrain as Unity and the preview get it: triangles cut as core places props, colours as a texture.

For the duration of an export (:func:`unity_terrains`) every terrain mesh among
the exported objects is swapped for a copy whose quads are cut into triangles
along the diagonal ``core.mesh.quad_split`` picks from the heights -- the rule
the scatter places props by (``core.scatter.sample_heights``) -- so every
importer (Unity's FBX SDK, ufbx, assimp, a glTF viewer) sees the one surface
the props stand on, whatever its own rule for quads.  Blender's FBX writer
writes quads as quads; its glTF writer cuts them as Blender does.

The terrain's colour goes with it as a texture (:func:`ground_image`): the
texture layers blended by their weights (``core.preview.splat_colours``) or the
palette colours, one texel per cell, in a stand-in material of the same name
whose Base Color is that image and nothing else.  The FBX writer embeds it and
carries a white diffuse colour; the glTF writer embeds it with a white
``baseColorFactor``: the same colour in both files, and the colour Unity's
shaders show (they ignore vertex colours).  The preview render draws the same
texture (Workbench's texture colours, :func:`ground_materials`).

Everything swapped is put back afterwards and the temporary meshes, materials
and images are removed, so the scene and the .blend stay as they were.
"""

import contextlib
from collections.abc import Iterable, Iterator, Sequence

import bpy
import numpy as np
import numpy.typing as npt

from ...core import mesh as core_mesh
from ...core import preview as core_preview
from .materials import LAYER_COLOURS_KEY, ground_colours, is_terrain_material
from .mesh import bulk, mesh_of, mesh_topology
from .query import KIND_KEY
from .terrain import TERRAIN_KIND

__all__ = [
    "terrain_lods",
    "triangulated",
    "ground_image",
    "ground_materials",
    "unity_terrains",
    "layer_colours",
    "GROUND_SIDE",
]

#: Largest side of a ground texture (pixels): 2048 covers a 4 km terrain at 2 m a texel.
GROUND_SIDE = 2048
#: ``worldseed_kind`` of a world tile's root (``world_tiles.TILE_KIND``; a terrain of its own).
_TILE_KIND = "world_tile"
_SUFFIX = " (worldseed export)"


def terrain_lods(objects: Iterable[bpy.types.Object]) -> dict[bpy.types.Object, list[bpy.types.Object]]:
    """The terrain meshes among ``objects``: ``{root: [mesh objects, LOD0 first]}`` for terrain and
    world-tile roots (a one-LOD terrain is its own mesh), in the order the roots come."""
    out: dict[bpy.types.Object, list[bpy.types.Object]] = {}
    for o in objects:
        if o.type != "MESH":
            continue
        if o.get(KIND_KEY) in (TERRAIN_KIND, _TILE_KIND):
            out.setdefault(o, []).append(o)
        elif o.get(KIND_KEY) is None and o.parent is not None and o.parent.get(KIND_KEY) in (TERRAIN_KIND, _TILE_KIND):
            out.setdefault(o.parent, []).append(o)
    for lods in out.values():
        lods.sort(key=lambda o: (-len(mesh_of(o).vertices), o.name))
    return out


def layer_colours(root: bpy.types.Object) -> npt.NDArray[np.uint8] | None:
    """The ground colours of a terrain with texture layers (sRGB bytes (h, w, 3), row 0 at -Y: its
    splat material's blend, :func:`.materials.ground_colours`), or None (a palette terrain)."""
    lods = terrain_lods([root, *root.children]).get(root)
    if not lods or lods[0].active_material is None or LAYER_COLOURS_KEY not in lods[0].active_material:  # type: ignore[operator]  # an ID holds custom properties (no __contains__ in the stubs)
        return None
    return ground_colours(lods[0])


# --------------------------------------------------------------------------- triangles


def _grid_cuts(me, corner_verts):
    """Per quad of a terrain grid mesh, whether its triangles share its corner 0 -- corner 2:
    (P,) bool, from ``core.mesh.quad_split`` on the grid's heights; None if ``me`` is not a
    square grid of quads (an edited terrain)."""
    n = len(me.vertices)
    side = int(round(n**0.5))
    quads = len(me.polygons)
    if side < 2 or side * side != n or quads != (side - 1) ** 2 or len(corner_verts) != 4 * quads:
        return None
    starts = np.empty(quads, np.int32)
    me.polygons.foreach_get("loop_start", starts)
    if not np.array_equal(starts, np.arange(0, 4 * quads, 4, dtype=np.int32)):
        return None
    corners = corner_verts.reshape(-1, 4).astype(np.int64)
    v0 = corners.min(axis=1)
    expected = np.stack([v0, v0 + 1, v0 + side, v0 + side + 1], axis=1)
    if not np.array_equal(np.sort(corners, axis=1), expected) or (v0 % side == side - 1).any():
        return None
    co = np.empty(n * 3, np.float32)
    me.attributes["position"].data.foreach_get("vector", co)
    co = co.reshape(-1, 3).astype(np.float64)
    z = co[:, 2]
    split = core_mesh.quad_split(
        z[v0], z[v0 + 1], z[v0 + side + 1], z[v0 + side], co[v0 + 1, 0] - co[v0, 0], cell_y=co[v0 + side, 1] - co[v0, 1]
    )
    first = np.argmax(corners == v0[:, None], axis=1)  # which corner of the polygon is the grid's v0
    return split == (first % 2 == 0)


def _split_topology(me, corner_verts, cut02):
    """The topology of ``me``'s quads each cut in two (``cut02``: along corner 0 -- corner 2), made from
    its own edges plus one diagonal per quad, in :func:`triangulated`'s corner order -- no search for
    shared edges (``core.mesh.triangle_topology`` sorts them all: most of the time on large grids)."""
    n_edges = len(me.edges)
    edges = np.empty(n_edges * 2, np.int32)
    me.attributes[".edge_verts"].data.foreach_get("value", edges)
    corner_edges = np.empty(len(corner_verts), np.int32)
    me.attributes[".corner_edge"].data.foreach_get("value", corner_edges)
    quads = len(cut02)
    cv = corner_verts.reshape(-1, 4)
    ce = corner_edges.reshape(-1, 4)
    diagonal = np.where(cut02[:, None], cv[:, [0, 2]], cv[:, [1, 3]]).astype(np.int32)
    d = (n_edges + np.arange(quads)).astype(np.int32)
    # triangles (0 1 2)(0 2 3) along 0 -- 2, (0 1 3)(1 2 3) along 1 -- 3: each corner's edge to the next
    along02 = np.stack([ce[:, 0], ce[:, 1], d, d, ce[:, 2], ce[:, 3]], axis=1)
    along13 = np.stack([ce[:, 0], d, ce[:, 3], ce[:, 1], ce[:, 2], d], axis=1)
    tri_edges = np.where(cut02[:, None], along02, along13).ravel()
    tri_verts = np.where(cut02[:, None], cv[:, [0, 1, 2, 0, 2, 3]], cv[:, [0, 1, 3, 1, 2, 3]]).ravel()
    return core_mesh.PolygonTopology(
        loop_starts=np.arange(0, 6 * quads, 3, dtype=np.int32),
        corner_verts=np.ascontiguousarray(tri_verts, np.int32),
        edges=np.concatenate([edges.reshape(-1, 2), np.sort(diagonal, axis=1)]),
        corner_edges=np.ascontiguousarray(tri_edges, np.int32),
    )


def _loop_triangle_corners(me):
    """Blender's own triangles (what its viewport and glTF writer draw): (T, 3) corner indices."""
    me.calc_loop_triangles()
    loops = np.empty(len(me.loop_triangles) * 3, np.int32)
    me.loop_triangles.foreach_get("loops", loops)
    return loops.reshape(-1, 3)


def _attribute_layout(attr):
    """``(key, width, dtype)`` of an attribute's ``foreach_get``, or None for a kind not copied."""
    return {
        "FLOAT": ("value", 1, np.float32),
        "INT": ("value", 1, np.int32),
        "INT8": ("value", 1, np.int8),
        "BOOLEAN": ("value", 1, bool),
        "FLOAT2": ("vector", 2, np.float32),
        "FLOAT_VECTOR": ("vector", 3, np.float32),
        "FLOAT_COLOR": ("color", 4, np.float32),
        "BYTE_COLOR": ("color_srgb", 4, np.float32),
        "INT32_2D": ("value", 2, np.int32),
        "QUATERNION": ("value", 4, np.float32),
    }.get(attr.data_type)


def triangulated(me: bpy.types.Mesh, name: str) -> bpy.types.Mesh:
    """A new mesh ``name``: ``me`` with every face cut into triangles -- a terrain grid along the
    diagonals ``core.mesh.quad_split`` picks, any other mesh as Blender's ``loop_triangles`` --,
    with the same vertices, materials and attributes (point ones as they are, corner ones per
    corner, face ones per triangle; edge ones are dropped, the edges being new)."""
    count = len(me.loops)
    corner_verts = np.empty(count, np.int32)
    bulk(me.attributes[".corner_vert"]).foreach_get("value", corner_verts)
    cut02 = _grid_cuts(me, corner_verts)
    if cut02 is not None:
        base = np.arange(0, count, 4, dtype=np.int64)[:, None]
        first = np.where(cut02[:, None], base + [0, 1, 2], base + [0, 1, 3])
        second = np.where(cut02[:, None], base + [0, 2, 3], base + [1, 2, 3])
        src = np.stack([first, second], axis=1).reshape(-1, 3)  # keeps each quad's winding
        face_of = np.repeat(np.arange(len(me.polygons)), 2)
    else:
        src = _loop_triangle_corners(me).astype(np.int64)
        face_of = np.empty(len(src), np.int32)
        me.loop_triangles.foreach_get("polygon_index", face_of)
    src_loops = src.ravel()
    if cut02 is not None:
        topology = _split_topology(me, corner_verts, cut02)
    else:
        topology = core_mesh.triangle_topology(corner_verts[src].astype(np.int32))
    new = mesh_topology(name, len(me.vertices), topology)
    try:
        sizes = {"POINT": len(me.vertices), "CORNER": count, "FACE": len(me.polygons)}
        for attr in me.attributes:
            layout = _attribute_layout(attr)
            if attr.name.startswith(".") or attr.domain not in sizes or layout is None:
                continue
            key, width, dtype = layout
            values = np.empty(sizes[attr.domain] * width, dtype)
            bulk(attr).foreach_get(key, values)
            values = values.reshape(-1, width)
            if attr.domain == "CORNER":
                values = values[src_loops]
            elif attr.domain == "FACE":
                values = values[face_of]
            made = new.attributes.get(attr.name) or new.attributes.new(attr.name, attr.data_type, attr.domain)
            bulk(made).foreach_set(key, np.ascontiguousarray(values).ravel())
        active = me.uv_layers.active
        if active is not None and active.name in new.uv_layers:
            new.uv_layers.active = new.uv_layers[active.name]
        for uv in me.uv_layers:
            if uv.active_render and uv.name in new.uv_layers:
                new.uv_layers[uv.name].active_render = True
        colours = me.color_attributes
        if colours.active_color_name and colours.active_color_name in new.color_attributes:
            new.color_attributes.active_color = new.color_attributes[colours.active_color_name]
        if 0 <= colours.render_color_index < len(colours):
            render = colours[colours.render_color_index].name
            new.color_attributes.render_color_index = new.color_attributes.find(render)
        for material in me.materials:
            new.materials.append(material)
        new.update()
        if me.has_custom_normals and not new.has_custom_normals:  # older Blender: normals outside attributes
            normals = np.empty(count * 3, np.float32)
            me.corner_normals.foreach_get("vector", normals)
            new.normals_split_custom_set(normals.reshape(-1, 3)[src_loops].tolist())
    except BaseException:
        bpy.data.meshes.remove(new)
        raise
    return new


# --------------------------------------------------------------------------- colours


def _shrink(pixels, side):
    """``pixels`` (h, w, 3) with no side above ``side``: the mean of blocks of f x f texels."""
    h, w = pixels.shape[:2]
    f = -(-max(h, w) // side)
    if f <= 1:
        return pixels
    h2, w2 = -(-h // f) * f, -(-w // f) * f
    padded = np.pad(pixels.astype(np.float32), ((0, h2 - h), (0, w2 - w), (0, 0)), mode="edge")
    blocks = padded.reshape(h2 // f, f, w2 // f, f, 3).mean(axis=(1, 3))
    return np.rint(blocks).astype(np.uint8)


def ground_image(name: str, srgb: npt.NDArray[np.uint8]) -> bpy.types.Image:
    """A new image ``name`` holding the sRGB bytes ``srgb`` ((h, w, 3), row 0 at the bottom) as a
    packed PNG (what the FBX and glTF writers embed), no side above :data:`GROUND_SIDE`."""
    srgb = _shrink(np.ascontiguousarray(srgb, np.uint8), GROUND_SIDE)
    h, w = srgb.shape[:2]
    png = core_preview.png_bytes(np.ascontiguousarray(srgb[::-1]))  # PNG rows run top down
    image = bpy.data.images.new(name, w, h)
    image.pack(data=png, data_len=len(png))
    image.source = "FILE"
    image.filepath_raw = f"//{name}.png"
    image.colorspace_settings.name = "sRGB"  # type: ignore[union-attr]  # an image always has them
    return image


def _stand_in(name, image, original):
    """A material ``name`` whose Base Color is ``image`` (white where unlinked: the FBX diffuse)."""
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = next(n for n in nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = image
    texture.extension = "EXTEND"
    texture.location = (-400, 300)
    mat.node_tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Base Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.92
    nodes.active = texture  # what Workbench's texture colours show
    mat.diffuse_color = original.diffuse_color if original is not None else (0.8, 0.8, 0.8, 1.0)
    mat.roughness = 0.9
    return mat


class _Swaps:
    """Renames and data swaps to undo, and temporary data to remove, in reverse order."""

    def __init__(self):
        self.undo = []

    def rename(self, block, name):
        old = block.name
        block.name = name
        self.undo.append(lambda: setattr(block, "name", old))

    def remove(self, collection, block):
        self.undo.append(lambda: collection.remove(block) if block.name in collection else None)

    def close(self):
        while self.undo:
            self.undo.pop()()


def _materials_of(lods):
    return {m for o in lods for m in o.data.materials if is_terrain_material(m)}


def _palette_of(root):
    def palette():
        from .terrain import stored_recipe

        return (
            float(root.get("worldseed_height", 1.0)),
            float(root.get("worldseed_sea_level", 0.0)),
            stored_recipe(root).terrain.palette,
        )

    return palette


def _grounds(terrains, swaps, *, all_terrains):
    """Per terrain root, the stand-in material for its terrain material (see :func:`unity_terrains`)."""
    users = {}
    for root, lods in terrains.items():
        for m in _materials_of(lods):
            users.setdefault(m.name, []).append(root)
    out = {}
    for root, lods in terrains.items():
        originals = _materials_of(lods)
        if len(originals) > 1 or (not originals and not all_terrains):
            continue
        original = next(iter(originals), None)
        srgb = ground_colours(lods[0], palette_of=_palette_of(root) if original is None or all_terrains else None)
        if srgb is None:
            continue
        image = ground_image(f"{root.name}_Ground", srgb)
        swaps.remove(bpy.data.images, image)
        if original is not None and len(users[original.name]) == 1:
            name = original.name
            swaps.rename(original, name + _SUFFIX)
        else:
            name = f"{original.name if original is not None else 'Worldseed Terrain'} {root.name}"
        mat = _stand_in(name, image, original)
        swaps.remove(bpy.data.materials, mat)
        if mat.name != name:
            raise RuntimeError(f"material {name!r} could not be named for the export")
        out[root] = (original, mat)
    return out


@contextlib.contextmanager
def unity_terrains(
    objects: Iterable[bpy.types.Object], *, triangulate: bool = True
) -> Iterator[dict[bpy.types.Object, list[bpy.types.Object]]]:
    """For the duration, each terrain mesh among ``objects`` (:func:`terrain_lods`) holds a triangulated
    copy of its mesh (:func:`triangulated`, same name) whose terrain material is a stand-in of the
    same name showing the ground's colours as a texture (:func:`ground_image`); all is put back after.
    With ``triangulate=False`` only the materials are swapped, on the meshes themselves."""
    terrains = terrain_lods(objects)
    swaps = _Swaps()
    try:
        grounds = _grounds(terrains, swaps, all_terrains=False)
        for root, lods in terrains.items():
            original, stand_in = grounds.get(root, (None, None))
            for obj in lods:
                me = mesh_of(obj)
                if triangulate:
                    new = triangulated(me, me.name + _SUFFIX)
                    swaps.remove(bpy.data.meshes, new)
                    name = me.name
                    swaps.rename(me, me.name + _SUFFIX + " (quads)")
                    swaps.rename(new, name)
                    obj.data = new
                    swaps.undo.append(lambda obj=obj, me=me: setattr(obj, "data", me))
                    me = new
                if stand_in is not None:
                    for i, m in enumerate(me.materials):
                        if m == original:
                            me.materials[i] = stand_in
                            if not triangulate:
                                swaps.undo.append(lambda me=me, i=i, m=m: me.materials.__setitem__(i, m))
        yield terrains
    finally:
        swaps.close()


@contextlib.contextmanager
def ground_materials(root: bpy.types.Object, lods: Sequence[bpy.types.Object]) -> Iterator[bool]:
    """For the duration, the terrain meshes ``lods`` of ``root`` show their ground colours
    (:func:`ground_colours`) as the active image texture of a stand-in material: what Workbench
    draws with texture colours (the preview render).  A terrain without a material gets the
    palette's colours.  Yields whether a texture was set up."""
    swaps = _Swaps()
    try:
        grounds = _grounds({root: lods}, swaps, all_terrains=True)
        original, stand_in = grounds.get(root, (None, None))
        if stand_in is not None:
            for obj in lods:
                me = mesh_of(obj)
                slots = list(me.materials)
                if not slots:
                    me.materials.append(stand_in)
                    swaps.undo.append(lambda me=me: me.materials.pop())
                    continue
                for i, m in enumerate(slots):
                    if m == original:
                        me.materials[i] = stand_in
                        swaps.undo.append(lambda me=me, i=i, m=m: me.materials.__setitem__(i, m))
        yield stand_in is not None
    finally:
        swaps.close()
