"""Blender operators, one file per family: thin, they gather settings, call the bridge and report.

The glue that turns core's arrays into Blender data lives in :mod:`.bridge`,
which never imports the operators.
"""
from . import export, scatter, terrain, trees

#: Operator classes per family, in the order of ``core.recipe.SECTIONS`` (export last).
FAMILIES = {"terrain": terrain, "trees": trees, "scatter": scatter, "export": export}

classes = tuple(cls for module in FAMILIES.values() for cls in module.classes)
