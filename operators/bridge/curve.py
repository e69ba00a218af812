"""The artist's height curve, edited with Blender's own curve widget.

Blender has no stand-alone curve property, so the curve lives in a Float
Curve node inside a small hidden node group that the scene's terrain settings
point to; the panel draws it with ``template_curve_mapping``. Only its control
points travel on, into the recipe's ``terrain.curve``.
"""

from collections.abc import Iterable, Sequence
from typing import cast

import bpy

from ...core.errors import RecipeError, short
from ...core.terrain.spec import IDENTITY_CURVE as IDENTITY
from .properties import Settings

NODE_GROUP = ".Worldseed Height Curve"


def curve_node(settings: Settings) -> bpy.types.ShaderNodeFloatCurve | None:
    """The Float Curve node of the settings' height curve, or None if there is none yet."""
    tree = settings.height_curve
    if tree is None:
        return None
    return next((n for n in tree.nodes if n.bl_idname == "ShaderNodeFloatCurve"), None)


def ensure_curve(settings: Settings) -> bpy.types.ShaderNodeFloatCurve:
    """Create the height-curve node group for ``settings`` if it has none; returns the node."""
    node = curve_node(settings)
    if node is not None:
        return node
    tree = bpy.data.node_groups.new(NODE_GROUP, "ShaderNodeTree")
    tree.use_fake_user = True
    made = cast("bpy.types.ShaderNodeFloatCurve", tree.nodes.new("ShaderNodeFloatCurve"))
    settings.height_curve = tree
    return made


def curve_to_text(points: Iterable[Sequence[float]]) -> str:
    """``((x, y), ...)`` as ``"x,y; x,y"`` (how the redo panel carries the height curve)."""
    return "; ".join(f"{x:.6g},{y:.6g}" for x, y in points)


def curve_from_text(text: str) -> list[list[float]]:
    """Inverse of :func:`curve_to_text`; returns a list of [x, y] (validated by the recipe)."""
    points = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        try:
            x, y = (float(v) for v in part.split(","))
        except ValueError:
            raise RecipeError(f"terrain.curve must be 'x,y; x,y; ...' pairs of numbers, got {short(text)}") from None
        points.append([x, y])
    return points


def curve_points(settings: Settings) -> tuple[tuple[float, float], ...]:
    """The control points as ``((x, y), ...)``; the identity curve when there is no widget."""
    node = curve_node(settings)
    if node is None:
        return IDENTITY
    mapping = cast("bpy.types.CurveMapping", node.mapping)  # a Float Curve node's: never None
    return tuple((round(p.location[0], 6), round(p.location[1], 6)) for p in mapping.curves[0].points)


def set_curve_points(settings: Settings, points: Iterable[Sequence[float]]) -> None:
    """Replace the control points (creating the widget when a non-identity curve arrives)."""
    points = tuple(tuple(p) for p in points)
    node = curve_node(settings)
    if node is None:
        if points == IDENTITY:
            return
        node = ensure_curve(settings)
    mapping = cast("bpy.types.CurveMapping", node.mapping)  # a Float Curve node's: never None
    curve = mapping.curves[0]
    while len(curve.points) > 2:
        curve.points.remove(curve.points[1])
    curve.points[0].location = points[0]
    curve.points[1].location = points[-1]
    for x, y in points[1:-1]:
        curve.points.new(x, y)
    mapping.update()
