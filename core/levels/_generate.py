"""From a :class:`~.spec.LevelSpec` to a :class:`~._level.Level`: the one dispatch over the generators."""

from __future__ import annotations

from ..errors import ParameterError
from ..spec import from_table
from . import _bsp, _cave, _maze, _rooms_caves, _walk
from .spec import AUTOTILE_SETS, LIMITS, WFC_GENERATORS, LevelSpec, check_generator_keys, generator_settings

__all__ = ["GENERATOR_FUNCTIONS", "generate", "check_spec", "from_dict"]

#: generator name -> (function, settings check); each function is ``f(width, height, *, seed, **settings)``
#: and each check ``check_settings(width, height, **settings)`` raises a ParameterError naming the setting.
GENERATOR_FUNCTIONS = {
    "bsp": (_bsp.bsp_dungeon, _bsp.check_settings),
    "cave": (_cave.cave, _cave.check_settings),
    "maze": (_maze.maze, _maze.check_settings),
    "walk": (_walk.random_walk, _walk.check_settings),
    "rooms_caves": (_rooms_caves.rooms_caves, _rooms_caves.check_settings),
}


def check_spec(spec, *, prefix="level."):
    """Refuse impossible settings of ``spec`` before any work, the message naming ``<prefix><setting>``."""
    if spec.generator in WFC_GENERATORS:
        raise ParameterError(f"{prefix}generator {spec.generator!r} is not built yet")
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


def generate(spec):
    """The :class:`Level` that ``spec`` describes (deterministic in ``spec.seed``)."""
    function, _ = GENERATOR_FUNCTIONS[spec.generator]
    return function(spec.width, spec.height, seed=spec.seed, **generator_settings(spec))


def from_dict(data, *, prefix="level."):
    """A validated :class:`~.spec.LevelSpec` from a dict: unknown keys and keys of another
    generator refused, impossible settings refused before any work.

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
    check_spec(spec, prefix=prefix)
    return spec
