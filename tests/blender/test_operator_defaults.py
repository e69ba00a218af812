"""Every operator runs on its panel's defaults, and every family's Add operators for every value of
every enum of its panel, on a fresh scene (defaults that fail when an artist clicks).

Walked, not listed: the operators are the registered ones (``operators.classes``); the enums are the
``EnumProperty`` items of each family's settings (and of its list items: texture layers, scatter layers),
dynamic ones included; the Add operators are the family's operators with a ``from_settings`` switch (the
panel's buttons).  A new operator, setting or enum value is covered without a line here.  Sizes are the
panels' own defaults: a slow default is a finding, not something to shrink here.

An operator whose poll fails on a fresh scene runs in the first of :data:`STATES` (each built from the
panels' defaults) where it passes; an enum value that needs another choice first (a collection, a
file, an image) must refuse with a report naming it (:data:`NEEDS`).
"""

import ast
import re

import bpy
import pytest

from worldseed import operators
from worldseed.addon import PANELS
from worldseed.operators.bridge import presets, sections

from ._level_cases import kit_collection
from ._network_cases import networks_sidebar
from ._panel_cases import DataRecorder, draw

OPERATORS = sorted(cls.bl_idname for cls in operators.classes)


def _op(idname):
    module, _, name = idname.partition(".")
    return getattr(getattr(bpy.ops, module), name)


def _terrain():
    assert bpy.ops.worldseed.terrain_add(from_settings=True) == {"FINISHED"}


def _texture_layers():
    _terrain()
    bpy.ops.worldseed.splat_layer_add()
    bpy.ops.worldseed.splat_layer_add()


def _scatter_layer():
    _terrain()
    bpy.ops.worldseed.scatter_layer_add()


def _scatter():
    _scatter_layer()
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}


def _ecosystem_panel():
    _terrain()
    bpy.ops.worldseed.ecosystem_species_add()
    bpy.ops.worldseed.ecosystem_animal_add()


def _ecosystem():
    _ecosystem_panel()
    assert bpy.ops.worldseed.ecosystem_add() == {"FINISHED"}


def _kit_level():
    settings = bpy.context.scene.worldseed.level
    settings.geometry, settings.kit = "KIT", kit_collection()
    assert bpy.ops.worldseed.level_add(from_settings=True) == {"FINISHED"}


def _settlements():
    _terrain()
    assert bpy.ops.worldseed.settlements_add(from_settings=True) == {"FINISHED"}


def _user_preset():
    assert bpy.ops.worldseed.terrain_preset_save(preset_name="Mine") == {"FINISHED"}


#: Scenes made from the panels' defaults, in the order they are tried for an operator's poll.
STATES = {
    "fresh": lambda: None,
    "terrain": _terrain,
    "texture layers": _texture_layers,
    "scatter": _scatter,
    "ecosystem panel": _ecosystem_panel,
    "ecosystem": _ecosystem,
    "settlements": _settlements,
    "tree": lambda: bpy.ops.worldseed.tree_add(from_settings=True),
    "level": lambda: bpy.ops.worldseed.level_add(from_settings=True),
    "kit level": _kit_level,
    "tiles": lambda: bpy.ops.worldseed.world_build(),
}
#: Operators that run in a given state whatever their poll says (it passes earlier, execute needs more: a
#: user preset to remove, an object to export).
STATE_OF = {"worldseed.terrain_preset_remove": _user_preset, "worldseed.export_unity": _terrain}
#: What an operator must be told: a file to write, a preset's name, to make many objects.
ARGS = {
    "worldseed.export_unity": lambda tmp: {"filepath": str(tmp / "world.fbx")},
    "worldseed.recipe_save": lambda tmp: {"filepath": str(tmp / "world.toml")},
    "worldseed.terrain_preset_apply": lambda tmp: {"preset": presets.display_name(presets.builtin_presets()[0])},
    "worldseed.terrain_preset_save": lambda tmp: {"preset_name": "Mine"},
    "worldseed.terrain_preset_remove": lambda tmp: {"preset": "Mine"},
    "worldseed.scatter_make_real": lambda tmp: {"many": True},
}
#: Enum values that need another choice first: ``(property, value): words of the report`` (or none, when
#: the value does not matter to the Add operator).
NEEDS = {
    ("source", "COLLECTION"): "choose a collection",
    ("source", "OBJECT"): "choose an object",
    ("wfc_tileset", "FILE"): "choose the WFC tileset file",
    ("sample_source", "FILE"): "choose the sample file",
    ("sample_source", "IMAGE"): "choose the sample image",
    ("geometry", "KIT"): "choose the collection of the kit",
    ("points_source", "COLLECTION"): "choose a collection",
    ("points_source", "OBJECTS"): "pick the objects",
}


@pytest.fixture
def user_presets(tmp_path, monkeypatch):
    folder = tmp_path / "presets"
    folder.mkdir()
    monkeypatch.setattr(presets, "user_dir", lambda create=False: str(folder))


