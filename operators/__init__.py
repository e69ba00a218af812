"""Blender operators, one file per family (``operators/<section>.py``): thin, they gather settings, call
the bridge and report.

The files are found by the names of the recipe sections (``core.recipe.SECTIONS``), in that order.
The glue that turns core's arrays into Blender data lives in :mod:`.bridge`, which never imports the
operators.
"""

__all__ = ["FAMILIES", "classes"]


from ..core.recipe import SECTION_KEYS
from .common import family_modules

#: Operator files per family, in the order of the recipe registry (export last).
FAMILIES = family_modules(__name__, SECTION_KEYS)

classes = tuple(cls for module in FAMILIES.values() for cls in module.classes)
