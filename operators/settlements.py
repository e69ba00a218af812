"""Settlement operators: Add Settlements (on the active terrain), Update, New Seed of the world, Load Settings.

They gather a :class:`core.settlements.SettlementsSpec` through the settlements' adapter
(``bridge.settlements.SettlementsAdapter``) and hand it to :mod:`.bridge.settlements`, which rebuilds
the terrain with the pads (its layers on a worker: progress and Esc from a window) and adds the sites.
"""

import bpy

from ..core.errors import ParameterError
from .bridge import sections
from .bridge import settlements as bridge_settlements
from .bridge.query import root_of
from .bridge.terrain import TERRAIN_KIND
from .common import FamilyOperator, LoadSettings, ModalBuild, Rebuild, select_only

SETTLEMENTS = sections.adapter("settlements")


def _terrain_of(context):
    obj = context.active_object
    found = root_of(obj, TERRAIN_KIND)
    if found is None:
        found = next((o for o in context.scene.objects if o.get("worldseed_kind") == TERRAIN_KIND), None)
    return found


class WORLDSEED_OT_settlements_add(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Place settlements on the active Worldseed terrain (or the scene's first): levelled pads, streets,
    lots and houses, from the Settlements panel's settings"""

    bl_idname = "worldseed.settlements_add"
    bl_label = "Add Settlements"
    bl_options = {"REGISTER", "UNDO"}
    family = "settlements"

    __annotations__ = {
        **SETTLEMENTS.props(),
        "from_settings": bpy.props.BoolProperty(
            name="From Sidebar",
            default=False,
            options={"SKIP_SAVE", "HIDDEN"},
            description="Start from the Settlements panel's settings (what the sidebar button does)",
        ),
    }

    @classmethod
    def poll(cls, context):
        return _terrain_of(context) is not None

    def invoke(self, context, event):
        self.from_settings = True
        return self.guard(context, lambda: self.run(context, modal=True))

    def execute(self, context):
        return self.guard(context, lambda: self.run(context, modal=False))

    def run(self, context, *, modal):
        if self.from_settings:
            SETTLEMENTS.load(self, SETTLEMENTS.spec(self.settings(context), enabled=True))
            self.from_settings = False
        terrain = _terrain_of(context)
        if terrain is None:
            raise ParameterError("add a Worldseed terrain first: settlements stand on a terrain")
        spec = SETTLEMENTS.spec(self, enabled=True)
        steps = bridge_settlements.build_steps(terrain, spec)
        return self.run_steps(context, steps, "settlements", modal=modal)

    def finished(self, context, root):
        select_only(context, root)
        sites = len(root.children)
        self.report({"INFO"}, f"Worldseed: {sites} settlement{'s' if sites != 1 else ''} on {root.parent.name!r}")
        for line in root.get(bridge_settlements.WARNINGS_KEY, ()):
            self.report({"WARNING"}, f"Worldseed: {line}")


class WORLDSEED_OT_settlements_update(Rebuild, bpy.types.Operator):
    """Rebuild the active settlements (and their terrain's pads) from the Settlements panel"""

    bl_idname = "worldseed.settlements_update"
    bl_label = "Update Settlements"
    bl_options = {"REGISTER", "UNDO"}
    family = "settlements"


class WORLDSEED_OT_settlements_load_settings(LoadSettings, bpy.types.Operator):
    """Load the settings the active settlements were built from into the Settlements panel"""

    bl_idname = "worldseed.settlements_load_settings"
    bl_label = "Load Settlement Settings"
    bl_options = {"REGISTER", "UNDO"}
    family = "settlements"


classes = (WORLDSEED_OT_settlements_add, WORLDSEED_OT_settlements_update, WORLDSEED_OT_settlements_load_settings)
