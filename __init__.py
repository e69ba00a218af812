# SPDX-License-Identifier: GPL-3.0-or-later
"""Worldseed: procedural world building for Blender (extension root)."""

from .addon import register, unregister  # noqa: F401
