"""Ecosystem operators: Simulate (the forest and animals on the active terrain, with progress and Esc),
Update, New Seed, Load from Active, the species and animal lists' + and -, and a preset into the panel.

The settings come from the Ecosystem panel through the ecosystem's adapter
(``bridge.ecosystem.EcosystemAdapter``); the simulation is core's (``core.ecosystem``) on the terrain's
layers, and :mod:`.bridge.ecosystem` makes the forest of instances.  Errors are reports; a failed or
cancelled run leaves the scene as it was (the scene changes only at the last step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import bpy

from ..core.errors import ParameterError
from .bridge import ecosystem as bridge_ecosystem
from .bridge import sections
from .bridge import terrain as bridge_terrain
from .bridge.properties import Settings
from .common import FamilyOperator, LoadSettings, ModalBuild, Rebuild, Reports, Reseed, new_seed, select_only

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems

    Result = set[OperatorReturnItems]
else:
    Result = set

ECOSYSTEM = bridge_ecosystem.EcosystemAdapter.key


def _adapter() -> bridge_ecosystem.EcosystemAdapter:
    return sections.adapter("ecosystem")


def _settings(context: bpy.types.Context) -> Settings:
    """The Ecosystem panel's settings."""
    return _adapter().settings(cast(bpy.types.Scene, context.scene))


class WORLDSEED_OT_ecosystem_add(ModalBuild, FamilyOperator, bpy.types.Operator):
    """Simulate the Ecosystem panel's species and animals on the active Worldseed terrain (replacing its
    ecosystem): the forest appears as instances of the species' trees"""

    bl_idname = "worldseed.ecosystem_add"
    bl_label = "Simulate"
    bl_options = {"REGISTER", "UNDO"}
    family = ECOSYSTEM

    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, max=2**31 - 1)
    new_seed: bpy.props.BoolProperty(name="New Seed", default=False, options={"SKIP_SAVE"})
    from_settings: bpy.props.BoolProperty(default=True, options={"SKIP_SAVE", "HIDDEN"})

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        settings = _settings(context)
        if not (len(settings.species) or len(settings.animals)):
            cls.poll_message_set("Add a plant species or an animal with + first")
            return False
        return bridge_terrain.terrain_root(context.active_object) is not None

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> Result:
        return self.guard(context, lambda: self.run(context, modal=True))

    def execute(self, context: bpy.types.Context) -> Result:
        return self.guard(context, lambda: self.run(context, modal=False))

    def run(self, context: bpy.types.Context, *, modal: bool) -> Result:
        settings = self.settings(context)
        if self.from_settings:
            self.seed, self.from_settings = settings.seed, False
        if self.new_seed:
            self.seed, self.new_seed = new_seed(), False
        spec = _adapter().spec_with_seed(settings, self.seed)
        terrain = bridge_terrain.terrain_root(context.active_object)
        if terrain is None:
            raise ParameterError("select a Worldseed terrain to grow the ecosystem on")
        replace = bridge_ecosystem.forest_of(terrain)
        collection = replace.users_collection[0] if replace is not None and replace.users_collection else None
        steps = bridge_ecosystem.forest_steps(
            terrain, spec, collection=collection or cast(bpy.types.Collection, context.collection), replace=replace
        )
        return self.run_steps(context, steps, "simulating the ecosystem", modal=modal)

    def finished(self, context: bpy.types.Context, root: bpy.types.Object) -> None:
        select_only(context, root)
        self.settings(context).year = bridge_ecosystem.shown_year(root)
        plants = len(cast(bpy.types.Mesh, root.data).vertices)
        self.report({"INFO"}, f"Worldseed: {plants:,} plants on {cast(bpy.types.Object, root.parent).name!r}")


class WORLDSEED_OT_ecosystem_update(Rebuild, bpy.types.Operator):
    """Simulate the active ecosystem again with the Ecosystem panel's settings"""

    bl_idname = "worldseed.ecosystem_update"
    bl_label = "Update Ecosystem"
    bl_options = {"REGISTER", "UNDO"}
    family = ECOSYSTEM


