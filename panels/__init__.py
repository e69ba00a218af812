"""Sidebar panels (View3D > N panel, tab "Worldseed"): drawing only."""
from . import export, terrain

classes = (*terrain.classes, *export.classes)
