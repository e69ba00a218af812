"""The artist's height curve, edited with Blender's own curve widget.

Blender has no stand-alone curve property, so the curve lives in a Float
Curve node inside a small hidden node group that the scene's terrain settings
point to; the panel draws it with ``template_curve_mapping``. Only its control
points travel on, into the recipe's ``terrain.curve``.
"""
import bpy

NODE_GROUP = ".Worldseed Height Curve"
IDENTITY = ((0.0, 0.0), (1.0, 1.0))


def curve_node(settings):
    """The Float Curve node of the settings' height curve, or None if there is none yet."""
    tree = settings.height_curve
    if tree is None:
        return None
    return next((n for n in tree.nodes if n.bl_idname == "ShaderNodeFloatCurve"), None)


def ensure_curve(settings):
    """Create the height-curve node group for ``settings`` if it has none; returns the node."""
    node = curve_node(settings)
    if node is not None:
        return node
    tree = bpy.data.node_groups.new(NODE_GROUP, "ShaderNodeTree")
    tree.use_fake_user = True
    node = tree.nodes.new("ShaderNodeFloatCurve")
    settings.height_curve = tree
    return node


def curve_points(settings):
    """The control points as ``((x, y), ...)``; the identity curve when there is no widget."""
    node = curve_node(settings)
    if node is None:
        return IDENTITY
    return tuple((round(p.location[0], 6), round(p.location[1], 6)) for p in node.mapping.curves[0].points)


def set_curve_points(settings, points):
    """Replace the control points (creating the widget when a non-identity curve arrives)."""
    points = tuple(tuple(p) for p in points)
    node = curve_node(settings)
    if node is None:
        if points == IDENTITY:
            return
        node = ensure_curve(settings)
    mapping = node.mapping
    curve = mapping.curves[0]
    while len(curve.points) > 2:
        curve.points.remove(curve.points[1])
    curve.points[0].location = points[0]
    curve.points[1].location = points[-1]
    for x, y in points[1:-1]:
        curve.points.new(x, y)
    mapping.update()


class WORLDSEED_OT_height_curve_add(bpy.types.Operator):
    """Add a height curve to reshape the terrain's heights"""
    bl_idname = "worldseed.height_curve_add"
    bl_label = "Add Height Curve"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    def execute(self, context):
        ensure_curve(context.scene.worldseed.terrain)
        return {"FINISHED"}


class WORLDSEED_OT_height_curve_reset(bpy.types.Operator):
    """Reset the height curve to a straight line"""
    bl_idname = "worldseed.height_curve_reset"
    bl_label = "Reset Height Curve"
    bl_options = {"REGISTER", "UNDO", "INTERNAL"}

    def execute(self, context):
        set_curve_points(context.scene.worldseed.terrain, IDENTITY)
        return {"FINISHED"}


classes = (WORLDSEED_OT_height_curve_add, WORLDSEED_OT_height_curve_reset)
