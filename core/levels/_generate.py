"""From a :class:`~.spec.LevelSpec` to a :class:`~._level.Level`: the one dispatch over the generators."""

from __future__ import annotations

from ..errors import ParameterError
from . import _bsp, _cave, _maze, _rooms_caves, _walk
from .spec import generator_settings

__all__ = ["GENERATOR_FUNCTIONS", "generate", "check_spec"]

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
