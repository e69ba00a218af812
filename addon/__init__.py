"""Registration: property groups, preferences, operators, panels, in that order."""
import bpy

from . import preferences, properties
from .. import operators, panels

classes = (*properties.classes, *preferences.classes, *operators.classes, *panels.classes)
_register, _unregister = bpy.utils.register_classes_factory(classes)


def register():
    _register()
    bpy.types.Scene.worldseed = bpy.props.PointerProperty(type=properties.WorldseedSettings)


def unregister():
    del bpy.types.Scene.worldseed
    _unregister()
