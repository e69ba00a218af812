"""Worldseed core: pure numpy generators (no bpy, no mathutils, no scipy).

Every module here imports the same way inside Blender and in plain pytest,
because all imports are relative.
"""

#: Nothing is taken from ``core`` itself: each family is a package (``core.terrain``, ``core.levels`` ...)
#: and each shared piece a module (``core.mesh``, ``core.recipe`` ...).
__all__ = []
