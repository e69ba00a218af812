"""Wave Function Collapse: one solver, the models as data builders.

:func:`solve` is the one solver (wave of cells x patterns, lowest-entropy observation,
arc-consistent propagation, bounded backtracking, seeded restarts); the simple tiled model
(:func:`load_tileset`, :func:`tiled`: TOML tilesets in ``presets/wfc/`` with symmetry classes
X, I, L, T, \\, F and neighbour rules or edge sockets) and the overlapping model
(:func:`overlapping`: N x N patterns of a sample grid or PNG) hand it their weights and
compatibility tables; :func:`tiled3d` stacks a tileset with up/down sockets in 3-D.  Global
constraints (:class:`Connected`, :class:`Counts`) plug into the solver; their settings as a recipe
writes them are read by :func:`check_connect_points`, :func:`check_counts`, :func:`check_fixed`
and, for a sample's values as level classes (:data:`CLASS_NAMES`), :func:`check_classes`.  Every model has a step
generator (``*_steps``) for progress bars.  A failure raises :class:`Contradiction` naming the
cell, the attempts and the constraint that could not hold.
"""

from ._constraints import Connected, Counts
from ._contract import Contradiction, Unsatisfied
from ._keys import MAX_COUNT, MAX_POINTS, check_classes, check_connect_points, check_counts, check_fixed
from ._overlapping import OverlappingResult, overlapping, overlapping_steps
from ._patterns import extract_patterns, overlap_compatible, read_sample
from ._png import read_png
from ._solver import MAX_CELLS, SolveResult, solve, solve_seconds, solve_steps
from ._tiled import TiledResult, tiled, tiled_steps
from ._tiled3d import Tiled3DResult, compatible3d, tiled3d, tiled3d_steps
from ._tileset import CLASS_NAMES, SYMMETRIES, Tileset, load_tileset

__all__ = [
    "Contradiction",
    "Unsatisfied",
    "solve",
    "solve_steps",
    "MAX_CELLS",
    "solve_seconds",
    "SolveResult",
    "tiled",
    "tiled_steps",
    "TiledResult",
    "tiled3d",
    "tiled3d_steps",
    "Tiled3DResult",
    "compatible3d",
    "load_tileset",
    "Tileset",
    "SYMMETRIES",
    "overlapping",
    "overlapping_steps",
    "OverlappingResult",
    "extract_patterns",
    "overlap_compatible",
    "read_sample",
    "read_png",
    "Connected",
    "Counts",
    "CLASS_NAMES",
    "check_classes",
    "check_connect_points",
    "check_fixed",
    "check_counts",
    "MAX_POINTS",
    "MAX_COUNT",
]