class WORLDSEED_OT_ecosystem_reseed(Reseed, bpy.types.Operator):
    """Draw a new ecosystem seed (and simulate the active ecosystem again)"""

    bl_idname = "worldseed.ecosystem_reseed"
    bl_label = "New Ecosystem Seed"
    bl_options = {"REGISTER", "UNDO"}
    family = ECOSYSTEM


class WORLDSEED_OT_ecosystem_load(LoadSettings, bpy.types.Operator):
    """Load the settings the active ecosystem was simulated from into the Ecosystem panel"""

    bl_idname = "worldseed.ecosystem_load"
    bl_label = "Load from Active"
    bl_options = {"REGISTER", "UNDO"}
    family = ECOSYSTEM


class WORLDSEED_OT_ecosystem_preset(Reports, bpy.types.Operator):
    """Load the preset chosen in the Ecosystem panel (presets/ecosystem/) into the panel"""

    bl_idname = "worldseed.ecosystem_preset"
    bl_label = "Load Preset"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> Result:
        settings = _settings(context)

        def work() -> Result:
            _adapter().load_preset(settings)
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_ecosystem_show_year(FamilyOperator, bpy.types.Operator):
    """Show the active ecosystem's forest at the panel's year (from the snapshots of its simulation)"""

    bl_idname = "worldseed.ecosystem_show_year"
    bl_label = "Show Year"
    bl_options = {"REGISTER", "UNDO"}
    family = ECOSYSTEM

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return cls.active_root(context) is not None

    def execute(self, context: bpy.types.Context) -> Result:
        root = self.active_root(context)
        settings = self.settings(context)

        def work() -> Result:
            shown = bridge_ecosystem.show_year(root, settings.year)
            self.report({"INFO"}, f"Worldseed: the forest at year {shown}")
            return {"FINISHED"}

        return self.guard(context, work)


class WORLDSEED_OT_ecosystem_species_add(bpy.types.Operator):
    """Add a plant species to the Ecosystem panel"""

    bl_idname = "worldseed.ecosystem_species_add"
    bl_label = "Add Species"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> Result:
        _adapter().add_species(_settings(context))
        return {"FINISHED"}


class WORLDSEED_OT_ecosystem_species_remove(bpy.types.Operator):
    """Remove the active plant species from the Ecosystem panel"""

    bl_idname = "worldseed.ecosystem_species_remove"
    bl_label = "Remove Species"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return len(_settings(context).species) > 0

    def execute(self, context: bpy.types.Context) -> Result:
        settings = _settings(context)
        settings.species.remove(settings.active_species)
        settings.active_species = max(0, min(settings.active_species, len(settings.species) - 1))
        return {"FINISHED"}


class WORLDSEED_OT_ecosystem_animal_add(bpy.types.Operator):
    """Add an animal to the Ecosystem panel"""

    bl_idname = "worldseed.ecosystem_animal_add"
    bl_label = "Add Animal"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context: bpy.types.Context) -> Result:
        _adapter().add_animal(_settings(context))
        return {"FINISHED"}


class WORLDSEED_OT_ecosystem_animal_remove(bpy.types.Operator):
    """Remove the active animal from the Ecosystem panel"""

    bl_idname = "worldseed.ecosystem_animal_remove"
    bl_label = "Remove Animal"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return len(_settings(context).animals) > 0

    def execute(self, context: bpy.types.Context) -> Result:
        settings = _settings(context)
        settings.animals.remove(settings.active_animal)
        settings.active_animal = max(0, min(settings.active_animal, len(settings.animals) - 1))
        return {"FINISHED"}


classes = (
    WORLDSEED_OT_ecosystem_add,
    WORLDSEED_OT_ecosystem_update,
    WORLDSEED_OT_ecosystem_reseed,
    WORLDSEED_OT_ecosystem_load,
    WORLDSEED_OT_ecosystem_preset,
    WORLDSEED_OT_ecosystem_show_year,
    WORLDSEED_OT_ecosystem_species_add,
    WORLDSEED_OT_ecosystem_species_remove,
    WORLDSEED_OT_ecosystem_animal_add,
    WORLDSEED_OT_ecosystem_animal_remove,
)
