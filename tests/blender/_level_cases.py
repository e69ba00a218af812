"""Shared cases of the Blender level tests (``test_levels*.py``): small levels, a kit, the scene's
state, the Levels panel's settings and what its draw shows."""

import bpy

from ._panel_cases import draw, shown

SMALL = dict(generator="cave", width=24, height=20, seed=3)
TILES = dict(generator="wfc_tiled", width=10, height=8, seed=4)

#: One tile and no rule or socket: no two cells may stand side by side.
IMPOSSIBLE = '[[tile]]\nname = "lonely"\nsymmetry = "X"\n'


def level_settings(**values):
    """The Levels panel's settings, auto update off, with ``values`` set."""
    settings = bpy.context.scene.worldseed.level
    settings.auto_update = False
    for k, v in values.items():
        setattr(settings, k, v)
    return settings


def scene_state():
    """The names of every object, mesh, image and node group: what a refused build leaves as it was."""
    return (
        sorted(o.name for o in bpy.data.objects),
        sorted(m.name for m in bpy.data.meshes),
        sorted(i.name for i in bpy.data.images),
        sorted(g.name for g in bpy.data.node_groups),
    )


def kit_collection(roles=("floor", "wall", "Outer Corner", "inner_corner", "wall-end", "door", "pillar")):
    """A collection ``Kit`` of one tiny mesh object per role (each its own mesh)."""
    coll = bpy.data.collections.new("Kit")
    for k, role in enumerate(roles):
        me = bpy.data.meshes.new(role)
        me.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, k * 0.1)], [], [(0, 1, 2)])
        coll.objects.link(bpy.data.objects.new(role, me))
    return coll


def shown_props(**values):
    """The names of the properties the Levels panel draws once ``values`` are set (and its labels, as
    ``"label: <text>"``)."""
    level_settings(**values)
    return shown(draw(bpy.types.WORLDSEED_PT_level))
