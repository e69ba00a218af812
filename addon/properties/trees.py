"""The Trees panel's settings: every TreeSpec field, generated from ``core.trees.LIMITS``.

The same definitions (:func:`operators.trees.tree_props`) make the Add Tree
operator's redo panel.  Rules are carried as text (newlines or ``;``
between productions); they can also come from a Text datablock the artist
edits in Blender's Text Editor.  Why the rules do not parse is worked out
when they change (:func:`..live.on_rules_change`) and kept in ``rule_error``
for the panel to draw.
"""

import bpy

from ...core import trees as core_trees
from ...operators.bridge.properties import prop_for
from ...operators.trees import DEFAULTS, apply_spec_to_props, species_items, tree_props
from .. import live


def _on_species(self, context):
    if self.species:
        apply_spec_to_props(self, core_trees.species_spec(self.species), keep=("seed",))
        self.rules_text = None
    live.on_rules_change(self, context)


class WorldseedTreeSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        **tree_props(rules_update=live.on_rules_change),
        "species": bpy.props.EnumProperty(
            name="Species",
            items=lambda self, context: species_items(),
            update=_on_species,
            description="A tree species or one of ABOP's plants; choosing one loads its rules and settings",
        ),
        "rules_text": bpy.props.PointerProperty(
            type=bpy.types.Text,
            name="Rules Text",
            update=live.on_rules_change,
            description="A text (Text Editor) holding the rules; when set it is used instead of the Rules field",
        ),
        "variants": prop_for(core_trees.LIMITS["variants"], DEFAULTS.variants),
        "forest_species": bpy.props.StringProperty(
            name="Forest Species",
            default="",
            description="Species of the forest, separated by commas; empty for the species above",
        ),
        "rule_error": bpy.props.StringProperty(
            name="Rule Error", default="", description="Why the rules do not parse (empty when they do)"
        ),
    }

    def rules_source(self):
        """The rules as they will be used: from the Text datablock when one is set."""
        return self.rules_text.as_string() if self.rules_text is not None else self.rules


SETTINGS = WorldseedTreeSettings
classes = (WorldseedTreeSettings,)
