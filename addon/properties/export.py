"""The export settings (``[export]`` of a recipe), generated from core's table."""

import bpy

from ...core import recipe as core_recipe
from ...operators.bridge.properties import props_from_limits


class WorldseedExportSettings(bpy.types.PropertyGroup):
    __annotations__ = props_from_limits(core_recipe.EXPORT_LIMITS, core_recipe.ExportSpec())


SETTINGS = WorldseedExportSettings
classes = (WorldseedExportSettings,)
