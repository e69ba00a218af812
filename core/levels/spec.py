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
    wfc_tileset = "dungeon"          # a preset stem (presets/wfc/), or "my_tiles.toml" beside the recipe
    autotile = "wang16"              # the Tiled map's auto-tiles (every generator): "blob" or "wang16"

    [[level]]
    name = "Caverns"
    generator = "wfc_overlapping"    # Wave Function Collapse on N x N patterns of a sample
    sample = "rooms"                 # a preset stem (presets/wfc/samples/), or "cave.png" / "cave.txt"
    n = 3
    classes = [["0", "wall"], ["1", "floor"]]
    connected = true
    connect_points = [[3, 3], [20, 12]]  # [x, y] cells, row 0 north: walkable and linked
    counts = { 2 = [1, 4] }              # 1 to 4 cells of sample value 2 (a tiled level: tile names)

``autotile`` is the auto-tile set of the level's Tiled map ("blob" or "wang16"), for every generator;
``wfc_tileset`` is the WFC tileset of ``wfc_tiled`` and ``wfc``.  ``wfc`` follows the sample's style
when ``sample`` is given, else the tileset's tiles.  Recipes written before the two were split name
both ``tileset``: :func:`from_dict` reads an auto-tile set there as ``autotile`` and anything else as
``wfc_tileset`` (and :func:`to_dict` writes the new keys).
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

from ..errors import ParameterError, short
from ..spec import check_value, closest, from_table, to_table
from . import _wfc, _wfc_files
from ._fields import (
    AUTOTILE_SETS,
    COMMON_KEYS,
    GENERATOR_KEYS,
    GENERATORS,
    LIMITS,
    SEED,
    WFC_GENERATORS,
    LevelSpec,
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
    "OLD_KEYS",
]

#: Keys of older recipes that :func:`from_dict` still reads, and what they become.
OLD_KEYS = {
    "tileset": "read as `autotile` when it names an auto-tile set (`blob`, `wang16`), else as `wfc_tileset`",
}


def check_spec(spec: LevelSpec, *, prefix: str = "level.", base: str | None = None) -> None:
    """Refuse impossible settings of ``spec`` before any work, the message naming ``<prefix><setting>``.

    A WFC spec's ``wfc_tileset`` or ``sample`` is found (relative paths against ``base``, or the current
    directory), read and checked; its wave must fit in memory.
    """
    if spec.generator in WFC_GENERATORS:
        _wfc.check_wfc(spec, base=base, prefix=prefix)
        return
    _, check = GENERATOR_FUNCTIONS[spec.generator]
    try:
        check(spec.width, spec.height, **generator_settings(spec))
    except ParameterError as err:
        text = str(err)
        raise ParameterError(text if text.startswith(prefix) else f"{prefix}{text}") from None


def from_dict(data: Mapping[str, Any], *, prefix: str = "level.", base: str | None = None) -> LevelSpec:
    """A validated :class:`~.spec.LevelSpec` from a dict: unknown keys and keys of another
    generator refused, impossible settings refused before any work.

    ``base`` (the recipe's folder) turns a relative ``wfc_tileset`` / ``sample`` file path into an
    absolute one, so the spec names the same file wherever it is used later (a preset name stays).

    >>> from_dict({"generator": "maze", "algorithm": "wilson"}).algorithm
    'wilson'
    >>> try:
    ...     from_dict({"generator": "maze", "fill": 0.5})
    ... except ParameterError as err:
    ...     print(err)
    level.fill is a setting of the cave, rooms_caves generators, not of generator 'maze'
    """
    data = _split_tileset(data, prefix=prefix)
    _check_unknown_keys(data, prefix)
    spec = from_table(LevelSpec, LIMITS, data, prefix=prefix)
    check_generator_keys(data, spec, prefix=prefix)
    check_spec(spec, prefix=prefix, base=base)
    if base is not None and spec.generator in WFC_GENERATORS:
        spec = dataclasses.replace(spec, **_wfc_files.absolute_paths(spec, base))
    return spec


def _check_unknown_keys(data: Mapping[str, Any], prefix: str) -> None:
    """Refuse keys that no generator has, naming them with the closest key and the keys of this
    level's generator (not every generator's: a ``bsp`` level's typo lists the ``bsp`` settings).
    A bad table or generator is left to ``from_table``, which names it."""
    if not isinstance(data, dict):
        return
    generator = data.get("generator", LevelSpec.generator)
    if not isinstance(generator, str) or generator not in GENERATOR_KEYS:
        check_value(generator, LIMITS["generator"], name=f"{prefix}generator")  # names the generators
        return
    known = {f.name for f in dataclasses.fields(LevelSpec)}
    unknown = [key for key in data if key not in known]
    if not unknown:
        return
    own = list(COMMON_KEYS) + list(GENERATOR_KEYS[generator])
    names = ", ".join(
        f"{prefix}{short(key, 40) if not isinstance(key, str) or len(key) > 40 else key}" for key in unknown[:8]
    )
    more = f" and {len(unknown) - 8} more" if len(unknown) > 8 else ""
    hints = [f"{short(key, 40)} -> {close!r}" for key in unknown[:8] for close in [closest(key, own)] if close]
    raise ParameterError(
        f"{names}{more} {'is not a setting' if len(unknown) == 1 else 'are not settings'} of generator "
        f"{generator!r}"
        + (f" (did you mean {', '.join(hints)}?)" if hints else "")
        + f"; its settings: {', '.join(own)}"
    )


def _split_tileset(data: Mapping[str, Any], *, prefix: str) -> Mapping[str, Any]:
    """``data`` with the old key ``tileset`` as ``autotile`` (an auto-tile set) or ``wfc_tileset`` (anything
    else); refused when the new key is given too, or when a WFC tileset is named for a grid generator.

    >>> _split_tileset({"generator": "wfc_tiled", "tileset": "pipes"}, prefix="level.")
    {'generator': 'wfc_tiled', 'wfc_tileset': 'pipes'}
    >>> _split_tileset({"tileset": "wang16"}, prefix="level.")
    {'autotile': 'wang16'}
    """
    if not isinstance(data, dict) or "tileset" not in data:
        return data
    value = data["tileset"]
    new = "autotile" if isinstance(value, str) and value in AUTOTILE_SETS else "wfc_tileset"
    if new in data:
        raise ParameterError(
            f"{prefix}tileset is the old name of {prefix}autotile (the Tiled map's auto-tiles) and "
            f"{prefix}wfc_tileset (the WFC tileset); give only {prefix}{new}"
        )
    generator = data.get("generator", LevelSpec.generator)
    if new == "wfc_tileset" and new not in GENERATOR_KEYS.get(generator, (new,)):
        raise ParameterError(
            f"{prefix}tileset must be one of {', '.join(map(repr, AUTOTILE_SETS))} (the Tiled map's auto-tiles, "
            f"now {prefix}autotile) for generator {short(generator)}, got {short(value)}; a WFC tileset is "
            f"{prefix}wfc_tileset, a setting of the wfc_tiled, wfc generators"
        )
    return {(new if k == "tileset" else k): v for k, v in data.items()}


def to_dict(spec: LevelSpec) -> dict[str, Any]:
    """The common keys and the generator's own keys of ``spec``, as plain values.

    >>> to_dict(LevelSpec(generator="wfc_overlapping", classes=(("0", "wall"),)))["classes"]
    [['0', 'wall']]
    """
    table = to_table(spec)
    keep = set(COMMON_KEYS) | set(GENERATOR_KEYS[spec.generator])
    return {k: v for k, v in table.items() if k in keep}
