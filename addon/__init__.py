"""Registration: property groups, preferences, operators, panels, in that order.

The class list is gathered at registration time, not import time, because
operators and panels import ``addon.properties`` and ``addon.presets``.
"""
import bpy

from . import preferences, properties


def all_classes():
    """Every class to register, children before parents, in registration order."""
    from .. import operators, panels
    return (*properties.classes, *preferences.classes, *operators.classes, *panels.classes)


def register():
    for cls in all_classes():
        bpy.utils.register_class(cls)
    bpy.types.Scene.worldseed = bpy.props.PointerProperty(type=properties.WorldseedSettings)


def unregister():
    del bpy.types.Scene.worldseed
    for cls in reversed(all_classes()):
        bpy.utils.unregister_class(cls)
