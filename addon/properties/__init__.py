"""Property groups, one file per family (``properties/<section>.py``), generated from core's limits
tables; one scene pointer, ``scene.worldseed``, holds one group per family.

Each file defines ``classes`` (children first) and ``SETTINGS``, the group ``scene.worldseed.<section>``
points to; the files are found by the names of the recipe sections (``core.recipe.SECTIONS``).
"""

__all__ = ["FAMILIES", "WorldseedSettings", "classes"]


import bpy

from ...core.recipe import SECTION_KEYS
from ...operators.common import family_modules

#: Property-group files per family, in the order of the recipe registry.
FAMILIES = family_modules(__name__, SECTION_KEYS)

WorldseedSettings = type(
    "WorldseedSettings",
    (bpy.types.PropertyGroup,),
    {
        "__annotations__": {key: bpy.props.PointerProperty(type=module.SETTINGS) for key, module in FAMILIES.items()},
        "__doc__": "Every family's settings: scene.worldseed.terrain, .trees, .scatter, .export ...",
    },
)

classes = (*(cls for module in FAMILIES.values() for cls in module.classes), WorldseedSettings)  # children first
