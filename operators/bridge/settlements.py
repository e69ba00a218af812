"""Settlements in Blender: the terrain rebuilt with its pads, then every site as objects.

``core.settlements`` does the work (in the terrain's layers: ``core.terrain.terrain_layers_steps``
levels the pads before the texture layers read the ground); this module puts the result into the
scene under the terrain::

    <Terrain>                      the terrain root (its heights now hold the pads)
      <Terrain>_Settlements        the family's root (tag "settlements", the spec stored on it)
        <Terrain>_<Site>           an empty at the site's centre, on its pad (Village2, WalledTown1 ...)
          <Terrain>_<Site>_Pad / _Streets / _Wall / _House<k>      meshes (bulk: foreach_set)
          <Terrain>_<Site>_Door<k> / _Gate<k> / _Entry / _LevelEntrance   markers (empties)

Rotation 0 and scale 1 everywhere (Unity-ready); a door's facing is a custom property
(``worldseed_facing``).  ``<name>_settlements.json`` is :func:`settlements_files`' bytes (core's).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np

from ...core import recipe as core_recipe
from ...core import settlements as core_settlements
from ...core.errors import ParameterError
from ...core.mesh import IndexedMesh
from ...core.settlements import Settlements, SettlementsSpec, Site
from ...core.steps import Steps, drive
from ...core.terrain import TerrainLayers
from . import terrain_layers
from .family import Adapter, Plan
from .follow import follow_steps
from .mesh import bulk, descendants, mesh_from_indexed, remove_objects
from .query import KIND_KEY, child_of, root_of
from .terrain import TERRAIN_KIND, stored_recipe, terrain_steps

if TYPE_CHECKING:
    from ...core.recipe import Recipe
    from .properties import Settings
    from .world import World

__all__ = [
    "SETTLEMENTS_KIND",
    "SITE_KIND",
    "MARKER_KIND",
    "SPEC_KEY",
    "WARNINGS_KEY",
    "COLOURS",
    "SettlementsAdapter",
    "settlements_of",
    "stored_spec",
    "build_steps",
    "settlement_objects",
    "settlements_files",
    "build_section",
    "settle",
    "resettle_steps",
]

SETTLEMENTS_KIND = "settlements"
SITE_KIND = "settlement_site"
MARKER_KIND = "settlement_marker"
#: On the family's root: the ``[settlements]`` table it was built from (JSON).
SPEC_KEY = "worldseed_settlements"
#: On the family's root: what the build warns of (``Settlements.warnings``), for the operator's report.
WARNINGS_KEY = "worldseed_warnings"
#: sRGB colours of the material slots (``core.settlements.MATERIALS``: walls, roof, foundation, ground, stone).
COLOURS = ((0.85, 0.80, 0.68), (0.55, 0.22, 0.16), (0.45, 0.43, 0.40), (0.62, 0.55, 0.42), (0.60, 0.58, 0.54))


def _material(slot: int) -> bpy.types.Material:
    name = f"Worldseed Settlement {core_settlements.MATERIALS[slot].title()}"
    mat = bpy.data.materials.get(name)
    if mat is None:
        mat = bpy.data.materials.new(name)
        rgba = (*COLOURS[slot], 1.0)
        mat.diffuse_color = rgba
        if mat.node_tree is None:  # Blender before 5.0 makes materials without nodes
            mat.use_nodes = True
        bsdf = mat.node_tree.nodes.get("Principled BSDF") if mat.node_tree is not None else None
        if bsdf is not None:
            bsdf.inputs["Base Color"].default_value = rgba
    return mat


def _mesh(name: str, indexed: IndexedMesh) -> bpy.types.Mesh:
    """A mesh with its material slots (only those it uses, in slot order)."""
    me = mesh_from_indexed(name, indexed)
    try:
        slots = indexed.materials if indexed.materials is not None else np.zeros(indexed.n_triangles, np.uint8)
        used = np.unique(slots)
        for i in used:
            me.materials.append(_material(int(i)))
        if len(used) > 1:
            attr = me.attributes.new("material_index", "INT", "FACE")
            bulk(attr).foreach_set("value", np.searchsorted(used, slots).astype(np.int32))
    except BaseException:
        bpy.data.meshes.remove(me)
        raise
    return me


def _object(
    name: str, data: bpy.types.Mesh | None, parent: bpy.types.Object | None, location: Sequence[float], kind: str
) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, data)
    if data is None:
        obj.empty_display_type = "PLAIN_AXES"
        obj.empty_display_size = 1.0
    obj.parent = parent
    obj.location = tuple(float(v) for v in location)
    if kind:
        obj[KIND_KEY] = kind
    return obj


def _scene_collection() -> bpy.types.Collection:
    scene = bpy.context.scene
    if scene is None:
        raise ParameterError("there is no scene to build the settlements in")
    return scene.collection


def settlements_of(terrain: bpy.types.Object) -> bpy.types.Object | None:
    """The settlements' root under ``terrain``, or None."""
    return child_of(terrain, SETTLEMENTS_KIND)


