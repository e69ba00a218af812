"""Sidebar panels (View3D > N panel, tab "Worldseed"), one file per family (``panels/<section>.py``):
drawing only.

Registration (``addon/``) finds the files by the names of the recipe sections and orders them as the
registry does.  Panels never import core and never compute while drawing: they read the settings,
cached results (rule errors) and the read-only look-ups of ``operators.bridge.query``.
"""

__all__ = []  # the panel files are found by the recipe sections' keys (addon.PANELS)
