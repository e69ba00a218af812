"""The export settings (``[export]`` of a recipe), generated from core's table."""

import bpy

from ...core import export as core_export
from ...operators.bridge.properties import props_from_limits


class WorldseedExportSettings(bpy.types.PropertyGroup):
    __annotations__ = props_from_limits(core_export.LIMITS, core_export.ExportSpec())


SETTINGS = WorldseedExportSettings
classes = (WorldseedExportSettings,)
