"""Rivers and roads in Blender: the Networks panel's settings (``[rivers]`` and ``[roads]``) and the objects
a terrain's networks are shown and exported as.

The networks are worked out with the terrain (``core.terrain.terrain_layers_steps``: after the erosion,
before the biomes and texture layers), so a terrain build with ``[rivers]`` / ``[roads]`` on carries the
carved ground in its mesh, its RAW heightmap and its splat maps; this module adds what the networks are
besides the ground, as children of the terrain root (:func:`attach`):

* ``<Terrain>_Rivers``: the water surfaces, a ribbon along every river at its water level (material
  ``River Water``) and a flat patch over every lake cell (``Lake Water``);
* ``<Terrain>_Roads``: the road ribbons (UV ``u`` across, ``v`` along the road, one material per class:
  ``Road highway``, ``Road road``, ``Road trail``) and the bridge decks (``Bridge Deck``);
* ``<Terrain>_RoadCurves``: the roads' centre lines as a curve (one poly spline per edge), for the
  artist (the Unity exports take meshes and empties only: the road graph goes to Unity as
  ``<name>_roads.json``).

A tiled world's tile (``World_x_z``, :mod:`.world_tiles`) gets the same three (:func:`attach_planned`
with its ``box``): the water and ribbons cut at its sides, its road curves cut there too (the crossing
point on the seam, so neighbouring tiles' curves meet), and the bridge decks it owns, each whole.

Each is tagged :data:`NETWORK_KIND`; a rebuild replaces them.  The adapters of the two sections hold the
Networks panel's settings; their tables join the terrain's in a recipe (``follows = "terrain"``).  The
roads' points come from text (``x, y; x, y``), the empties of a collection (by name) or picked objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import bpy
import numpy as np

from ...core import rivers as core_rivers
from ...core import roads as core_roads
from ...core.errors import ParameterError
from ...core.mesh import IndexedMesh, index_dtype
from ...core.spec import float32_decimal
from .family import Adapter, settings_class
from .materials import plain_material
from .mesh import mesh_from_indexed, mesh_of, remove_objects
from .properties import PropertyDef, Settings, Update, apply_spec
from .query import KIND_KEY, is_kind

if TYPE_CHECKING:
    from ...core.terrain import TerrainLayers

__all__ = [
    "NETWORK_KIND",
    "RiversAdapter",
    "RoadsAdapter",
    "attach",
    "attach_planned",
    "detach",
    "network_objects",
    "is_network",
    "points_text",
    "points_from_text",
    "POINT_SOURCES",
    "RIVERS_SUFFIX",
    "ROADS_SUFFIX",
    "CURVES_SUFFIX",
]

#: The tag of the networks' objects below a terrain root.
NETWORK_KIND = "networks"
RIVERS_SUFFIX, ROADS_SUFFIX, CURVES_SUFFIX = "_Rivers", "_Roads", "_RoadCurves"
#: Colours (sRGB) of the networks' materials.
WATER_RGB, LAKE_RGB, DECK_RGB = (0.16, 0.36, 0.52), (0.12, 0.30, 0.46), (0.42, 0.38, 0.33)
ROAD_RGB = {"highway": (0.18, 0.18, 0.19), "road": (0.33, 0.31, 0.28), "trail": (0.50, 0.42, 0.31)}

POINT_SOURCES = (
    ("TEXT", "Text", "The points written as 'x, y; x, y' (metres in the scene)"),
    ("COLLECTION", "Collection", "Every object of a collection (empties, say), by name: their x, y"),
    ("OBJECTS", "Picked Objects", "The objects picked into the list (Pick Selected), in the list's order"),
)


# --------------------------------------------------------------------------- the panel's settings


def points_text(points: Iterable[Sequence[float]]) -> str:
    """Points as the sidebar writes them.

    >>> points_text([(1.0, -2.5), (300.0, 4.0)])
    '1.0, -2.5; 300.0, 4.0'
    """
    return "; ".join(f"{float(x)!r}, {float(y)!r}" for x, y in points)


def points_from_text(text: str, name: str = "roads.points") -> list[list[float]]:
    """The points of the sidebar's text, ``x, y; x, y`` (refused naming the point that is no pair).

    >>> points_from_text("1, -2.5; 300 , 4")
    [[1.0, -2.5], [300.0, 4.0]]
    """
    out = []
    for i, part in enumerate(p for p in text.split(";") if p.strip()):
        try:
            x, y = (float(v) for v in part.split(","))
        except ValueError:
            raise ParameterError(f"{name}[{i}] must be 'x, y' (metres), got {part.strip()[:40]!r}") from None
        out.append([x, y])
    return out


class RiversAdapter(Adapter):
    """``[rivers]``: the Networks panel's rivers (every field generated from the limits table)."""

    key = "rivers"
    family = "networks"
    label = "rivers"
    prefix = "rivers."
    follows = "terrain"


