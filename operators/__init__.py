"""Blender operators, one file per family (``operators/<family>.py``): thin, they gather settings through
the family's adapter, call the bridge and report.

The files are found by the names of the adapters (``.bridge.sections.ADAPTERS``), in that order. The
glue that turns core's arrays into Blender data lives in :mod:`.bridge`, which never imports the
operators.
"""

__all__ = ["FAMILIES", "classes"]


from .bridge.sections import ADAPTERS
from .common import family_modules

#: Operator files per family, in the order of the recipe registry (export last).
FAMILIES = family_modules(__name__, [a.name for a in ADAPTERS])

classes = tuple(cls for module in FAMILIES.values() for cls in module.classes)
