"""Blender properties generated from core's limits tables: every range, label and description written once.

A family's property group (made by its adapter, :mod:`.family`) and its
operator's redo panel both call :func:`props_from_limits`; what the sidebar
holds goes back into core as a plain table (:func:`attrs_table`, read once by
the section's own reader) and into the sidebar with :func:`apply_spec`.
Fields of kind ``custom`` (lists of points, tables of constants) have no
generic widget: their family gives them one.
"""

import dataclasses
import os

import bpy

from ...core.spec import float32_decimal

__all__ = ["prop_for", "props_from_limits", "apply_spec", "attrs_table", "blend_path", "SHOWN_KINDS", "RELATIVE"]

#: Limit kinds that become a property here.
SHOWN_KINDS = ("int", "float", "choice", "bool", "text", "name", "range", "vector", "colour")
_NAME_LENGTH = 48
#: Blender 4.5 on warns (a RuntimeWarning) when a path property without this option is set to '//...'.
RELATIVE = {"options": {"PATH_SUPPORTS_BLEND_RELATIVE"}} if bpy.app.version >= (4, 5, 0) else {}


def _ui(limit, update):
    kw = {"name": limit.label, "description": limit.description}
    if update is not None:
        kw["update"] = update
    if limit.soft:
        kw["soft_min"], kw["soft_max"] = limit.soft
    return kw


def prop_for(limit, default, *, update=None):
    """The ``bpy.props`` definition of one field, from its :class:`core.spec.Limit` and default value."""
    kind, bounds = limit.kind, limit.bounds
    kw = _ui(limit, update)
    if kind == "int":
        return bpy.props.IntProperty(default=default, min=bounds[0], max=bounds[1], **kw)
    if kind == "float":
        subtype = "DISTANCE" if limit.unit == "m" else "NONE"
        return bpy.props.FloatProperty(default=default, min=bounds[0], max=bounds[1], subtype=subtype, **kw)
    if kind == "choice":
        return bpy.props.EnumProperty(items=[tuple(i) for i in limit.items], default=default, **kw)
    if kind == "bool":
        return bpy.props.BoolProperty(default=default, **kw)
    if kind == "name":
        return bpy.props.StringProperty(default=default, maxlen=_NAME_LENGTH, **kw)
    if kind == "text":
        return bpy.props.StringProperty(default=default, maxlen=bounds[1], **kw)
    if kind in ("range", "vector", "colour"):
        extra = {"subtype": "COLOR"} if kind == "colour" else {"subtype": "XYZ"} if kind == "vector" else {}
        if kind == "vector" and limit.unit == "m":
            extra["unit"] = "LENGTH"
        return bpy.props.FloatVectorProperty(
            default=tuple(default), size=len(default), min=bounds[0], max=bounds[1], **extra, **kw
        )
    raise TypeError(f"a {kind!r} field has no generic property; its family must define one")


def props_from_limits(limits, defaults, *, names=None, update=None):
    """``{name: bpy.props...}`` for the fields ``names`` (default: every field of a shown kind).

    ``defaults`` is a spec instance whose values become the properties' defaults.
    """
    if names is None:
        names = [n for n, limit in limits.items() if limit.kind in SHOWN_KINDS]
    return {name: prop_for(limits[name], getattr(defaults, name), update=update) for name in names}


def apply_spec(props, spec, *, names, keep=()):
    """Copy the fields ``names`` of ``spec`` into ``props`` (a property group or operator), except ``keep``."""
    values = dataclasses.asdict(spec) if dataclasses.is_dataclass(spec) else spec
    for name in names:
        if name not in keep:
            setattr(props, name, values[name])


def _plain(value, limit):
    """A property's value as a recipe holds it: float32 as the decimal it stands for, arrays as tuples."""
    if isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return float32_decimal(value)
    if limit is not None and limit.kind in ("range", "vector", "colour"):
        return tuple(float32_decimal(v) for v in value)
    return value


def attrs_table(limits, obj, names):
    """``{name: value}`` of the attributes ``names`` of ``obj`` (a property group or an operator) as plain
    recipe values, not yet checked: the section's reader (``from_dict``) checks them, once."""
    return {name: _plain(getattr(obj, name), limits.get(name)) for name in names}


def blend_path(path):
    """The file a sidebar path names, made absolute (recipes and Unity have no .blend to be relative to):
    ``//`` starts at the saved .blend's folder (``bpy.path.abspath``), and so does a plain relative path
    once the .blend is saved (before, it stays relative: the working directory); an absolute or empty
    path as it is.  A recipe's relative paths start at the recipe's folder, the sidebar's at the .blend's."""
    path = bpy.path.abspath(path) if path else path
    if path and not os.path.isabs(path) and bpy.data.filepath:
        path = os.path.join(os.path.dirname(bpy.path.abspath(bpy.data.filepath)), path)
    return path