def _fresh():
    bpy.ops.wm.read_homefile(use_empty=True)


@pytest.mark.parametrize("idname", OPERATORS)
def test_every_operator_runs_on_its_panels_defaults(empty_scene, tmp_path, user_presets, idname):
    setup = STATE_OF.get(idname)
    if setup is None:
        for state in STATES.values():
            _fresh()
            state()
            if _op(idname).poll():
                break
        else:
            pytest.fail(f"{idname}: no state of {list(STATES)} passes its poll")
    else:
        setup()
    args = ARGS.get(idname, lambda tmp: {})(tmp_path)
    assert _op(idname)(**args) == {"FINISHED"}


def enum_values(data, name):
    """Every value of the enum ``name`` of ``data`` (dynamic items too: Blender lists them when refusing
    a value that is none of them)."""
    items = [i.identifier for i in data.bl_rna.properties[name].enum_items]
    if items:
        return items
    try:
        setattr(data, name, "\x7fnone")
    except TypeError as err:
        return list(ast.literal_eval(re.search(r"not found in (\(.*\))", str(err)).group(1)))
    raise AssertionError(f"{name}: a value no item has was accepted")


def _groups(settings):
    """The settings and the first item of each of their lists (a texture layer, a scatter layer)."""
    out = [settings]
    for prop in settings.bl_rna.properties:
        if prop.type == "COLLECTION" and prop.identifier != "rna_type" and len(getattr(settings, prop.identifier)):
            out.append(getattr(settings, prop.identifier)[0])
    return out


def _add_operators(family):
    module = operators.FAMILIES[family.name]
    return [c.bl_idname for c in module.classes if "from_settings" in c.__annotations__]


#: Before a family's Add operators run: what its panel needs first (a terrain to scatter on, a list item
#: so its enums are drawn too).
PREPARE = {
    "terrain": lambda: bpy.ops.worldseed.splat_layer_add(),
    "scatter": _scatter_layer,
    "ecosystem": _ecosystem_panel,
    "roads": networks_sidebar,  # the roads on, between points its terrain can join
    "settlements": _terrain,
}


def _set_up(family, assignment):
    """A fresh scene, the family's panel prepared and ``assignment`` (``{(group, name): value}``) set."""
    _fresh()
    PREPARE.get(family.key, lambda: None)()
    groups = _groups(family.settings(bpy.context.scene))
    for (g, name), value in assignment.items():
        setattr(groups[g], name, value)
    return groups


def _drawn_enums(family, groups):
    """``(group index, name)`` of the enums the family's panels draw now, in drawing order."""
    found = []
    for cls in PANELS[family.name].classes:
        if issubclass(cls, bpy.types.Panel):
            for call in draw(cls, recorder=DataRecorder):
                if call[0] != "prop":
                    continue
                _, name, data = call
                g = next((i for i, group in enumerate(groups) if group == data), None)
                if g is not None and data.bl_rna.properties[name].type == "ENUM" and (g, name) not in found:
                    found.append((g, name))
    return found


def enum_cases(family):
    """Every value of every enum the family's panels draw, each set in the first panel state that draws
    it (the WFC sample's presets once the generator takes a sample and the sample is a preset ...):
    ``[{(group, name): value, ...}, ...]``, the panel's defaults otherwise."""
    seen, cases, queue = set(), [], [{}]
    while queue:
        assignment = queue.pop(0)
        groups = _set_up(family, assignment)
        for g, name in _drawn_enums(family, groups):
            if (g, name) in seen:
                continue
            seen.add((g, name))
            for value in enum_values(groups[g], name):
                case = {**assignment, (g, name): value}
                cases.append(case)
                queue.append(case)
    return cases


#: The families that build objects, and the sections built with one of them whose panel has enums and an
#: Add operator of its own (the networks' Build Networks).
ENUM_FAMILIES = [family.key for family in sections.families()] + [
    a.key
    for a in sections.ADAPTERS
    if a.follows and _add_operators(a) and any(limit.kind == "choice" for limit in a.section.limits.values())
]


@pytest.mark.parametrize("key", ENUM_FAMILIES)
def test_every_add_operator_builds_for_every_value_of_every_enum_of_its_panel(empty_scene, key):
    family = sections.adapter(key)
    adds = _add_operators(family)
    assert adds, f"family {key!r} has no Add operator (one with from_settings)"
    cases = enum_cases(family)
    assert len(cases) >= 3
    failures = []
    for case in cases:
        (g, name), value = list(case.items())[-1]
        words = NEEDS.get((name, value))
        for idname in adds:
            _set_up(family, case)
            try:
                result = _op(idname)(from_settings=True)
            except RuntimeError as err:
                if words is None or words not in str(err):
                    failures.append(f"{idname} with {case}: {err}")
                continue
            if result != {"FINISHED"}:
                failures.append(f"{idname} with {case}: {result}")
    assert not failures, "\n".join(failures)
