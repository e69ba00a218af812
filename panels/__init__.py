"""Sidebar panels (View3D > N panel, tab "Worldseed"): drawing only."""
from . import export, terrain, trees

classes = (*terrain.classes, *trees.classes, *export.classes)
