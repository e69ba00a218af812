"""Sidebar panels (View3D > N panel, tab "Worldseed"), one file per family (``panels/<section>.py``):
drawing only.

Registration (``addon/``) finds the files by the names of the recipe sections and orders them as the
registry does.  Panels never import core and never compute while drawing: they read the settings,
cached results (rule errors) and the read-only look-ups their settings offer (``settings.active_root``).
:data:`MENUS` lists the entries Worldseed adds to Blender's menus (``(menu, draw function)``).
"""

__all__ = ["MENUS"]  # the panel files are found by the recipe sections' keys (addon.PANELS)


from .export import menu_export

MENUS = (("TOPBAR_MT_file_export", menu_export),)
