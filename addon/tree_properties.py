"""Tree settings: every :class:`core.tree.TreeSpec` field as a Blender property, declared once.

:func:`tree_props` is used twice, by the sidebar's tree settings and by the
Add Tree operator's redo panel; ranges come from ``core.tree.TREE_LIMITS``.
Rules are carried as text (newlines or ``;`` between productions); in the
sidebar they can also come from a Text datablock the artist edits in Blender's
Text Editor.
"""
import dataclasses
import functools

import bpy
import numpy as np

from ..core import tree as core_tree
from ..core._checks import ParameterError

def _first_species_spec():
    for name in core_tree.species_names():
        try:
            return core_tree.species_spec(name)
        except ParameterError:  # a broken species file must not stop the add-on from loading
            continue
    return core_tree.TreeSpec()


#: The first species (what the species picker shows on a new scene) gives every default.
_DEFAULTS = _first_species_spec()

_UI = {
    "name": ("Name", "Name of the tree objects (Name, Name_LOD0, Name_LOD1, ...)", {}),
    "seed": ("Seed", "Random seed: stochastic rules, jitter and leaf thinning", {}),
    "variants": ("Variants", "Trees per species in a forest, each from its own seed", {}),
    "axiom": ("Axiom", "The starting string of the L-system", {}),
    "rules": ("Rules", "Productions, one per line or separated by ';', e.g. 'F -> F[+F]F[-F]F'", {}),
    "constants": ("Constants", "Named numbers for parametric rules, 'name=value; name=value'", {}),
    "iterations": ("Iterations", "Derivation steps: how many times every rule is applied", {"soft_max": 12}),
    "angle": ("Angle", "Turning angle of + - & ^ \\ / (degrees)", {}),
    "step": ("Step", "Length of one F", {"subtype": "DISTANCE", "soft_max": 10.0}),
    "width": ("Width", "Diameter of the trunk where drawing starts", {"subtype": "DISTANCE", "soft_max": 5.0}),
    "width_decay": ("Width Decay", "Width multiplier for each !", {}),
    "length_decay": ("Length Decay", "Step multiplier for each \"", {}),
    "order_width_ratio": ("Branch Width", "Width multiplier for each branch order ([)", {}),
    "order_length_ratio": ("Branch Length", "Step multiplier for each branch order ([)", {}),
    "tropism": ("Tropism", "Direction branches bend towards (down for gravity, up for light)", {"subtype": "XYZ"}),
    "tropism_strength": ("Tropism Strength", "How strongly branches bend towards the tropism direction", {}),
    "jitter": ("Jitter", "Random variation of every angle (degrees)", {}),
    "leaf_size": ("Leaf Size", "Length of a leaf (~)", {"subtype": "DISTANCE", "soft_max": 2.0}),
    "sides": ("Ring Sides", "Sides of the bark tubes at LOD0", {}),
    "leaf_shape": ("Leaf Shape", "Outline of each leaf", {}),
    "leaf_width": ("Leaf Width", "Leaf width as a fraction of its length", {}),
    "lods": ("LODs", "Levels of detail (Name_LOD0, Name_LOD1, Name_LOD2)", {}),
    "billboard": ("Billboard", "Add crossed quads as the farthest LOD", {}),
    "uv_scale": ("UV Scale", "Bark texture repeats along the branches", {}),
    "bark_colour": ("Bark", "Bark colour", {"subtype": "COLOR", "min": 0.0, "max": 1.0}),
    "leaf_colour": ("Leaves", "Leaf colour", {"subtype": "COLOR", "min": 0.0, "max": 1.0}),
}

_SHAPE_LABELS = {"leaf": ("Leaf", "A pointed leaf outline (4 triangles)"),
                 "card": ("Card", "A quad with 0..1 UVs, for alpha-textured leaf atlases"),
                 "diamond": ("Diamond", "A rhombus (2 triangles)")}

#: TreeSpec fields shown as properties (``species`` is the preset picker, ``constants`` text).
TREE_FIELDS = tuple(f for f in core_tree.TreeSpec.__dataclass_fields__ if f not in ("species", "variants"))


