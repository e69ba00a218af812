"""Trees from rules: L-systems, a 3-D turtle, tube meshes with leaves, and LODs.

The family's spec (:class:`TreeSpec`, its limits table and the species that
ship as data) is in :mod:`.spec`; the stages are public modules of their own
(:mod:`.lsystem`, :mod:`.turtle`, :mod:`.skeleton`, :mod:`.tree_mesh`) and
:func:`grow_tree` runs them in order.
"""

from ._grow import MAX_TREE_MODULES, Tree, grow_skeleton, grow_tree
from .spec import (
    LEAF_SHAPES,
    LIMITS,
    SPECIES_DIR,
    TreeSpec,
    constants_from_text,
    constants_to_text,
    dumps_spec,
    from_dict,
    loads_spec,
    rule_error,
    species_info,
    species_names,
    species_spec,
    to_dict,
)

__all__ = [
    "TreeSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "Tree",
    "grow_tree",
    "grow_skeleton",
    "MAX_TREE_MODULES",
    "SPECIES_DIR",
    "LEAF_SHAPES",
    "species_names",
    "species_info",
    "species_spec",
    "dumps_spec",
    "loads_spec",
    "constants_to_text",
    "constants_from_text",
    "rule_error",
]
