"""The fields of ``[[level]]``: :class:`LevelSpec`, its limits table and each generator's keys.

The engines read their ranges and defaults here; :mod:`.spec` (the section's reader and writer, which
checks a spec with the engines) re-exports every name.  The recipe keys are documented in :mod:`.spec`.
"""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..spec import choice, custom, flag, integer, number, object_name, text, vector
from ..wfc import check_classes, check_connect_points, check_counts, check_fixed

__all__ = [
    "LevelSpec",
    "LIMITS",
    "GENERATORS",
    "GENERATOR_KEYS",
    "COMMON_KEYS",
    "check_generator_keys",
    "generator_settings",
    "SEED",
    "WFC_GENERATORS",
    "AUTOTILE_SETS",
]

SEED = (0, 2**31 - 1)
GENERATORS = ("bsp", "cave", "maze", "walk", "rooms_caves", "wfc_tiled", "wfc_overlapping", "wfc")
#: The Wave Function Collapse generators (core.wfc).
WFC_GENERATORS = ("wfc_tiled", "wfc_overlapping", "wfc")
#: The auto-tile sets of the Tiled map (``autotile``, every generator).
AUTOTILE_SETS = ("blob", "wang16")
#: Keys every level has, whatever its generator.
COMMON_KEYS = (
    "name",
    "generator",
    "width",
    "height",
    "cell_size",
    "wall_height",
    "ceiling",
    "origin",
    "seed",
    "autotile",
)
_BSP = ("min_leaf", "max_leaf", "room_min", "room_max", "padding", "corridor_width", "loop_fraction")
_CONTENT = ("enemy_density", "loot_chance")
_CAVE = ("fill", "steps")
_WFC = ("periodic", "attempts", "backtrack_limit", "connected", "connect_points", "counts", "fixed")
_TILES = ("wfc_tileset",)
_SAMPLE = ("n", "symmetry", "periodic_input", "ground", "classes")
#: The generator keyword settings of each generator (the keys a ``[[level]]`` of it may have beyond COMMON_KEYS).
GENERATOR_KEYS = {
    "bsp": _BSP + _CONTENT,
    "cave": _CAVE + ("connect", "min_region") + _CONTENT,
    "maze": ("algorithm", "loops", "rooms"),
    "walk": ("floor_fraction", "walkers", "bias") + _CONTENT,
    "rooms_caves": _BSP + _CAVE + _CONTENT,
    "wfc_tiled": _TILES + _WFC,
    "wfc_overlapping": ("sample",) + _SAMPLE + _WFC,
    "wfc": _TILES + ("sample",) + _SAMPLE + _WFC,
}

