"""What every sidebar panel shares: View3D > N > Worldseed."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import RegionTypeItems, SpaceTypeItems


class SidebarPanel:
    """Mix-in for a panel in the 3D view's sidebar, tab "Worldseed"."""

    if TYPE_CHECKING:  # typed as the Panel it is mixed into types them (no annotation at run time: Blender reads them)
        bl_space_type: SpaceTypeItems
        bl_region_type: RegionTypeItems
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Worldseed"
