"""Scaffold: being built (issue 10). The function and check names are fixed by core/levels/_generate.py."""

from __future__ import annotations

__all__ = ["bsp_dungeon", "check_settings"]


def check_settings(width, height, **settings):
    """Raise ParameterError naming the setting when the settings are impossible; return nothing."""


def bsp_dungeon(width, height, *, seed=0, **settings):
    raise NotImplementedError("bsp_dungeon is being built (issue 10)")
