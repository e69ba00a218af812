"""Level kits: a level's modules instanced from a kit collection, made real, and shown as objects to exporters."""

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import cast

import bpy
import numpy as np
from mathutils import Matrix

from ....core import levels as core_levels
from ....core import placement as core_placement
from ....core.errors import ParameterError
from ....core.levels import Level, LevelSpec
from .. import instancing
from ..mesh import remove_objects
from ._objects import KIND_KEY, LEVEL_KIT_KIND, LEVEL_MODULE_KIND, level_kit_of, level_root

__all__ = [
    "KIT_ROLES",
    "KIT_FALLBACK",
    "KIT_ROLES_KEY",
    "KIT_MODULES_KEY",
    "KIT_OBJECT_NAME",
    "kit_modules",
    "kit_object",
    "make_kit_real",
    "remove_kit",
    "kits_as_objects",
]

#: Kit module roles an artist names objects after (``core.levels.KIT_ROLES``).
KIT_ROLES = core_levels.KIT_ROLES
#: A role the kit has no module for uses another's: a thin wall between two floors the wall's, a
#: junction of thin walls the pillar's.
KIT_FALLBACK = {"wall_double": "wall", "junction": "pillar"}
KIT_ROLES_KEY = "worldseed_kit_roles"  # on the kit object: role names in index order
KIT_MODULES_KEY = "worldseed_kit_modules"  # on the kit object: module object names in index order


def _role_key(name: str) -> str:
    """``"Outer Corner.001"`` -> ``"outer_corner"``: names compared without case, separators or Blender's suffix."""
    base = re.sub(r"\.\d{3,}$", "", name)
    return re.sub(r"[\s_\-]+", "_", base.strip()).lower()


def kit_modules(
    collection: bpy.types.Collection | None, roles: Sequence[str], needed: Iterable[str] | None = None
) -> list[bpy.types.Object | None]:
    """``[object per role]`` from a kit collection whose objects are named by role (``floor``, ``wall``,
    ``outer corner`` ...; case, ``_``/``-``/spaces and ``.001`` ignored).  A role in ``needed``
    (default: all) without an object takes its stand-in's (:data:`KIT_FALLBACK`: a thin wall's is the
    wall's, a junction's the pillar's); one still without is refused, naming what the collection lacks."""
    if collection is None:
        raise ParameterError("kit: choose a collection of modules named by role: " + ", ".join(KIT_ROLES))
    found = {}
    for obj in sorted(collection.all_objects, key=lambda o: o.name):
        key = _role_key(obj.name)
        if key in roles and key not in found and obj.parent is None and obj.type in ("MESH", "EMPTY"):
            found[key] = obj
    for role, stand_in in KIT_FALLBACK.items():
        if role not in found and stand_in in found:
            found[role] = found[stand_in]
    needed = roles if needed is None else needed
    missing = [r.replace("_", " ") for r in needed if r not in found]
    if missing:
        raise ParameterError(
            f"kit collection {collection.name!r} has no module named {', '.join(missing)} "
            f"(name one object per role: {', '.join(r.replace('_', ' ') for r in KIT_ROLES)})"
        )
    return [found.get(r) for r in roles]


def kit_object(
    level: Level, spec: LevelSpec, kit: bpy.types.Collection | None, name: str, made: list[bpy.types.Object]
) -> bpy.types.Object:
    placed = core_levels.kit_placements(level, cell_size=spec.cell_size, origin=(0.0, 0.0, 0.0))
    roles = np.asarray(placed.role, np.int32)
    used = [placed.roles[i] for i in np.flatnonzero(np.bincount(roles, minlength=len(placed.roles)))]
    modules = kit_modules(kit, placed.roles, needed=used)
    # roles the level does not use still need an object in the node tree (indices stay roles)
    stand_in = next(m for m in modules if m is not None)
    filled = [m if m is not None else stand_in for m in modules]
    me = bpy.data.meshes.new(f"{name}_Kit")
    obj = bpy.data.objects.new(f"{name}_Kit", me)
    made.append(obj)
    obj[KIND_KEY] = LEVEL_KIT_KIND
    obj[KIT_ROLES_KEY] = list(placed.roles)
    obj[KIT_MODULES_KEY] = [m.name for m in filled]
    tree = instancing.instancer_tree(f"Worldseed Kit ({name})", [_module_geometry(m) for m in filled])
    try:
        cast(bpy.types.NodesModifier, obj.modifiers.new("Worldseed Kit", "NODES")).node_group = tree
        instancing.write_points(
            me, placed.positions, instancing.yaw_quaternions(placed.yaw), np.ones(len(roles), np.float32), roles
        )
    except BaseException:
        bpy.data.node_groups.remove(tree)
        raise
    return obj


