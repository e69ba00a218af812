"""Add-on preferences."""

import bpy


class WorldseedPreferences(bpy.types.AddonPreferences):
    # The extension root's package (``bl_ext.<repo>.worldseed`` when installed); never a literal.
    bl_idname = __package__.rpartition(".")[0]

    modal_vertices: bpy.props.IntProperty(
        name="Progress Above",
        default=600_000,
        min=0,
        description="Builds with more vertices than this show progress and can be cancelled with Esc",
    )

    def draw(self, context):
        self.layout.prop(self, "modal_vertices")


classes = (WorldseedPreferences,)
