"""Worldseed core: pure numpy generators (no bpy, no mathutils, no scipy).

Every module here imports the same way inside Blender and in plain pytest,
because all imports are relative.
"""
