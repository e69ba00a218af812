"""Read-only look-ups of Worldseed objects: what a panel may ask without changing anything.

Worldseed tags what it builds with a custom property ``worldseed_kind``
(``"terrain"``, ``"tree"``, ``"scatter"``, ``"scatter_instance"``, ``"level"``,
``"level_kit"``, ``"level_marker"``); built-in props carry ``worldseed_prop``.  A level root
holds its 2-D map as an image in ``worldseed_level_map``.
"""

from ...core import levels as core_levels

KIND_KEY = "worldseed_kind"
PROP_KEY = "worldseed_prop"
TERRAIN_KIND, TREE_KIND, SCATTER_KIND, INSTANCE_KIND = "terrain", "tree", "scatter", "scatter_instance"
LEVEL_KIND, LEVEL_KIT_KIND, LEVEL_MARKER_KIND = "level", "level_kit", "level_marker"
#: On a level root: the image of its 2-D map (an ID property, so the image follows renames).
LEVEL_MAP_KEY = "worldseed_level_map"

__all__ = [
    "KIND_KEY",
    "PROP_KEY",
    "is_terrain",
    "is_tree",
    "is_scatter",
    "terrain_root",
    "tree_root",
    "scatter_of",
    "worldseed_roots",
    "LEVEL_KIND",
    "LEVEL_KIT_KIND",
    "LEVEL_MARKER_KIND",
    "LEVEL_MAP_KEY",
    "is_level",
    "is_level_kit",
    "level_root",
    "level_kit_of",
    "level_map",
    "LEVEL_SHOWN_FIELDS",
    "level_generator_fields",
]

#: Level settings every generator has, as the panels show them (``origin`` is the 3D cursor's).
LEVEL_SHOWN_FIELDS = ("generator", "name", "width", "height", "cell_size", "wall_height", "ceiling", "autotile")


def _kind(obj):
    return obj.get(KIND_KEY) if obj is not None else None


def is_terrain(obj):
    """True for the root object of a Worldseed terrain."""
    return _kind(obj) == TERRAIN_KIND


def is_tree(obj):
    """True for the root object of a Worldseed tree."""
    return _kind(obj) == TREE_KIND


def is_scatter(obj):
    """True for a Worldseed scatter (the point object whose instances are the props)."""
    return _kind(obj) == SCATTER_KIND


def is_level(obj):
    """True for the root object of a Worldseed level (its mesh, or the empty above its kit)."""
    return _kind(obj) == LEVEL_KIND


def is_level_kit(obj):
    """True for a level's kit object (points instancing the kit's modules)."""
    return _kind(obj) == LEVEL_KIT_KIND


def _root(obj, test):
    while obj is not None:
        if test(obj):
            return obj
        obj = obj.parent
    return None


def terrain_root(obj):
    """The Worldseed terrain root of ``obj`` (itself, or its LOD parent), or None."""
    return _root(obj, is_terrain)


def tree_root(obj):
    """The Worldseed tree root of ``obj`` (itself or its parent), or None."""
    return _root(obj, is_tree)


def scatter_of(obj):
    """The scatter ``obj`` is (or the first one under the terrain ``obj`` belongs to), or None."""
    if is_scatter(obj):
        return obj
    root = terrain_root(obj)
    if root is None:
        return None
    return next((c for c in root.children if is_scatter(c)), None)


def worldseed_roots(scene):
    """Top-level Worldseed objects of ``scene`` (anything a Worldseed build tagged, built-in props aside)."""
    return [
        o
        for o in scene.objects
        if o.get(KIND_KEY) and not o.get(PROP_KEY) and (o.parent is None or not o.parent.get(KIND_KEY))
    ]


def level_root(obj):
    """The Worldseed level root of ``obj`` (itself, or the level above its kit or marker), or None."""
    return _root(obj, is_level)


def level_kit_of(obj):
    """The kit object of the level ``obj`` belongs to (None for a level built as a mesh)."""
    if is_level_kit(obj):
        return obj
    root = level_root(obj)
    if root is None:
        return None
    return next((c for c in root.children if is_level_kit(c)), None)


def level_map(obj):
    """The 2-D map image of the level ``obj`` belongs to, or None."""
    root = level_root(obj)
    return root.get(LEVEL_MAP_KEY) if root is not None else None


def level_generator_fields(generator):
    """The settings of level ``generator`` beyond the common ones, in the order of ``core.levels.LIMITS``."""
    own = set(core_levels.GENERATOR_KEYS.get(generator, ()))
    return tuple(n for n in core_levels.LIMITS if n in own)
