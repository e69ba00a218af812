"""Read-only look-ups of Worldseed objects: what a panel may ask without changing anything.

Worldseed tags what it builds with a custom property ``worldseed_kind``
(``"terrain"``, ``"tree"``, ``"scatter"``, ``"scatter_instance"``); built-in
props carry ``worldseed_prop``.
"""

KIND_KEY = "worldseed_kind"
PROP_KEY = "worldseed_prop"
TERRAIN_KIND, TREE_KIND, SCATTER_KIND, INSTANCE_KIND = "terrain", "tree", "scatter", "scatter_instance"

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
]


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
