"""Scaffold: being built (issue 10). The function and check names are fixed by core/levels/_generate.py."""

from __future__ import annotations

__all__ = ["cave", "check_settings"]


def check_settings(width, height, **settings):
    """Raise ParameterError naming the setting when the settings are impossible; return nothing."""


def cave(width, height, *, seed=0, **settings):
    raise NotImplementedError("cave is being built (issue 10)")
