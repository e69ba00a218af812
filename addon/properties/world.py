"""The World panel's settings: a tiled world (``[world] tiles``, ``halo``), which tiles to build, and the
folder the tile files go to.

The grid and halo come from core's table (``core.world.LIMITS``; the grid's bounds are
``core.world.TILES``), so the sidebar allows what a recipe allows.  The world's name and seed stay
in the Terrain panel (they name and seed a single terrain too).
"""

import bpy

from ...core import world as core_world
from ...operators.bridge.properties import props_from_limits

_TILES = core_world.LIMITS["tiles"]


def _tiles_prop(axis, default):
    return bpy.props.IntProperty(
        name=f"Tiles {axis}",
        description=f"{_TILES.description}: tiles along Unity {axis}",
        default=default,
        min=core_world.TILES[0],
        max=core_world.TILES[1],
    )


def _range_prop(label, default, axis):
    which = "from" if label.startswith("First") else "up to and with"
    return bpy.props.IntProperty(
        name=label,
        description=f"Build the tiles {which} this index along Unity {axis} (counted from 0)",
        default=default,
        min=0,
        max=core_world.TILES[1] - 1,
    )


_DEFAULT_TILES = core_world.WorldSpec().tiles


class WorldseedWorldSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        "tiles_x": _tiles_prop("X", _DEFAULT_TILES[0]),
        "tiles_z": _tiles_prop("Z", _DEFAULT_TILES[1]),
        **props_from_limits(core_world.LIMITS, core_world.WorldSpec(), names=["halo"]),
        "build_all": bpy.props.BoolProperty(
            name="All Tiles", default=True, description="Build every tile of the grid (off: only the range below)"
        ),
        "x0": _range_prop("First X", 0, "X"),
        "x1": _range_prop("Last X", 0, "X"),
        "z0": _range_prop("First Z", 0, "Z"),
        "z1": _range_prop("Last Z", 0, "Z"),
        "folder": bpy.props.StringProperty(
            name="World Folder",
            default="//world/",
            subtype="DIR_PATH",
            description="Where the tile files go (RAW heights, splats, placements, FBX, the world JSON); "
            "'//' is the .blend's folder (a temporary folder while the file is unsaved)",
        ),
        "file_name": bpy.props.StringProperty(
            name="File Name",
            default="world",
            maxlen=64,
            description="Base name of the files: <name>_<x>_<z>.raw ... and <name>_world.json",
        ),
        "scatter": bpy.props.BoolProperty(
            name="Scatter",
            default=True,
            description="Scatter the Scatter panel's layers (built-in props) over the tiles",
        ),
        "complete_tiles": bpy.props.StringProperty(
            name="Complete Tiles",
            default="",
            options={"HIDDEN"},
            description="The tiles whose files the world folder holds complete, 'x,z;x,z' (noted by Build Tiles)",
        ),
        "last_error": bpy.props.StringProperty(
            name="Last Error", default="", options={"SKIP_SAVE"}, description="Why the last world build failed"
        ),
    }


SETTINGS = WorldseedWorldSettings
classes = (WorldseedWorldSettings,)
