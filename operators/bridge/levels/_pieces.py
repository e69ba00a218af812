"""The pieces of a level object: its materials, the level mesh, its markers' names and places, its map image.

Coordinates as in :mod:`.level`: column ``x`` along +X, row ``y`` (row 0 north) along -Y, from the
level's south-west corner.
"""

from collections.abc import Sequence
from typing import Any

import bpy
import numpy as np
import numpy.typing as npt

from ....core import levels as core_levels
from ....core.levels import Level, LevelSpec, Marker
from ..mesh import bulk, mesh_from_topology
from ._wfc import cells_quads

__all__ = [
    "MATERIAL_NAMES",
    "MATERIAL_COLOURS",
    "MAP_SIDE",
    "level_materials",
    "level_mesh",
    "marker_names",
    "marker_positions",
    "map_pixels",
    "map_image",
]

#: The level mesh's materials (core's material ids 0, 1, 2) and their base colours (linear RGB): floors a
#: warm sandstone, walls a dark slate and ceilings a deep brown, apart at a glance in the preview, in
#: Workbench (their viewport colour) and in Unity (the FBX diffuse and glTF base colour).
MATERIAL_NAMES = ("Worldseed Level Floor", "Worldseed Level Wall", "Worldseed Level Ceiling")
MATERIAL_COLOURS = ((0.52, 0.38, 0.20), (0.13, 0.15, 0.19), (0.20, 0.09, 0.05))
#: Largest side of the map image kept in the .blend (the panel shows it as an icon; the PNG file is full size).
MAP_SIDE = 512


def _material(name: str, rgb: Sequence[float]) -> bpy.types.Material:
    """A plain material of base colour ``rgb`` (what the FBX diffuse colour and glTF's
    ``baseColorFactor`` carry), made once per file."""
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
        mat.use_nodes = True
    assert mat.node_tree is not None  # made just above when missing
    rgba = (*rgb, 1.0)
    mat.diffuse_color = rgba
    mat.roughness = 0.85
    # a node's sockets are known by name at run time only: the stubs type nodes by their base class
    bsdf: Any = next((n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        bsdf = mat.node_tree.nodes.new("ShaderNodeBsdfPrincipled")
        out = next((n for n in mat.node_tree.nodes if n.type == "OUTPUT_MATERIAL"), None)
        out = out or mat.node_tree.nodes.new("ShaderNodeOutputMaterial")
        mat.node_tree.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    bsdf.inputs["Base Color"].default_value = rgba
    bsdf.inputs["Roughness"].default_value = 0.85
    return mat


def level_materials() -> list[bpy.types.Material]:
    """The floor, wall and ceiling materials (core's material ids 0, 1, 2)."""
    return [_material(n, c) for n, c in zip(MATERIAL_NAMES, MATERIAL_COLOURS)]


def level_mesh(level: Level, spec: LevelSpec, name: str, cells: npt.NDArray[np.bool_] | None = None) -> bpy.types.Mesh:
    """The level mesh as a Blender quad mesh with world-scaled UVs and a material slot for each kind of
    face it has (floor, wall, ceiling, in that order: a level without a ceiling has no Ceiling slot,
    which the FBX would carry as an empty material), its south-west corner at the object's origin;
    with ``cells`` ((height, width) bool) only the faces of those cells."""
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
        materials = np.asarray(materials, np.int32)
        used = np.unique(materials)
        attr = me.attributes.get("material_index") or me.attributes.new("material_index", "INT", "FACE")
        bulk(attr).foreach_set("value", np.ascontiguousarray(np.searchsorted(used, materials), np.int32))
        every = level_materials()
        for k in used:
            me.materials.append(every[k])
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def marker_names(markers: Sequence[Marker], level: str | None = None) -> list[str]:
    """Object names of the markers: ``<level>_Spawn``, ``<level>_Exit`` (when one of their kind), else
    ``<level>_Kind_001``.. per kind (more digits when a kind has 1,000 or more); without ``level``, the
    names without the prefix.  Prefixed with the level's name they are unique and stable across
    Updates, so a Unity script can find them (``GameObject.Find("Crypt_Spawn")``).

    >>> from collections import namedtuple
    >>> M = namedtuple("M", "kind x y")
    >>> marker_names([M("spawn", 1, 1), M("enemy", 2, 2), M("enemy", 3, 3), M("exit", 4, 4)], "Crypt")
    ['Crypt_Spawn', 'Crypt_Enemy_001', 'Crypt_Enemy_002', 'Crypt_Exit']
    """
    counts: dict[str, int]
    seen: dict[str, int]
    out: list[str]
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


def marker_positions(level: Level, cell_size: float) -> npt.NDArray[np.float64]:
    """(N, 3) float64 positions of the markers' cell centres on the floor, from the level's south-west corner."""
    xy = np.array([(m.x, m.y) for m in level.markers], np.float64).reshape(-1, 2)
    out = np.zeros((len(xy), 3))
    out[:, 0] = (xy[:, 0] + 0.5) * cell_size
    out[:, 1] = (level.height - xy[:, 1] - 0.5) * cell_size
    return out


def map_pixels(rgb: npt.ArrayLike) -> tuple[npt.NDArray[np.float32], int, int]:
    """Blender image pixels (bottom row first, RGBA float32, flat) of a uint8 (h, w, 3) picture whose
    row 0 is the top, sampled down to at most :data:`MAP_SIDE` per side; returns ``(pixels, w, h)``."""
    rgb = np.asarray(rgb)
    step = max(1, -(-max(rgb.shape[:2]) // MAP_SIDE))
    rgb = rgb[::step, ::step]
    h, w = rgb.shape[:2]
    px = np.ones((h, w, 4), np.float32)
    px[..., :3] = rgb[::-1, :, :3] * np.float32(1 / 255)
    return px.ravel(), w, h


def map_image(level: Level, name: str, image: bpy.types.Image | None = None) -> bpy.types.Image:
    """The level's 2-D map as an image datablock (made, or ``image`` refilled), with its preview icon."""
    pixels, w, h = map_pixels(core_levels.level_image(level, max_side=MAP_SIDE))
    if image is None:
        image = bpy.data.images.new(f"{name} Map", w, h, alpha=False)
    elif tuple(image.size) != (w, h):
        image.scale(w, h)
    image.pixels.foreach_set(pixels)  # type: ignore[attr-defined]  # a float array, typed as a float
    image.update()
    preview = image.preview_ensure()  # the panel's icon: the map itself, not a blurred thumbnail of it
    preview.image_size = (w, h)
    preview.image_pixels_float.foreach_set(pixels)  # type: ignore[attr-defined]  # a float array, typed as a float
    return image