def stored_spec(root: bpy.types.Object) -> SettlementsSpec:
    """The spec the settlements' root was built from."""
    try:
        table = json.loads(root[SPEC_KEY])
    except (KeyError, ValueError):
        raise ParameterError(f"object {root.name!r} keeps no settlement settings") from None
    return core_settlements.from_dict(table)


def _site_objects(site: Site, *, prefix: str, parent: bpy.types.Object) -> list[bpy.types.Object]:
    """The objects of one site: its empty first."""
    name = f"{prefix}_{site.name}"
    head = _object(name, None, parent, (site.centre[0], site.centre[1], site.z), SITE_KIND)
    head["worldseed_site_type"] = site.kind
    objs = [head]
    for part, indexed in core_settlements.site_meshes(site).items():
        if indexed.n_triangles and part != "Buildings":  # the houses: one object each, below
            objs.append(_object(f"{name}_{part}", _mesh(f"{name}_{part}", indexed), head, (0.0, 0.0, 0.0), ""))
    origin = (site.centre[0], site.centre[1], site.z)
    for k, b in enumerate(site.buildings):  # each house its own object, its pivot at its floor's middle
        pivot = (float(b.footprint[:, 0].mean()), float(b.footprint[:, 1].mean()), b.floor)
        house = _object(
            f"{name}_House{k}",
            _mesh(f"{name}_House{k}", core_settlements.house_mesh(b, pivot)),
            head,
            [pivot[i] - origin[i] for i in range(3)],
            "",
        )
        house["worldseed_house"] = b.kind
        house["worldseed_roof"] = b.roof
        objs.append(house)
        door = _object(f"{name}_Door{k}", None, head, [b.door[i] - origin[i] for i in range(3)], MARKER_KIND)
        door["worldseed_facing"] = [float(b.facing[0]), float(b.facing[1]), 0.0]
        objs.append(door)
    for k, (x, y) in enumerate(site.gates.tolist()):
        objs.append(_object(f"{name}_Gate{k}", None, head, (x - origin[0], y - origin[1], 0.0), MARKER_KIND))
    if site.entry is not None:
        x, y = site.entry
        objs.append(_object(f"{name}_Entry", None, head, (x - origin[0], y - origin[1], 0.0), MARKER_KIND))
    if site.entrance is not None:
        x, y, z = site.entrance
        marker = _object(
            f"{name}_LevelEntrance", None, head, (x - origin[0], y - origin[1], z - origin[2]), MARKER_KIND
        )
        marker["worldseed_level"] = site.level
        objs.append(marker)
    return objs


def settlement_objects(
    built: Settlements,
    terrain: bpy.types.Object,
    *,
    spec: SettlementsSpec,
    offset: Sequence[float] = (0.0, 0.0, 0.0),
) -> bpy.types.Object:
    """The settlements as objects under ``terrain`` (in its collections), replacing an earlier
    settlements' root under it: the old objects step aside (renamed), the new are made with the
    names, then the old removed -- a failure removes the new ones and gives the old their names
    back.  Returns the new root.  ``offset``: the root's place under ``terrain`` (a tiled world's
    tile: minus the tile's centre, so the sites' world positions land where they stand)."""
    old = settlements_of(terrain)
    aside = _step_aside([old, *descendants(old)] if old is not None else [])
    root = _object(f"{terrain.name}_Settlements", None, terrain, tuple(float(v) for v in offset), SETTLEMENTS_KIND)
    objs = [root]
    try:
        root[SPEC_KEY] = json.dumps(core_settlements.to_dict(spec), sort_keys=True)
        root[WARNINGS_KEY] = built.warnings()
        for site in built.sites:
            objs += _site_objects(site, prefix=terrain.name, parent=root)
    except BaseException:
        remove_objects(objs)
        for item, name in aside:
            item.name = name
        raise
    remove_objects([obj for obj, _name in aside if isinstance(obj, bpy.types.Object)])
    collections = list(terrain.users_collection) or [_scene_collection()]
    for obj in objs:
        for coll in collections:
            coll.objects.link(obj)
    return root


def _step_aside(objs: Sequence[bpy.types.Object]) -> list[tuple[bpy.types.ID, str]]:
    """Rename objects (and the meshes only they use) out of the way of new ones of their names;
    returns ``[(item, old name)]`` to give them back."""
    aside: list[tuple[bpy.types.ID, str]] = []
    for obj in objs:
        items: list[bpy.types.ID] = [obj]
        if obj.data is not None and obj.data.users == 1:
            items.append(obj.data)
        for item in items:
            aside.append((item, item.name))
            item.name = f"worldseed_old_{len(aside)}"
    return aside