class RoadsAdapter(Adapter):
    """``[roads]``: the Networks panel's roads; the points from text, a collection or picked objects."""

    key = "roads"
    family = "networks"
    label = "roads"
    prefix = "roads."
    follows = "terrain"

    def settings_classes(self, update: Update | None = None) -> tuple[type[bpy.types.PropertyGroup], ...]:
        picked = settings_class(
            "WorldseedRoadPoint",
            "One picked object of the Networks panel's road points.",
            {"object": bpy.props.PointerProperty(type=bpy.types.Object, name="Object", description="A road point")},
        )
        kw: dict[str, Any] = {"update": update} if update is not None else {}
        props: dict[str, PropertyDef] = {
            **self.props(update=update),
            "points_source": bpy.props.EnumProperty(
                name="Points",
                items=POINT_SOURCES,
                default="TEXT",
                description="Where the road points come from",
                **kw,
            ),
            "points_text": bpy.props.StringProperty(
                name="Points",
                default="",
                description="Points to join, 'x, y; x, y' in metres (the scene's X and Y; the terrain is centred "
                "on its offset)",
                **kw,
            ),
            "points_collection": bpy.props.PointerProperty(
                type=bpy.types.Collection, name="Collection", description="Objects (empties) marking the points"
            ),
            "points_objects": bpy.props.CollectionProperty(type=picked, name="Picked Objects"),
            "active_point": bpy.props.IntProperty(name="Active Point", default=0, min=0),
        }
        doc = "The Networks panel's roads ([roads] of a recipe) and where their points come from."
        return picked, settings_class("WorldseedRoadsSettings", doc, props, self.methods())

    def points(self, settings: Settings) -> list[list[float]]:
        """The road points the settings name, ``[[x, y], ...]`` Blender metres (as a recipe holds them)."""
        source = settings.points_source
        if source == "TEXT":
            return points_from_text(settings.points_text)
        if source == "COLLECTION":
            coll = settings.points_collection
            if coll is None or not len(coll.all_objects):
                raise ParameterError("roads: choose a collection of objects (empties) marking the points")
            objects = sorted(coll.all_objects, key=lambda o: o.name)
        else:
            objects = [item.object for item in settings.points_objects if item.object is not None]
            if not objects:
                raise ParameterError("roads: pick the objects marking the points (select them, then Pick Selected)")
        return [[float32_decimal(v) for v in o.matrix_world.translation[:2]] for o in objects]

    def table(self, props: Settings) -> dict[str, Any]:
        table = super().table(props)
        if hasattr(props, "points_source"):
            table["points"] = self.points(props)
        return table

    def load(self, props: Settings, spec: Any, *, keep: Iterable[str] = ()) -> None:
        apply_spec(props, spec, names=self.fields(), keep=keep)
        if "points" not in keep and hasattr(props, "points_text"):
            props.points_text = points_text(spec.points)
            props.points_source = "TEXT"


# --------------------------------------------------------------------------- objects


def is_network(obj: bpy.types.Object | None) -> bool:
    """True for an object of a terrain's networks (its rivers, roads or road curves)."""
    return is_kind(obj, NETWORK_KIND)


def network_objects(root: bpy.types.Object) -> list[bpy.types.Object]:
    """The networks' objects below the terrain ``root``."""
    return [c for c in root.children if is_network(c)]


def _material(name: str, rgb: Sequence[float], roughness: float) -> bpy.types.Material:
    return plain_material(name, rgb, roughness=roughness)


def _joined(meshes: Iterable[IndexedMesh | None], materials: Iterable[int]) -> IndexedMesh | None:
    """One mesh of several, the triangles of the k-th given material ``materials[k]`` added to its own."""
    parts = [(m, extra) for m, extra in zip(meshes, materials) if m is not None and m.n_triangles]
    if not parts:
        return None
    base, tris, mats = 0, [], []
    for m, extra in parts:
        tris.append(m.indices.astype(np.int64) + base)
        own = m.materials if m.materials is not None else np.zeros(m.n_triangles, np.uint8)
        mats.append(own.astype(np.int64) + extra)
        base += m.n_vertices
    verts = np.concatenate([m.vertices for m, _ in parts]).astype(np.float32)
    return IndexedMesh(
        verts,
        np.concatenate(tris).astype(index_dtype(len(verts))),
        np.concatenate([m.uvs for m, _ in parts]).astype(np.float32),
        np.concatenate([m.normals for m, _ in parts]).astype(np.float32),
        np.concatenate(mats).astype(np.uint8),
    )


def _mesh_object(
    name: str, indexed: IndexedMesh, materials: Sequence[bpy.types.Material], root: bpy.types.Object
) -> bpy.types.Object:
    me = mesh_from_indexed(name, indexed)
    for mat in materials:
        me.materials.append(mat)
    me.polygons.foreach_set("material_index", np.asarray(indexed.materials, np.int32))
    me.update()
    return _child(name, me, root)