#: Every field of :class:`LevelSpec`: kind, range, label and description, written once.
LIMITS = {
    "name": object_name("Name", "Level name (object, Tiled map and file names)"),
    "generator": choice(
        (
            ("bsp", "BSP Dungeon", "Rooms in a binary space partition, joined by corridors"),
            ("cave", "Cave", "Cellular-automaton caves, connected by tunnels"),
            ("maze", "Maze", "A maze of one-cell passages"),
            ("walk", "Random Walk", "Drunkard's walk: walkers dig until a floor fraction is reached"),
            ("rooms_caves", "Rooms + Caves", "BSP rooms shaped by the cave automaton"),
            ("wfc_tiled", "WFC (tiles)", "Wave Function Collapse: a tileset's tiles, every neighbour allowed"),
            ("wfc_overlapping", "WFC (sample)", "Wave Function Collapse: a level in the style of a sample"),
            ("wfc", "WFC", "Wave Function Collapse: a sample's style when one is named, else a tileset's tiles"),
        ),
        "Generator",
        "How the level is laid out",
    ),
    "width": integer(
        (1, 4096), "Width", "Cells along X (a maze: maze cells; its grid is 2 x width + 1)", soft=(4, 512)
    ),
    "height": integer(
        (1, 4096), "Height", "Cells along Y (a maze: maze cells; its grid is 2 x height + 1)", soft=(4, 512)
    ),
    "cell_size": number((0.01, 1000.0), "Cell Size", "Side of one cell", unit="m", soft=(0.25, 16.0)),
    "wall_height": number((0.01, 1000.0), "Wall Height", "Height of the walls", unit="m", soft=(0.25, 16.0)),
    "ceiling": flag("Ceiling", "Close the level with a ceiling over the walkable cells"),
    "origin": vector((-1.0e7, 1.0e7), "Origin", "Position of the level's south-west corner", size=3, unit="m"),
    "seed": integer(SEED, "Seed", "Random seed: the same seed and settings give the same level"),
    "autotile": choice(
        (
            ("blob", "Blob (47 tiles)", "8-neighbour auto-tiles; a corner counts only with both its edges"),
            ("wang16", "4-neighbour (16 tiles)", "4-neighbour auto-tiles"),
        ),
        "Auto-tiles",
        "Auto-tile set of the level's Tiled map (every generator)",
    ),
    # BSP dungeon (and rooms + caves)
    "min_leaf": integer((3, 4096), "Min Leaf", "Smallest side of a BSP leaf", unit="", soft=(4, 64)),
    "max_leaf": integer((3, 4096), "Max Leaf", "Leaves larger than this are always split", soft=(6, 128)),
    "room_min": integer((2, 4096), "Min Room", "Smallest room side", soft=(2, 32)),
    "room_max": integer((1, 4096), "Max Room", "Largest room side", soft=(3, 64)),
    "padding": integer((0, 64), "Padding", "Cells between a room and its leaf's edge", soft=(0, 8)),
    "corridor_width": integer((1, 3), "Corridor Width", "Width of the corridors in cells"),
    "loop_fraction": number((0.0, 1.0), "Loops", "Extra connections between neighbouring rooms, as a fraction"),
    "enemy_density": number((0.0, 1.0), "Enemy Density", "Enemies per floor cell of a room", soft=(0.0, 0.1)),
    "loot_chance": number((0.0, 1.0), "Loot Chance", "Chance that a room holds loot"),
    # caves
    "fill": number(
        (0.0, 1.0), "Fill", "Fraction of cells that start as wall (0.40 to 0.55 makes caves)", soft=(0.0, 0.99)
    ),
    "steps": integer((0, 32), "Steps", "Smoothing steps of the cave automaton (4 to 6 is usual)"),
    "connect": choice(
        (
            ("tunnels", "Tunnels", "Join every region with the shortest tunnels"),
            ("largest", "Largest", "Keep only the largest region"),
        ),
        "Connect",
        "How the cave's separate regions become one",
    ),
    "min_region": integer((0, 16_777_216), "Min Region", "Regions with fewer cells are filled in", soft=(0, 1000)),
    # mazes
    "algorithm": choice(
        (
            ("dfs", "Backtracker", "Recursive backtracker: long winding passages, few dead ends"),
            ("prim", "Prim", "Randomized Prim: many short dead ends"),
            ("kruskal", "Kruskal", "Randomized Kruskal (union-find)"),
            ("wilson", "Wilson", "Wilson's algorithm: a uniform spanning tree"),
        ),
        "Algorithm",
        "Maze algorithm",
    ),
    "loops": integer(
        (0, 16_777_216), "Loops", "Walls removed after the perfect maze: exactly this many cycles", soft=(0, 1000)
    ),
    "rooms": integer((0, 256), "Rooms", "Open rooms cut into the maze", soft=(0, 32)),
    # random walk
    "floor_fraction": number((0.01, 0.95), "Floor Fraction", "Dig until this fraction of the cells is floor"),
    "walkers": integer((1, 256), "Walkers", "Walkers digging at once", soft=(1, 32)),
    "bias": number(
        (0.0, 1.0),
        "Step Bias",
        "Chance that a step keeps the walker's direction (0: a pure drunkard's walk; below 1)",
        soft=(0.0, 0.99),
    ),
    # Wave Function Collapse
    "wfc_tileset": text(
        1024,
        "WFC Tileset",
        "WFC (tiles): a tileset .toml file (relative to the recipe) or a preset name (dungeon, pipes, roads)",
        min_length=1,
    ),
    "sample": text(
        1024,
        "Sample",
        "WFC (sample): a sample grid (.txt of digits) or image (.png), relative to the recipe, or a preset "
        "sample name (caves, rooms, hills ...); empty: caves (WFC: empty means the tileset's tiles)",
    ),
    "n": integer((2, 3), "Pattern Size", "Side N of the N x N patterns taken from the sample"),
    "symmetry": integer((1, 8), "Symmetry", "Rotations and mirrors of each sample pattern used (1: as drawn, 8: all)"),
    "periodic": flag("Periodic", "The output wraps round: its east edge meets its west, its south its north"),
    "periodic_input": flag("Periodic Sample", "Patterns wrap round the sample's edges"),
    "ground": flag("Ground", "Pin the sample's bottom row of patterns to the output's bottom row"),
    "attempts": integer(
        (1, 1000),
        "Attempts",
        "Restarts (each from its own seeded stream) before a contradiction is reported; a solved grid whose "
        "largest walkable region is too small for a level also counts as a failed attempt",
        soft=(1, 50),
    ),
    "backtrack_limit": integer(
        (0, 1_000_000), "Backtrack Limit", "Backtracks per attempt before it restarts", soft=(0, 10_000)
    ),
    "connected": flag(
        "Connected",
        "Every walkable cell in one 4-connected region of the level (no path across its edges, also when "
        "periodic); off: faster, but the walkable cells may form several regions, the spawn and exit in the "
        "largest",
    ),
    "classes": custom(
        lambda value, name: check_classes(value, name=name),
        "Classes",
        'Sample value -> level class ("wall", "floor", "corridor", "door"); default: the most common '
        "value on the sample's border is wall, every other value floor",
    ),
    "connect_points": custom(
        lambda value, name: check_connect_points(value, name=name),
        "Connect Points",
        "Cells [x, y] (x the column, y the row, row 0 north) that must be walkable and linked to each other "
        "(needs connected)",
    ),
    "fixed": custom(
        lambda value, name: check_fixed(value, name=name),
        "Fixed Cells",
        "Painted cells [x, y, tile] (x the column, y the row, row 0 north) the level must show: WFC tiles: a base "
        "tile (any of its turns) or a variant name ('bend 1'); WFC sample: a sample value (12 or #rrggbb)",
    ),
    "counts": custom(
        lambda value, name: check_counts(value, name=name),
        "Counts",
        "How many cells may show a tile (WFC tiles: a base tile name, its turned variants counting) or a sample "
        "value (WFC sample: 12 or #rrggbb): a table {name = [min, max]}; max -1 or left out: no bound",
    ),
}


