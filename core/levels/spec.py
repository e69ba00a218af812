"""``[[level]]``: one grid level as recipes write it, and the one table of its limits.

Every level names its ``generator`` and takes the keys of that generator (a key of
another generator is refused, naming the generators it belongs to)::

    [[level]]
    name = "Crypt"
    generator = "bsp"
    width = 64
    height = 48
    cell_size = 2.0
    seed = 7
    room_max = 12

    [[level]]
    name = "Grotto"
    generator = "cave"
    fill = 0.48
    connect = "largest"

    [[level]]
    name = "Keep"
    generator = "wfc_tiled"          # Wave Function Collapse on a tileset
    tileset = "dungeon"              # a preset stem (presets/wfc/), or "my_tiles.toml" beside the recipe

    [[level]]
    name = "Caverns"
    generator = "wfc_overlapping"    # Wave Function Collapse on N x N patterns of a sample
    sample = "rooms"                 # a preset stem (presets/wfc/samples/), or "cave.png" / "cave.txt"
    n = 3
    classes = [["0", "wall"], ["1", "floor"]]
    connected = true
    connect_points = [[3, 3], [20, 12]]  # [x, y] cells, row 0 north: walkable and linked
    counts = { 2 = [1, 4] }              # 1 to 4 cells of sample value 2 (a tiled level: tile names)

``tileset`` means two things: for the grid generators it is the auto-tile set of the
Tiled map ("blob" or "wang16"); for ``wfc_tiled`` (and ``wfc``) it is the WFC tileset
(such a level's auto-tiles are "blob", see :func:`autotile_set`).  ``wfc`` is tiled
when ``tileset`` names a WFC tileset and overlapping when ``sample`` is given.
``classes`` (overlapping) maps sample values to level classes: pairs ``[value, class]``
(or a table ``{ 0 = "wall" }``) with ``value`` an integer of a grid sample or ``"#rrggbb"``
of an image sample; the spec keeps it as a sorted tuple of ``(value, class)`` string pairs.
``connect_points`` (every WFC generator) are ``[x, y]`` cells of the level grid (x the column, y
the row, row 0 north) that must be walkable and in the one region ``connected = true`` asks for
(a region of the level's finite grid: with ``periodic`` too, no path crosses its edges).
``counts`` (every WFC generator) bounds how many cells show a tile (a base tile name of the tileset:
its rotated and mirrored variants count) or a sample value (as in ``classes``): a table
``{name = [min, max]}`` (``[min]`` or ``max = -1``: no upper bound) or a list of ``[name, min, max]``;
the spec keeps a sorted tuple of ``(name, min, max)``, ``max`` -1 for no bound.
"""

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import ParameterError
from ..spec import from_table, to_table
from . import _wfc, _wfc_files
from ._fields import (
    AUTOTILE_LIMIT,
    AUTOTILE_SETS,
    COMMON_KEYS,
    GENERATOR_KEYS,
    GENERATORS,
    LIMITS,
    SEED,
    WFC_GENERATORS,
    LevelSpec,
    autotile_set,
    check_generator_keys,
    generator_settings,
)
from ._generate import GENERATOR_FUNCTIONS

__all__ = [
    "LevelSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "check_spec",
    "GENERATORS",
    "GENERATOR_KEYS",
    "COMMON_KEYS",
    "check_generator_keys",
    "generator_settings",
    "SEED",
    "WFC_GENERATORS",
    "AUTOTILE_SETS",
    "AUTOTILE_LIMIT",
    "autotile_set",
]


def check_spec(spec: LevelSpec, *, prefix: str = "level.", base: str | None = None) -> None:
    """Refuse impossible settings of ``spec`` before any work, the message naming ``<prefix><setting>``.

    A WFC spec's tileset or sample is found (relative paths against ``base``, or the current
    directory), read and checked; its wave must fit in memory.
    """
    if spec.generator in WFC_GENERATORS:
        _wfc.check_wfc(spec, base=base, prefix=prefix)
        return
    if spec.tileset not in AUTOTILE_SETS:
        raise ParameterError(
            f"{prefix}tileset must be one of {', '.join(map(repr, AUTOTILE_SETS))} for generator "
            f"{spec.generator!r}, got {spec.tileset!r}"
        )
    _, check = GENERATOR_FUNCTIONS[spec.generator]
    try:
        check(spec.width, spec.height, **generator_settings(spec))
    except ParameterError as err:
        text = str(err)
        raise ParameterError(text if text.startswith(prefix) else f"{prefix}{text}") from None


def from_dict(data: Mapping[str, Any], *, prefix: str = "level.", base: str | None = None) -> LevelSpec:
    """A validated :class:`~.spec.LevelSpec` from a dict: unknown keys and keys of another
    generator refused, impossible settings refused before any work.

    ``base`` (the recipe's folder) turns a relative ``tileset`` / ``sample`` file path into an
    absolute one, so the spec names the same file wherever it is used later (a preset name stays).

    >>> from_dict({"generator": "maze", "algorithm": "wilson"}).algorithm
    'wilson'
    >>> try:
    ...     from_dict({"generator": "maze", "fill": 0.5})
    ... except ParameterError as err:
    ...     print(err)
    level.fill is a setting of the cave, rooms_caves generators, not of generator 'maze'
    """
    spec = from_table(LevelSpec, LIMITS, data, prefix=prefix)
    check_generator_keys(data, spec, prefix=prefix)
    check_spec(spec, prefix=prefix, base=base)
    if base is not None and spec.generator in WFC_GENERATORS:
        spec = dataclasses.replace(spec, **_wfc_files.absolute_paths(spec, base))
    return spec


def to_dict(spec: LevelSpec) -> dict[str, Any]:
    """The common keys and the generator's own keys of ``spec``, as plain values.

    >>> to_dict(LevelSpec(generator="wfc_overlapping", classes=(("0", "wall"),)))["classes"]
    [['0', 'wall']]
    """
    table = to_table(spec)
    keep = set(COMMON_KEYS) | set(GENERATOR_KEYS[spec.generator])
    return {k: v for k, v in table.items() if k in keep}
