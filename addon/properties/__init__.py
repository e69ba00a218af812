"""Property groups, one file per family, generated from core's limits tables; one scene pointer over them all."""
import bpy

from . import export, scatter, terrain, trees

#: Property-group files per family, in the order of ``core.recipe.SECTIONS``.
FAMILIES = {"terrain": terrain, "trees": trees, "scatter": scatter, "export": export}


class WorldseedSettings(bpy.types.PropertyGroup):
    terrain: bpy.props.PointerProperty(type=terrain.WorldseedTerrainSettings)
    export: bpy.props.PointerProperty(type=export.WorldseedExportSettings)
    trees: bpy.props.PointerProperty(type=trees.WorldseedTreeSettings)
    scatter: bpy.props.PointerProperty(type=scatter.WorldseedScatterSettings)


classes = (*(cls for module in FAMILIES.values() for cls in module.classes), WorldseedSettings)  # children first
