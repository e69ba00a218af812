"""Blender operators: thin wrappers that gather a recipe and call :mod:`.build`."""
from . import curve, export, presets, scatter, terrain, tree

classes = (*terrain.classes, *curve.classes, *presets.classes, *tree.classes, *scatter.classes,
           *export.classes)