def _prop(name, default, update=None):
    label, description, extra = _UI[name]
    kw = dict(name=label, description=description, **extra)
    if update is not None:
        kw["update"] = update
    kind, limits = core_tree.TREE_LIMITS.get(name, (None, None))
    if kind == "int":
        return bpy.props.IntProperty(default=default, min=limits[0], max=limits[1], **kw)
    if kind == "float":
        return bpy.props.FloatProperty(default=default, min=limits[0], max=limits[1], **kw)
    if kind == "choice":
        items = [(c, *_SHAPE_LABELS.get(c, (c.title(), c))) for c in limits]
        return bpy.props.EnumProperty(items=items, default=default, **kw)
    if isinstance(default, bool):
        return bpy.props.BoolProperty(default=default, **kw)
    if name == "constants":
        return bpy.props.StringProperty(default=constants_to_text(default), **kw)
    if name in core_tree.TEXT_LIMITS:
        return bpy.props.StringProperty(default=default, maxlen=core_tree.TEXT_LIMITS[name], **kw)
    if isinstance(default, str):
        return bpy.props.StringProperty(default=default, maxlen=48, **kw)
    if isinstance(default, tuple) and len(default) == 3:
        return bpy.props.FloatVectorProperty(default=default, size=3, **kw)
    raise TypeError(f"no property for {name}")


def tree_props(update=None):
    """``{name: bpy.props...}`` for every shown TreeSpec field."""
    return {name: _prop(name, getattr(_DEFAULTS, name), update) for name in TREE_FIELDS}


def constants_to_text(constants):
    return "; ".join(f"{k}={v:.9g}" for k, v in constants)


def constants_from_text(text):
    out = {}
    for part in filter(None, (p.strip() for p in text.replace("\n", ";").split(";"))):
        name, eq, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise ParameterError(f"constants must be 'name=value; name=value', got {part!r}") from None
        if not eq:
            raise ParameterError(f"constants must be 'name=value; name=value', got {part!r}")
    return out


@functools.lru_cache(maxsize=1)
def species_items():
    """Enum items of the shipped species: game species first, then ABOP's plants."""
    items = []
    for name in core_tree.species_names():
        try:
            info = core_tree.species_info(name)
        except ParameterError:
            continue
        items.append((name, info["label"], info["description"]))
    return items


def _decimal(value):
    """A float property's value as the shortest decimal that gives the same float32 (what the artist
    typed, or what a species file says), so the UI and a recipe grow the same bytes."""
    return float(np.format_float_positional(np.float32(value), unique=True, trim="0"))


def spec_from_props(props, *, rules=None, species=""):
    """A validated TreeSpec from an object holding :func:`tree_props` (``rules`` overrides its text)."""
    data = {name: getattr(props, name) for name in TREE_FIELDS}
    for name, value in data.items():
        if isinstance(value, float):
            data[name] = _decimal(value)
    for name in ("tropism", "bark_colour", "leaf_colour"):
        data[name] = tuple(_decimal(v) for v in data[name])
    data["constants"] = constants_from_text(props.constants)
    if rules is not None:
        data["rules"] = rules
    spec = core_tree.tree_spec(data, prefix="tree.")
    return dataclasses.replace(spec, species=species) if species else spec


def apply_spec_to_props(props, spec, *, keep=()):
    """Copy a TreeSpec into an object holding :func:`tree_props`, leaving the fields in ``keep``."""
    for name in TREE_FIELDS:
        if name in keep:
            continue
        value = getattr(spec, name)
        setattr(props, name, constants_to_text(value) if name == "constants" else value)


def _on_species(self, context):
    if self.species:
        apply_spec_to_props(self, core_tree.species_spec(self.species), keep=("seed",))
        self.rules_text = None


class WorldseedTreeSettings(bpy.types.PropertyGroup):
    __annotations__ = {
        **tree_props(),
        "species": bpy.props.EnumProperty(
            name="Species", items=lambda self, context: species_items(), update=_on_species,
            description="A tree species or one of ABOP's plants; choosing one loads its rules and settings"),
        "rules_text": bpy.props.PointerProperty(
            type=bpy.types.Text, name="Rules Text",
            description="A text (Text Editor) holding the rules; when set it is used instead of the Rules field"),
        "variants": _prop("variants", _DEFAULTS.variants),
        "forest_species": bpy.props.StringProperty(
            name="Forest Species", default="",
            description="Species of the forest, separated by commas; empty for the species above"),
    }

    def rules_source(self):
        """The rules as they will be used: from the Text datablock when one is set."""
        return self.rules_text.as_string() if self.rules_text is not None else self.rules


classes = (WorldseedTreeSettings,)
