"""From a :class:`~.spec.LevelSpec` to a :class:`~._level.Level`: the one dispatch over the generators
(the settings are checked first, by :func:`core.levels.spec.check_spec`)."""

from collections.abc import Callable

from ..steps import Steps, drive
from . import _bsp, _cave, _maze, _rooms_caves, _walk, _wfc
from ._fields import WFC_GENERATORS, LevelSpec, generator_settings
from ._level import Level

__all__ = ["GENERATOR_FUNCTIONS", "generate", "generate_steps"]

#: generator name -> (function, settings check) of the grid generators; each function is
#: ``f(width, height, *, seed, **settings)`` and each check ``check_settings(width, height, **settings)``
#: raises a ParameterError naming the setting.  The WFC generators (``WFC_GENERATORS``) go through
#: :mod:`._wfc` instead: they read files.
GENERATOR_FUNCTIONS: dict[str, tuple[Callable[..., Level], Callable[..., object]]] = {
    "bsp": (_bsp.bsp_dungeon, _bsp.check_settings),
    "cave": (_cave.cave, _cave.check_settings),
    "maze": (_maze.maze, _maze.check_settings),
    "walk": (_walk.random_walk, _walk.check_settings),
    "rooms_caves": (_rooms_caves.rooms_caves, _rooms_caves.check_settings),
}


def generate_steps(spec: LevelSpec, *, base: str | None = None) -> Steps[Level]:
    """The :class:`Level` that ``spec`` describes, as a step generator (see :mod:`core.steps`): yields
    ``(done, total, label)`` while it works (the WFC generators, as they solve) and returns the level.

    ``base`` is the folder relative ``wfc_tileset`` / ``sample`` paths are found in (the recipe's folder;
    None: the current directory).

    >>> from core.levels import LevelSpec
    >>> from core.steps import drive
    >>> drive(generate_steps(LevelSpec(generator="maze", width=4, height=3))).grid.shape
    (7, 9)
    """
    if spec.generator in WFC_GENERATORS:
        return (yield from _wfc.wfc_level_steps(spec, base=base))
    function, _ = GENERATOR_FUNCTIONS[spec.generator]
    return function(spec.width, spec.height, seed=spec.seed, **generator_settings(spec))


def generate(spec: LevelSpec, *, base: str | None = None) -> Level:
    """The :class:`Level` that ``spec`` describes (deterministic in ``spec.seed``); ``base`` as in
    :func:`generate_steps`."""
    return drive(generate_steps(spec, base=base))
