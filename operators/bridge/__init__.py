"""The bridge: core's arrays into Blender data in bulk, and Blender data out to files.

One module per generator family (:mod:`.terrain`, :mod:`.trees`, :mod:`.scatter`), or a package split
by job reached through its face (:mod:`.levels`); one adapter per recipe section (:mod:`.family`, the
registry :mod:`.sections`: settings, specs, tags, look-ups, rebuilds); and the shared pieces:
:mod:`.mesh` (meshes through the attribute API), :mod:`.materials`, :mod:`.properties` (Blender
properties generated from core's limits tables), :mod:`.export`, :mod:`.placements`, :mod:`.render`,
:mod:`.presets`, :mod:`.curve`, :mod:`.world` (the one pipeline the sidebar and the headless run
share) and :mod:`.query` (read-only look-ups by tag).  The bridge never imports the operators; the
operators and the headless entry call it.
"""

__all__ = []  # the bridge's modules are imported by name (operators.bridge.terrain ...)