def _child(name: str, data: bpy.types.ID, root: bpy.types.Object) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, data)
    obj[KIND_KEY] = NETWORK_KIND
    for coll in root.users_collection:
        coll.objects.link(obj)
    obj.parent = root  # at the root's origin: the meshes are in its frame
    return obj


def _curves(
    name: str, network: Any, origin: Sequence[float], root: bpy.types.Object, **kwargs: Any
) -> bpy.types.Object | None:
    """The roads' centre lines as one curve object (a poly spline per edge, or per piece of an edge
    in a tile: ``core.roads.road_lines``, whose ``kwargs`` are ``mesh_origin`` and ``box``), at the
    road surface; None when no line has two points."""
    lines = [p for p in core_roads.road_lines(network, origin=(origin[0], origin[1]), **kwargs) if len(p) >= 2]
    if not lines:
        return None
    data = bpy.data.curves.new(name, "CURVE")
    data.dimensions = "3D"
    for line in lines:
        spline = data.splines.new("POLY")
        spline.points.add(len(line) - 1)
        co = np.concatenate([line, np.ones((len(line), 1))], 1)
        spline.points.foreach_set("co", co.astype(np.float32).ravel())
    return _child(name, data, root)


def detach(root: bpy.types.Object) -> None:
    """Remove the networks' objects of the terrain ``root`` (and their curves' data)."""
    objs = network_objects(root)
    curves = [cast("bpy.types.Curve", o.data) for o in objs if o.type == "CURVE"]
    remove_objects(objs)
    for data in curves:
        if data.users == 0:
            bpy.data.curves.remove(data)


def attach(root: bpy.types.Object, layers: TerrainLayers | None) -> list[bpy.types.Object]:
    """The networks of ``layers`` as children of the terrain ``root`` (its earlier ones replaced):
    ``<root>_Rivers``, ``<root>_Roads`` and ``<root>_RoadCurves`` (see the module's notes), in the
    root's frame (centred on the terrain, whatever its offset).  Returns the objects made."""
    detach(root)
    if layers is None or (layers.rivers is None and layers.roads is None):
        return []
    rows, cols = layers.heights.values.shape
    cell = layers.heights.cell_size
    origin = (-0.5 * (cols - 1) * cell, -0.5 * (rows - 1) * cell)
    rivers = layers.rivers.network if layers.rivers is not None else None
    roads = layers.roads.network if layers.roads is not None else None
    return attach_planned(root, rivers, roads, origin=origin)


def attach_planned(
    root: bpy.types.Object,
    rivers: Any,
    roads: Any,
    *,
    origin: Sequence[float],
    centre: Sequence[float] = (0.0, 0.0),
    box: tuple[int, int, int, int] | None = None,
) -> list[bpy.types.Object]:
    """The networks ``rivers`` / ``roads`` (``RiverNetwork`` / ``RoadNetwork`` or None) as children of
    ``root``: Blender ``origin`` is the planned grid's cell (0, 0), ``centre`` ``(x, y)`` the root's
    place in that frame.  ``box`` (a tiled world's tile ``(row0, col0, row1, col1)`` in the world's
    grid): only its part, the ribbons and water cut at the tile's sides, the road curves too (the
    crossing point interpolated on the seam, so two tiles' curves meet exactly), and the bridge decks
    the tile owns, each whole (the tile holding the span's midpoint: ``core.roads.bridge_spans`` says
    why), so the tiles hold each bridge once.  Returns the objects made."""
    made = []
    mesh_origin = (float(centre[0]), float(centre[1]), 0.0)
    origin = (float(origin[0]), float(origin[1]))
    if rivers is not None:
        water = core_rivers.water_mesh(rivers, origin=origin, mesh_origin=mesh_origin, box=box)
        if water is not None:
            mats = [_material("River Water", WATER_RGB, 0.05), _material("Lake Water", LAKE_RGB, 0.05)]
            made.append(_mesh_object(root.name + RIVERS_SUFFIX, water, mats, root))
    if roads is not None:
        names = sorted(roads.classes)
        ribbons = core_roads.road_mesh(roads, origin=origin, mesh_origin=mesh_origin, box=box)
        decks = core_roads.bridge_mesh(roads, origin=origin, mesh_origin=mesh_origin, box=box)
        joined = _joined([ribbons, decks], [0, len(names)])
        if joined is not None:
            mats = [_material(f"Road {n}", ROAD_RGB.get(n, ROAD_RGB["road"]), 0.9) for n in names]
            mats.append(_material("Bridge Deck", DECK_RGB, 0.8))
            made.append(_mesh_object(root.name + ROADS_SUFFIX, joined, mats, root))
        curves = _curves(root.name + CURVES_SUFFIX, roads, origin, root, mesh_origin=mesh_origin, box=box)
        if curves is not None:
            made.append(curves)
    for obj in made:
        if obj.type == "MESH":
            mesh_of(obj).validate()
    return made
