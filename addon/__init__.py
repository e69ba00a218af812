"""Registration, the top floor: property groups, preferences, operators, panels, in that order.

Nothing else imports this package (the extension root's ``__init__`` hands
on :func:`register` and :func:`unregister`, the headless entry calls
:mod:`.batch`).  The families come in the order of ``core.recipe.SECTIONS`` (their adapters,
``operators.bridge.sections.ADAPTERS``): a family's panel sits in the sidebar where its section
stands in a recipe.
"""

__all__ = ["register", "unregister", "all_classes", "PANELS"]


import bpy

from .. import operators, panels
from ..operators.bridge.sections import ADAPTERS
from ..operators.common import family_modules
from . import live, preferences, properties

#: Panel files per family (``panels/<family>.py``), in the order of the recipe registry.
PANELS = family_modules(panels.__name__, [a.name for a in ADAPTERS])


def _ordered_panels():
    """Panel classes with ``bl_order`` set from the recipe registry (sub-panels follow their parents)."""
    out = []
    for order, module in enumerate(PANELS.values()):
        for cls in module.classes:
            if issubclass(cls, bpy.types.Panel) and not getattr(cls, "bl_parent_id", ""):
                cls.bl_order = order
            out.append(cls)
    return tuple(out)


def all_classes():
    """Every class to register, children before parents, in registration order."""
    return (*properties.classes, *preferences.classes, *operators.classes, *_ordered_panels())


def register():
    for cls in all_classes():
        bpy.utils.register_class(cls)
    bpy.types.Scene.worldseed = bpy.props.PointerProperty(type=properties.WorldseedSettings)
    live.register()
    for menu, draw in panels.MENUS:
        getattr(bpy.types, menu).append(draw)


def unregister():
    for menu, draw in reversed(panels.MENUS):
        getattr(bpy.types, menu).remove(draw)
    live.unregister()
    del bpy.types.Scene.worldseed
    for cls in reversed(all_classes()):
        bpy.utils.unregister_class(cls)
