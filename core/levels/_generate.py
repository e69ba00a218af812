"""From a :class:`~.spec.LevelSpec` to a :class:`~._level.Level`: the one dispatch over the generators."""

from __future__ import annotations

import dataclasses
import math

from ..errors import ParameterError, short
from ..spec import check_value, closest, from_table
from ..steps import drive
from . import _bsp, _cave, _maze, _rooms_caves, _walk, _wfc, _wfc_files
from .spec import (
    AUTOTILE_SETS,
    COMMON_KEYS,
    GENERATOR_KEYS,
    LIMITS,
    WFC_GENERATORS,
    LevelSpec,
    check_generator_keys,
    generator_settings,
)

__all__ = [
    "GENERATOR_FUNCTIONS",
    "generate",
    "generate_steps",
    "check_spec",
    "from_dict",
    "grid_shape",
    "estimate_markers",
    "ESTIMATE_CELLS",
]

#: Most cells of the small level of the same settings that :func:`estimate_markers` makes.
ESTIMATE_CELLS = 256 * 256

#: generator name -> (function, settings check) of the grid generators; each function is
#: ``f(width, height, *, seed, **settings)`` and each check ``check_settings(width, height, **settings)``
#: raises a ParameterError naming the setting.  The WFC generators (``WFC_GENERATORS``) go through
#: :mod:`._wfc` instead: they read files.
GENERATOR_FUNCTIONS = {
    "bsp": (_bsp.bsp_dungeon, _bsp.check_settings),
    "cave": (_cave.cave, _cave.check_settings),
    "maze": (_maze.maze, _maze.check_settings),
    "walk": (_walk.random_walk, _walk.check_settings),
    "rooms_caves": (_rooms_caves.rooms_caves, _rooms_caves.check_settings),
}


def check_spec(spec, *, prefix="level.", base=None):
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


def generate_steps(spec, *, base=None):
    """The :class:`Level` that ``spec`` describes, as a step generator (see :mod:`core.steps`): yields
    ``(done, total, label)`` while it works (the WFC generators, as they solve) and returns the level.

    ``base`` is the folder relative ``tileset`` / ``sample`` paths are found in (the recipe's folder;
    None: the current directory).

    >>> from core.steps import drive
    >>> drive(generate_steps(LevelSpec(generator="maze", width=4, height=3))).grid.shape
    (7, 9)
    """
    if spec.generator in WFC_GENERATORS:
        return (yield from _wfc.wfc_level_steps(spec, base=base))
    function, _ = GENERATOR_FUNCTIONS[spec.generator]
    return function(spec.width, spec.height, seed=spec.seed, **generator_settings(spec))


def generate(spec, *, base=None):
    """The :class:`Level` that ``spec`` describes (deterministic in ``spec.seed``); ``base`` as in
    :func:`generate_steps`."""
    return drive(generate_steps(spec, base=base))


def _check_unknown_keys(data, prefix):
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


def from_dict(data, *, prefix="level.", base=None):
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
    _check_unknown_keys(data, prefix)
    spec = from_table(LevelSpec, LIMITS, data, prefix=prefix)
    check_generator_keys(data, spec, prefix=prefix)
    check_spec(spec, prefix=prefix, base=base)
    if base is not None and spec.generator in WFC_GENERATORS:
        spec = dataclasses.replace(spec, **_wfc_files.absolute_paths(spec, base))
    return spec


def grid_shape(spec):
    """(rows, columns) of the grid ``generate(spec)`` makes, from the settings alone: a maze of
    ``width`` x ``height`` maze cells lives on ``(2 height + 1, 2 width + 1)`` level cells, every
    other generator on ``(height, width)``.

    >>> grid_shape(LevelSpec(generator="maze", width=4, height=3)), grid_shape(LevelSpec(width=40, height=30))
    ((7, 9), (30, 40))
    """
    if spec.generator == "maze":
        return 2 * spec.height + 1, 2 * spec.width + 1
    return spec.height, spec.width


def estimate_markers(spec):
    """About how many markers ``generate(spec)`` places, without making the level (milliseconds); None
    when making it costs no more than the estimate (see below).

    WFC levels and mazes get a spawn and an exit: 2.  The others place enemies per floor cell and
    loot per room (or per 64 floor cells), so their markers grow with the cells at a rate set by
    the settings: the estimate makes the level of the same settings and seed on a grid of at most
    :data:`ESTIMATE_CELLS` (the same aspect) and scales its count by the cells.  At the defaults the
    markers per cell of a 128 x 128 and a 2048 x 2048 level differ by less than 6 % (bsp 7.7 / 7.9,
    cave 16.4 / 17.4, walk 10.0 / 9.9, rooms_caves 2.6 / 2.6 per 1,000 cells); an upper bound from
    the settings alone would not do: for a BSP dungeon at the defaults it is 4.6 times the count.
    None for a level of at most twice :data:`ESTIMATE_CELLS` (it is made as fast as the small one)
    and one whose settings need a larger grid than the small one: count its markers once it is made.

    >>> spec = LevelSpec(generator="cave", width=2048, height=2048)
    >>> 0.9 < estimate_markers(spec) / 73_208 < 1.1  # generate(spec) places 73,208
    True
    >>> estimate_markers(LevelSpec(generator="cave", width=300, height=200)) is None
    True
    """
    if spec.generator in WFC_GENERATORS or spec.generator == "maze":
        return 2
    cells = spec.width * spec.height
    scale = math.sqrt(ESTIMATE_CELLS / cells)
    if scale >= 0.5:
        return None
    small = dataclasses.replace(spec, width=max(1, int(spec.width * scale)), height=max(1, int(spec.height * scale)))
    try:
        check_spec(small)
    except ParameterError:  # the settings need more room (large leaves, rooms)
        return None
    count = len(generate(small).markers)
    return max(2, round(count * cells / (small.width * small.height)))
