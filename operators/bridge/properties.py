"""Blender properties generated from core's limits tables: every range, label and description written once.

A family's property group (made by its adapter, :mod:`.family`) and its
operator's redo panel both call :func:`props_from_limits`; what the sidebar
holds goes back into core as a plain table (:func:`attrs_table`, read once by
the section's own reader) and into the sidebar with :func:`apply_spec`.
Fields of kind ``custom`` (lists of points, tables of constants) have no
generic widget: their family gives them one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import bpy

from ...core.spec import Limit, float32_decimal

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "prop_for",
    "props_from_limits",
    "apply_spec",
    "attrs_table",
    "blend_path",
    "SHOWN_KINDS",
    "RELATIVE",
    "Settings",
    "Update",
    "PropertyDef",
    "scene_settings",
]

#: A property group made from a limits table (``scene.worldseed.<key>``, a layer of a list) or an operator
#: holding the same properties: its attributes are the table's fields, made at registration, so a type
#: checker sees them as ``Any``.
Settings: TypeAlias = Any
#: What ``bpy.props.IntProperty(...)`` and the other property functions return: a deferred definition that
#: registration turns into a property (fake-bpy-module types the calls as returning None).
PropertyDef: TypeAlias = Any
#: A property's ``update`` callback, ``update(settings, context)``.
Update: TypeAlias = Callable[[Any, bpy.types.Context], None]

#: Limit kinds that become a property here.
SHOWN_KINDS = ("int", "float", "choice", "bool", "text", "name", "range", "vector", "colour")
_NAME_LENGTH = 48
#: Blender 4.5 on warns (a RuntimeWarning) when a path property without this option is set to '//...'.
RELATIVE: dict[str, Any] = {"options": {"PATH_SUPPORTS_BLEND_RELATIVE"}} if bpy.app.version >= (4, 5, 0) else {}


def _ui(limit: Limit, update: Update | None) -> dict[str, Any]:
    kw: dict[str, Any] = {"name": limit.label, "description": limit.description}
    if update is not None:
        kw["update"] = update
    if limit.soft:
        kw["soft_min"], kw["soft_max"] = limit.soft
    return kw


def prop_for(limit: Limit, default: Any, *, update: Update | None = None) -> PropertyDef:
    """The ``bpy.props`` definition of one field, from its :class:`core.spec.Limit` and default value."""
    kind, bounds = limit.kind, limit.bounds
    kw = _ui(limit, update)
    if kind == "int":
        return bpy.props.IntProperty(default=default, min=bounds[0], max=bounds[1], **kw)
    if kind == "float":
        subtype: Literal["DISTANCE", "NONE"] = "DISTANCE" if limit.unit == "m" else "NONE"
        return bpy.props.FloatProperty(default=default, min=bounds[0], max=bounds[1], subtype=subtype, **kw)
    if kind == "choice":
        return bpy.props.EnumProperty(items=list(limit.items), default=default, **kw)
    if kind == "bool":
        return bpy.props.BoolProperty(default=default, **kw)
    if kind == "name":
        return bpy.props.StringProperty(default=default, maxlen=_NAME_LENGTH, **kw)
    if kind == "text":
        return bpy.props.StringProperty(default=default, maxlen=bounds[1], **kw)
    if kind in ("range", "vector", "colour"):
        extra: dict[str, Any] = (
            {"subtype": "COLOR"} if kind == "colour" else {"subtype": "XYZ"} if kind == "vector" else {}
        )
        if kind == "vector" and limit.unit == "m":
            extra["unit"] = "LENGTH"
        return bpy.props.FloatVectorProperty(
            default=tuple(default), size=len(default), min=bounds[0], max=bounds[1], **extra, **kw
        )
    raise TypeError(f"a {kind!r} field has no generic property; its family must define one")


def props_from_limits(
    limits: Mapping[str, Limit], defaults: object, *, names: Iterable[str] | None = None, update: Update | None = None
) -> dict[str, PropertyDef]:
    """``{name: bpy.props...}`` for the fields ``names`` (default: every field of a shown kind).

    ``defaults`` is a spec instance whose values become the properties' defaults.
    """
    if names is None:
        names = [n for n, limit in limits.items() if limit.kind in SHOWN_KINDS]
    return {name: prop_for(limits[name], getattr(defaults, name), update=update) for name in names}


def apply_spec(
    props: Settings, spec: DataclassInstance | Mapping[str, Any], *, names: Iterable[str], keep: Iterable[str] = ()
) -> None:
    """Copy the fields ``names`` of ``spec`` into ``props`` (a property group or operator), except ``keep``."""
    values = spec if isinstance(spec, Mapping) else dataclasses.asdict(spec)
    for name in names:
        if name not in keep:
            setattr(props, name, values[name])


def _plain(value: Any, limit: Limit | None) -> Any:
    """A property's value as a recipe holds it: float32 as the decimal it stands for, arrays as tuples."""
    if isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return float32_decimal(value)
    if limit is not None and limit.kind in ("range", "vector", "colour"):
        return tuple(float32_decimal(v) for v in value)
    return value


def attrs_table(limits: Mapping[str, Limit], obj: object, names: Iterable[str]) -> dict[str, Any]:
    """``{name: value}`` of the attributes ``names`` of ``obj`` (a property group or an operator) as plain
    recipe values, not yet checked: the section's reader (``from_dict``) checks them, once."""
    return {name: _plain(getattr(obj, name), limits.get(name)) for name in names}


def scene_settings(scene: bpy.types.Scene) -> Settings:
    """``scene.worldseed``: the extension's settings on a scene (one property group per section, made by
    the adapters and registered on ``bpy.types.Scene`` by ``addon/properties``, so no stub knows it)."""
    return scene.worldseed  # type: ignore[attr-defined]


def blend_path(path: str) -> str:
    """The file a sidebar path names, made absolute (recipes and Unity have no .blend to be relative to):
    ``//`` starts at the saved .blend's folder (``bpy.path.abspath``), and so does a plain relative path
    once the .blend is saved (before, it stays relative: the working directory); an absolute or empty
    path as it is.  A recipe's relative paths start at the recipe's folder, the sidebar's at the .blend's."""
    path = bpy.path.abspath(path) if path else path
    if path and not os.path.isabs(path) and bpy.data.filepath:
        path = os.path.join(os.path.dirname(bpy.path.abspath(bpy.data.filepath)), path)
    return path
