"""Sidebar (View3D > N > Worldseed): the Ecosystem panel with its species and animals lists, Simulate, the
year slider and the population chart. Drawing only."""

from __future__ import annotations

from typing import Any, cast

import bpy

from .common import SidebarPanel

#: The image the last simulation's chart is kept in (``operators.bridge.ecosystem.CHART_IMAGE``).
CHART_IMAGE = "Worldseed Population"
SPECIES_FIELDS = (
    "initial_density",
    "seeds_per_year",
    "dispersal",
    "max_age",
    "max_radius",
    "max_height",
    "growth_years",
    "shade_tolerance",
)
MORE_SPECIES_FIELDS = (
    "germination",
    "immigrants",
    "maturity",
    "age_spread",
    "mortality",
    "stress",
    "variation",
    "moisture",
    "moisture_tolerance",
    "altitude",
    "altitude_tolerance",
    "max_slope",
    "temperature",
    "temperature_tolerance",
)
ANIMAL_FIELDS = ("eats", "count", "energy_gain", "reproduce", "speed", "vision", "metabolism", "max_age")
MORE_ANIMAL_FIELDS = ("mutation", "catch", "drink_every", "home_range", "trails")
SETTINGS_FIELDS = (
    "snapshot_every",
    "disturbance",
    "patch_radius",
    "disturbance_kind",
    "burn_in",
    "grass_regrowth",
    "trail_wear",
    "trail_decay",
    "trail_attraction",
    "trampled",
)


class WORLDSEED_UL_ecosystem_species(bpy.types.UIList):
    def draw_item(  # type: ignore[override]
        self,
        context: bpy.types.Context,
        layout: bpy.types.UILayout,
        data: Any,
        item: Any,
        icon: int,
        active_data: Any,
        active_propname: str,
        index: int,
    ) -> None:
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="OUTLINER_OB_FORCE_FIELD")
        row.label(text=item.tree)


class WORLDSEED_UL_ecosystem_animals(bpy.types.UIList):
    def draw_item(  # type: ignore[override]
        self,
        context: bpy.types.Context,
        layout: bpy.types.UILayout,
        data: Any,
        item: Any,
        icon: int,
        active_data: Any,
        active_propname: str,
        index: int,
    ) -> None:
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="MONKEY")
        row.label(text=item.eats)


class WORLDSEED_PT_ecosystem(SidebarPanel, bpy.types.Panel):
    bl_label = "Ecosystem"
    bl_idname = "WORLDSEED_PT_ecosystem"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        layout = cast(bpy.types.UILayout, self.layout)
        scene: Any = context.scene  # scene.worldseed: registered by the add-on, unknown to the stubs
        settings = scene.worldseed.ecosystem
        row = layout.row(align=True)
        row.prop(settings, "preset", text="")
        row.operator("worldseed.ecosystem_preset", text="Load", icon="IMPORT")
        col = layout.column(align=True)
        col.prop(settings, "years")
        col.prop(settings, "steps")
        row = col.row(align=True)
        row.prop(settings, "seed")
        row.operator("worldseed.ecosystem_reseed", text="", icon="FILE_REFRESH")
        layout.label(text="Plant Species")
        row = layout.row()
        row.template_list("WORLDSEED_UL_ecosystem_species", "", settings, "species", settings, "active_species", rows=3)
        col = row.column(align=True)
        col.operator("worldseed.ecosystem_species_add", text="", icon="ADD")
        col.operator("worldseed.ecosystem_species_remove", text="", icon="REMOVE")
        if 0 <= settings.active_species < len(settings.species):
            draw_fields(layout, settings.species[settings.active_species], ("tree", *SPECIES_FIELDS))
        layout.label(text="Animals")
        row = layout.row()
        row.template_list("WORLDSEED_UL_ecosystem_animals", "", settings, "animals", settings, "active_animal", rows=2)
        col = row.column(align=True)
        col.operator("worldseed.ecosystem_animal_add", text="", icon="ADD")
        col.operator("worldseed.ecosystem_animal_remove", text="", icon="REMOVE")
        if 0 <= settings.active_animal < len(settings.animals):
            draw_fields(layout, settings.animals[settings.active_animal], ANIMAL_FIELDS)
        root = settings.active_root(context.active_object)
        if root is None and scene.worldseed.terrain.active_root(context.active_object) is None:
            layout.label(text="Select a Worldseed terrain to grow on", icon="INFO")
        layout.operator("worldseed.ecosystem_add", icon="OUTLINER_OB_FORCE_FIELD")
        if root is not None:
            box = layout.box()
            box.label(text=f"{root.name}: {len(root.data.vertices):,} plants", icon="OBJECT_DATA")
            row = box.row(align=True)
            row.prop(settings, "year", slider=True)
            row.operator("worldseed.ecosystem_show_year", text="", icon="TIME")
            row = box.row(align=True)
            row.operator("worldseed.ecosystem_update", icon="FILE_REFRESH")
            row.operator("worldseed.ecosystem_load", icon="IMPORT")
            box.prop(settings, "auto_update")
            if settings.last_error:
                err = box.column(align=True)
                err.alert = True
                err.label(text=settings.last_error, icon="ERROR")
            image = bpy.data.images.get(CHART_IMAGE)
            if image is not None and image.preview is not None:
                box.template_icon(icon_value=image.preview.icon_id, scale=8.0)


class WORLDSEED_PT_ecosystem_more(SidebarPanel, bpy.types.Panel):
    bl_label = "More Settings"
    bl_parent_id = "WORLDSEED_PT_ecosystem"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        scene: Any = context.scene
        settings = scene.worldseed.ecosystem
        layout = cast(bpy.types.UILayout, self.layout)
        draw_fields(layout, settings, SETTINGS_FIELDS)
        if 0 <= settings.active_species < len(settings.species):
            layout.label(text=f"Species: {settings.species[settings.active_species].name}")
            draw_fields(layout, settings.species[settings.active_species], MORE_SPECIES_FIELDS)
        if 0 <= settings.active_animal < len(settings.animals):
            layout.label(text=f"Animal: {settings.animals[settings.active_animal].name}")
            draw_fields(layout, settings.animals[settings.active_animal], MORE_ANIMAL_FIELDS)


def draw_fields(layout: bpy.types.UILayout, data: Any, names: tuple[str, ...]) -> None:
    col = layout.column(align=True)
    col.use_property_split = True
    for name in names:
        if name in data.bl_rna.properties:
            col.prop(data, name)


classes = (
    WORLDSEED_UL_ecosystem_species,
    WORLDSEED_UL_ecosystem_animals,
    WORLDSEED_PT_ecosystem,
    WORLDSEED_PT_ecosystem_more,
)