@dataclass(frozen=True)
class LevelSpec:
    """``[[level]]``: one grid level (every field optional; ranges in :data:`LIMITS`).

    ``width`` x ``height`` cells of ``cell_size`` metres (a maze: maze cells), walls
    ``wall_height`` metres, the south-west corner at ``origin``.  The generator's own
    keys are listed in :data:`GENERATOR_KEYS`; the others are ignored by it.  ``autotile`` is the
    auto-tile set of the level's Tiled map (every generator).  The WFC generators
    (:data:`WFC_GENERATORS`) read ``wfc_tileset`` (a WFC tileset) or ``sample`` as files or preset names
    (see :mod:`core.levels._wfc`); ``classes`` is a sorted tuple of ``(value, class)`` text pairs
    (:func:`core.wfc.check_classes`), written to recipes as a list of pairs; ``connect_points`` a tuple of
    ``(x, y)`` (:func:`core.wfc.check_connect_points`) and ``counts`` a sorted tuple of ``(name, min, max)``
    with ``max`` -1 for no bound (:func:`core.wfc.check_counts`), written as lists.

    >>> LevelSpec(generator="cave").generator
    'cave'
    """

    name: str = "Level"
    generator: str = "bsp"
    width: int = 64
    height: int = 64
    cell_size: float = 2.0
    wall_height: float = 3.0
    ceiling: bool = False
    origin: tuple[float, float, float] = (0.0, 0.0, 0.0)
    seed: int = 0
    autotile: str = "blob"
    min_leaf: int = 8
    max_leaf: int = 20
    room_min: int = 4
    room_max: int = 12
    padding: int = 1
    corridor_width: int = 1
    loop_fraction: float = 0.1
    enemy_density: float = 0.02
    loot_chance: float = 0.3
    fill: float = 0.45
    steps: int = 5
    connect: str = "tunnels"
    min_region: int = 12
    algorithm: str = "dfs"
    loops: int = 0
    rooms: int = 0
    floor_fraction: float = 0.4
    walkers: int = 1
    bias: float = 0.0
    wfc_tileset: str = "dungeon"
    sample: str = ""
    n: int = 3
    symmetry: int = 8
    periodic: bool = False
    periodic_input: bool = True
    ground: bool = False
    attempts: int = 10
    backtrack_limit: int = 1000
    connected: bool = True
    classes: tuple[tuple[str, str], ...] = ()
    connect_points: tuple[tuple[int, int], ...] = ()
    fixed: tuple[tuple[int, int, str], ...] = ()
    counts: tuple[tuple[str, int, int], ...] = ()


assert (
    set(COMMON_KEYS).union(*GENERATOR_KEYS.values()) == {f.name for f in dataclasses.fields(LevelSpec)} == set(LIMITS)
)


def _owners(key: str) -> list[str]:
    return [g for g in GENERATORS if key in GENERATOR_KEYS[g]]


def check_generator_keys(data: Mapping[str, Any], spec: LevelSpec, *, prefix: str = "level.") -> None:
    """Refuse keys of ``data`` that belong to another generator than ``spec.generator``, naming them.

    >>> try:
    ...     check_generator_keys({"fill": 0.5}, LevelSpec(generator="maze"))
    ... except ParameterError as err:
    ...     print(err)
    level.fill is a setting of the cave, rooms_caves generators, not of generator 'maze'
    """
    allowed = set(COMMON_KEYS) | set(GENERATOR_KEYS[spec.generator])
    for key in data:
        if key not in allowed:
            owners = ", ".join(_owners(key))
            raise ParameterError(
                f"{prefix}{key} is a setting of the {owners} generator{'s' if ',' in owners else ''}, "
                f"not of generator {spec.generator!r}"
            )


def generator_settings(spec: LevelSpec) -> dict[str, Any]:
    """``{key: value}`` of the generator's own keyword settings (what the generator function takes)."""
    return {k: getattr(spec, k) for k in GENERATOR_KEYS[spec.generator]}