def build_steps(
    terrain: bpy.types.Object, spec: SettlementsSpec, *, recipe: Recipe | None = None
) -> Steps[bpy.types.Object]:
    """Settle ``terrain`` with ``spec`` (on): the terrain rebuilt with the pads (its layers on a worker:
    progress, Esc), then the objects (the earlier ones replaced).  ``recipe``: the terrain's new
    recipe (the Terrain panel's Update of a settled terrain), its own by default.  A terrain with no
    place for a settlement is refused before anything changes; closing early leaves the scene as it
    was.  Returns the settlements' root."""
    if root_of(terrain, TERRAIN_KIND) is not terrain:
        raise ParameterError("select a Worldseed terrain to settle")
    if not spec.enabled:
        spec = core_settlements.from_dict({**core_settlements.to_dict(spec), "enabled": True})
    recipe = core_recipe.replace(recipe if recipe is not None else stored_recipe(terrain), settlements=spec)
    # the layers first (on a worker, kept): a terrain with no place for a settlement is refused before
    # anything in the scene changes; the terrain's rebuild then reuses them
    layers = yield from terrain_layers.worker_steps(recipe)
    built = layers.settlements
    if built is None or not built.sites:
        raise ParameterError(
            "no place on this terrain takes a settlement (too steep, too wet or too close to each other): "
            "raise settlements.max_slope or lower settlements.spacing"
        )
    collection = terrain.users_collection[0] if terrain.users_collection else _scene_collection()
    # its scatter and forest on the new ground (:mod:`.follow`)
    new_terrain = yield from terrain_steps(recipe, collection=collection, replace=terrain, follow=follow_steps)
    return settlement_objects(built, new_terrain, spec=spec)


def resettle_steps(terrain: bpy.types.Object, recipe: Recipe) -> Steps[bpy.types.Object]:
    """The Terrain panel's Update of a settled ``terrain`` to ``recipe`` (its settlements on): the
    terrain rebuilt with the pads and the settlement objects on the new ground (:func:`build_steps`);
    returns the terrain's root."""
    root = yield from build_steps(terrain, recipe.settlements, recipe=recipe)
    new_terrain = root.parent
    assert new_terrain is not None  # the settlements stand on the terrain
    return new_terrain


def settlements_files(
    layers: TerrainLayers, *, name: str, blender_offset: Sequence[float] = (0.0, 0.0, 0.0)
) -> dict[str, bytes]:
    """``{"<name>_settlements.json": bytes}`` of a terrain's layers (empty without settlements), for
    a terrain standing at ``blender_offset`` (its location: the file's positions follow it)."""
    if layers.settlements is None:
        return {}
    data = core_settlements.settlements_json_bytes(layers.settlements, name=name, blender_offset=blender_offset)
    return {f"{name}_settlements.json": data}


def build_section(
    recipe: Recipe, world: World, *, scene: bpy.types.Scene, progress: Callable[[int, int, str], object] | None = None
) -> None:
    """``[settlements]`` of a world build (see :mod:`.world`): the objects of the settlements the terrain's
    layers placed (the terrain, built before, holds their pads)."""
    terrain = world.terrain
    if terrain is None or not recipe.settlements.enabled:
        return
    layers = world.layers.get(terrain.name)
    if layers is None or layers.settlements is None:
        return
    if progress is not None:
        progress(0, 1, "settlements")
    for line in layers.settlements.warnings():
        print(f"worldseed: warning: {line}", file=sys.stderr)
    settlement_objects(layers.settlements, terrain, spec=recipe.settlements)
    if progress is not None:
        progress(1, 1, "settlements")


class SettlementsAdapter(Adapter):
    """``[settlements]``: its settings from the limits table (``enabled`` aside: a recipe of the sidebar
    holds the section on while the scene has settlements), built on the active terrain."""

    key = "settlements"
    kind = SETTLEMENTS_KIND
    label = "settlements"
    update_operator = "worldseed.settlements_update"
    prefix = "settlements."
    skip = ("enabled",)

    def tables(self, scene: bpy.types.Scene) -> dict[str, Any]:
        table = self.table(self.settings(scene))
        table["enabled"] = any(o.get(KIND_KEY) == SETTLEMENTS_KIND for o in scene.objects)
        return {self.key: table}

    def stored(self, root: bpy.types.Object) -> SettlementsSpec:
        return stored_spec(root)

    def rebuild_plan(self, root: bpy.types.Object, scene: bpy.types.Scene) -> Plan:
        spec = self.spec(self.settings(scene), enabled=True)  # bad settings: raised now, before anything runs
        terrain = root.parent
        if terrain is None:
            raise ParameterError(f"{root.name!r} stands on no terrain")
        return Plan(build_steps(terrain, spec), modal=True)

    def live(self, settings: Settings) -> bool:
        return False  # a rebuild rebuilds the terrain: press Update

    def build(
        self,
        recipe: Recipe,
        world: World,
        *,
        scene: bpy.types.Scene,
        progress: Callable[[int, int, str], object] | None = None,
    ) -> None:
        build_section(recipe, world, scene=scene, progress=progress)


def settle(terrain: bpy.types.Object, spec: SettlementsSpec) -> bpy.types.Object:
    """:func:`build_steps` run to the end."""
    return drive(build_steps(terrain, spec))