def _module_geometry(module: bpy.types.Object) -> bpy.types.Object:
    """The object whose geometry stands for a module: itself, or an empty's first mesh child."""
    if module.type == "MESH":
        return module
    meshes = sorted((c for c in module.children if c.type == "MESH"), key=lambda o: o.name)
    return meshes[0] if meshes else module


def _kit_instance_objects(kit_obj: bpy.types.Object) -> list[bpy.types.Object]:
    names = list(kit_obj.get(KIT_MODULES_KEY, ()))
    missing = [n for n in names if bpy.data.objects.get(n) is None]
    if missing:
        raise ParameterError(
            f"kit of {kit_obj.name!r}: module object(s) {', '.join(map(repr, missing))} no longer exist; "
            "update the level with a kit collection"
        )
    return [_module_geometry(bpy.data.objects[n]) for n in names]


#: The name of kit module ``index`` (its point's index) of role ``role`` in level ``level`` as an object.
KIT_OBJECT_NAME = "{level}_{role}_{index:05d}"


def make_kit_real(
    kit_obj: bpy.types.Object, *, collection: bpy.types.Collection, name_format: str = KIT_OBJECT_NAME
) -> list[bpy.types.Object]:
    """Real objects for every module of a level's kit object, sharing the modules' meshes, children of
    the level root at the places the instances stand, linked to ``collection``; returns them in point
    order.  Nothing is left behind when it fails."""
    modules = _kit_instance_objects(kit_obj)
    root = kit_obj.parent
    pos, rot, scale, which = instancing.read_points(kit_obj)
    local = np.zeros((len(pos), 4, 4))
    local[:, :3, :3] = core_placement.quaternion_matrices(rot) * scale[:, None, None]
    local[:, :3, 3] = pos
    local[:, 3, 3] = 1.0
    mats = np.asarray(kit_obj.matrix_local, np.float64) @ local  # relative to the root
    level = root.name if root is not None else kit_obj.name
    made: list[bpy.types.Object] = []
    try:
        # made in name order: Blender then appends each new object in constant time
        roles = list(kit_obj[KIT_ROLES_KEY])
        order = sorted(range(len(pos)), key=lambda i: (roles[which[i]], i))
        slots: list[bpy.types.Object | None] = [None] * len(pos)
        for i in order:
            made_obj = bpy.data.objects.new(
                name_format.format(level=level, role=roles[which[i]], index=i), modules[which[i]].data
            )
            made.append(made_obj)
            slots[i] = made_obj
        out = cast("list[bpy.types.Object]", slots)  # every point made one
        for i, obj in enumerate(out):
            obj.parent = root
            obj.matrix_basis = Matrix(mats[i].tolist())
            obj[KIND_KEY] = LEVEL_MODULE_KIND
        for obj in out:
            collection.objects.link(obj)
    except BaseException:
        remove_objects(made)
        raise
    return out


def remove_kit(kit_obj: bpy.types.Object) -> None:
    """Remove a level's kit object, its point mesh and its node tree (the modules stay)."""
    tree = next((cast(bpy.types.NodesModifier, m).node_group for m in kit_obj.modifiers if m.type == "NODES"), None)
    remove_objects([kit_obj])
    if tree is not None and tree.users == 0:
        bpy.data.node_groups.remove(tree)


@contextlib.contextmanager
def kits_as_objects(
    roots: Iterable[bpy.types.Object], collection: bpy.types.Collection
) -> Iterator[list[bpy.types.Object]]:
    """For the duration, every level kit below ``roots`` as real objects (children of their level, linked
    to ``collection``) and the kit objects themselves out of the hierarchy, so an exporter walking the
    roots' children writes the modules; afterwards everything is as it was."""
    kits = [k for r in roots for k in [level_kit_of(r)] if k is not None and level_root(r) == r]
    made, moved = [], []
    try:
        for kit in kits:
            made.extend(make_kit_real(kit, collection=collection))
            moved.append((kit, kit.parent, kit.matrix_parent_inverse.copy(), kit.matrix_basis.copy()))
            kit.parent = None
        if made:
            cast(bpy.types.ViewLayer, bpy.context.view_layer).update()
        yield made
    finally:
        remove_objects(made)
        for kit, parent, inverse, basis in moved:
            kit.parent = parent
            kit.matrix_parent_inverse = inverse
            kit.matrix_basis = basis
