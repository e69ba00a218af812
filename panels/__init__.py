"""Sidebar panels (View3D > N panel, tab "Worldseed"), one file per family: drawing only.

Panels never import core and never compute while drawing: they read the
settings, cached results (rule errors) and the read-only look-ups of
``operators.bridge.query``.
"""
from . import export, scatter, terrain, trees

#: Panel files per family; registration orders them by ``core.recipe.SECTIONS``.
FAMILIES = {"terrain": terrain, "trees": trees, "scatter": scatter, "export": export}

classes = tuple(cls for module in FAMILIES.values() for cls in module.classes)
