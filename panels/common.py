"""What every sidebar panel shares: View3D > N > Worldseed."""


class SidebarPanel:
    """Mix-in for a panel in the 3D view's sidebar, tab "Worldseed"."""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Worldseed"
