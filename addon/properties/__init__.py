"""Property groups: derived from the adapters (``operators.bridge.sections.ADAPTERS``), one per recipe
section, each generated from its section's limits table; one scene pointer, ``scene.worldseed``, holds
one group per section (``scene.worldseed.terrain``, ``.trees``, ``.scatter``, ``.level``, ``.world``,
``.export``).

Nothing here is written per family: a new section's settings appear with its adapter.  Changing a
setting of a family with Auto Update calls :func:`..live.updater` of its key (of the family a section
follows, for a section built with another's objects).
"""

__all__ = ["GROUPS", "WorldseedSettings", "classes"]


import bpy

from ...operators.bridge.sections import ADAPTERS
from .. import live

#: ``{section key: (property group classes, children first)}`` in the order of the recipe registry.
GROUPS = {
    a.key: a.settings_classes(update=live.updater(a.key) if a.kind else live.updater(a.follows) if a.follows else None)
    for a in ADAPTERS
}

WorldseedSettings = type(
    "WorldseedSettings",
    (bpy.types.PropertyGroup,),
    {
        "__annotations__": {key: bpy.props.PointerProperty(type=groups[-1]) for key, groups in GROUPS.items()},
        "__doc__": "Every section's settings: scene.worldseed.terrain, .trees, .scatter, .level, .world, .export",
    },
)

classes = (*(cls for groups in GROUPS.values() for cls in groups), WorldseedSettings)  # children first
