"""Sidebar panels (View3D > N panel, tab "Worldseed"): drawing only."""
from . import export, scatter, terrain, trees

classes = (*terrain.classes, *trees.classes, *scatter.classes, *export.classes)
