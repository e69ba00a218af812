"""Trees from rules: a tree specification, the species that ship as data, and the pipeline.

``TreeSpec`` holds everything that decides a tree: the L-system (axiom,
rules, iterations, constants), the turtle (angles, lengths, widths, tropism,
jitter, leaves) and the mesh (ring sides, leaf shape, LODs, billboard,
colours).  :func:`grow_tree` runs the pipeline

    rules --(core.lsystem)--> Word --(core.turtle)--> Skeleton --(core.tree_mesh)--> LOD meshes

and returns a :class:`Tree`.  Species are TOML files in the extension's
``presets/trees`` folder (a ``[tree]`` table of ``TreeSpec`` fields plus a
``label``, ``group`` and ``description``), so a species is data, not code::

    label = "Broadleaf (oak-like)"
    group = "game"
    [tree]
    axiom = "A"
    rules = '''
    A -> F[&A]/////[&A]
    '''
    iterations = 6

>>> spec = species_spec("abop_1_24a")
>>> spec.axiom, spec.angle
('F', 25.7)
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import tomllib
from dataclasses import dataclass, fields

import numpy as np

from ._checks import ParameterError, check_bool, check_float, check_int, check_limited, check_object_name
from .mesh import IndexedMesh
from .skeleton import Skeleton

__all__ = ["TreeSpec", "Tree", "TREE_LIMITS", "SPECIES_DIR", "species_names", "species_info", "species_spec",
           "tree_spec", "tree_spec_dict", "dumps_spec", "loads_spec", "grow_skeleton", "grow_tree", "LEAF_SHAPES", "MAX_TREE_MODULES"]

#: Folder of the species files (``<extension root>/presets/trees``).
SPECIES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "presets", "trees")
LEAF_SHAPES = ("leaf", "card", "diamond")
#: Longest word a tree may grow to (a dense game tree is 10^4 .. 10^5 modules).
MAX_TREE_MODULES = 2_000_000
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\- ]{1,48}$")
CONSTANT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")

#: What each numeric or choice field allows: (kind, bounds or choices).
TREE_LIMITS = {
    "seed": ("int", (0, 2**31 - 1)),
    "iterations": ("int", (0, 30)),
    "angle": ("float", (-360.0, 360.0)),
    "step": ("float", (0.001, 1000.0)),
    "width": ("float", (0.0, 100.0)),
    "width_decay": ("float", (0.01, 1.5)),
    "length_decay": ("float", (0.01, 1.5)),
    "order_width_ratio": ("float", (0.01, 1.5)),
    "order_length_ratio": ("float", (0.01, 1.5)),
    "tropism_strength": ("float", (-1.0, 1.0)),
    "jitter": ("float", (0.0, 90.0)),
    "leaf_size": ("float", (0.001, 100.0)),
    "sides": ("int", (3, 32)),
    "leaf_shape": ("choice", LEAF_SHAPES),
    "leaf_width": ("float", (0.05, 2.0)),
    "lods": ("int", (1, 3)),
    "uv_scale": ("float", (0.01, 100.0)),
    "variants": ("int", (1, 100)),
}
TEXT_LIMITS = {"axiom": 10_000, "rules": 65_536}


@dataclass(frozen=True)
class TreeSpec:
    """Every parameter of one tree (all optional; the defaults grow ABOP fig. 1.24 a).

    L-system: ``axiom``, ``rules`` (see :mod:`core.lsystem` for the syntax),
    ``iterations``, ``constants`` (``((name, value), ...)`` usable in
    parametric expressions).  Turtle (see :func:`core.turtle.interpret`):
    ``angle`` (degrees), ``step`` (metres per ``F``), ``width`` (trunk
    diameter, metres), ``width_decay`` (per ``!``), ``length_decay`` (per
    ``"``), ``order_width_ratio`` / ``order_length_ratio`` (per branch
    order), ``tropism`` (direction) and ``tropism_strength``, ``jitter``
    (degrees), ``leaf_size`` (metres, per ``~``).  Mesh: ``sides`` of the
    bark rings, ``leaf_shape``, ``leaf_width`` (width / length), ``lods``
    (1 to 3 levels), ``billboard`` (a crossed-quad far LOD), ``uv_scale``,
    ``bark_colour``, ``leaf_colour`` (linear RGB).  Output: ``name`` and
    ``seed``; ``variants`` is how many seeds a forest grows; ``species``
    names the species file the spec started from.
    """
    name: str = "Tree"
    species: str = ""
    seed: int = 0
    variants: int = 4
    axiom: str = "F"
    rules: str = "F -> F[+F]F[-F]F"
    iterations: int = 5
    constants: tuple = ()
    angle: float = 25.7
    step: float = 0.1
    width: float = 0.05
    width_decay: float = 0.7
    length_decay: float = 1.0
    order_width_ratio: float = 1.0
    order_length_ratio: float = 1.0
    tropism: tuple = (0.0, 0.0, -1.0)
    tropism_strength: float = 0.0
    jitter: float = 0.0
    leaf_size: float = 0.3
    sides: int = 6
    leaf_shape: str = "leaf"
    leaf_width: float = 0.5
    lods: int = 3
    billboard: bool = False
    uv_scale: float = 1.0
    bark_colour: tuple = (0.20, 0.12, 0.07)
    leaf_colour: tuple = (0.10, 0.30, 0.05)


@dataclass(frozen=True, eq=False)
class Tree:
    """A grown tree: its skeleton, its LOD meshes (LOD0 first) and the optional billboard."""
    spec: TreeSpec
    skeleton: Skeleton
    lods: tuple
    billboard: IndexedMesh | None
    modules: int

    @property
    def height(self):
        """Height of LOD0 above its base, metres."""
        v = self.lods[0].vertices
        return float(v[:, 2].max() - min(0.0, float(v[:, 2].min()))) if len(v) else 0.0


def _check_colour(value, name):
    try:
        rgb = tuple(value)
    except TypeError:
        raise ParameterError(f"{name} must be [r, g, b] with values in [0, 1], got {value!r}") from None
    if len(rgb) != 3:
        raise ParameterError(f"{name} must be [r, g, b] with values in [0, 1], got {value!r}")
    return tuple(check_float(c, name=f"{name}[{i}]", bounds=(0.0, 1.0)) for i, c in enumerate(rgb))


def _check_field(key, value, prefix):
    name = f"{prefix}{key}"
    if key in TREE_LIMITS:
        return check_limited(value, name=name, limit=TREE_LIMITS[key])
    if key == "name":
        return check_object_name(value, name=name, pattern=NAME_PATTERN)
    if key == "species":
        if not isinstance(value, str):
            raise ParameterError(f"{name} must be a species name, got {value!r}")
        return value
    if key in TEXT_LIMITS:
        if not isinstance(value, str) or len(value) > TEXT_LIMITS[key]:
            raise ParameterError(f"{name} must be text of at most {TEXT_LIMITS[key]:,} characters, "
                                 f"got {type(value).__name__} of length {len(value) if isinstance(value, str) else '-'}")
        if key == "axiom" and not value.strip():
            raise ParameterError(f"{name} must not be empty")
        return value
    if key == "constants":
        items = value.items() if isinstance(value, dict) else value
        out = []
        try:
            for cname, cvalue in items:
                if not isinstance(cname, str) or not CONSTANT_NAME.match(cname):
                    raise ParameterError(f"{name}: constant name must be an identifier, got {cname!r}")
                out.append((cname, check_float(cvalue, name=f"{name}.{cname}")))
        except (TypeError, ValueError) as err:
            if isinstance(err, ParameterError):
                raise
            raise ParameterError(f"{name} must be a table of name = number, got {value!r}") from None
        return tuple(sorted(out))
    if key == "tropism":
        try:
            vec = tuple(value)
        except TypeError:
            vec = ()
        if len(vec) != 3:
            raise ParameterError(f"{name} must be a direction [x, y, z], got {value!r}")
        return tuple(check_float(c, name=f"{name}[{i}]", bounds=(-1e3, 1e3)) for i, c in enumerate(vec))
    if key in ("bark_colour", "leaf_colour"):
        return _check_colour(value, name)
    return check_bool(value, name=name)


_FIELDS = tuple(f.name for f in fields(TreeSpec))


def tree_spec(data=None, *, base=None, prefix="tree."):
    """A validated :class:`TreeSpec` from a dict of fields (unknown keys refused).

    ``data`` may name a ``species``: the species file gives the starting values
    and the other keys override them (``base`` gives them when no species is
    named).  Errors name the key as ``<prefix><key>``.
    """
    data = dict(data or {})
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        hints = [f"{b!r} -> {m[0]!r}" for b in unknown for m in [difflib.get_close_matches(b, _FIELDS, 1)] if m]
        hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
        raise ParameterError(f"unknown key(s) {unknown} in {prefix.rstrip('.') or 'tree'}{hint}; "
                             f"allowed: {sorted(_FIELDS)}")
    start = base if base is not None else TreeSpec()
    if data.get("species"):
        start = species_spec(_check_field("species", data["species"], prefix))
    values = {k: _check_field(k, v, prefix) for k, v in data.items()}
    if "tropism" in values and not any(values["tropism"]) and values.get("tropism_strength", start.tropism_strength):
        raise ParameterError(f"{prefix}tropism must not be [0, 0, 0] when tropism_strength is not 0")
    return dataclasses.replace(start, **values)


def tree_spec_dict(spec):
    """The spec as a dict of plain TOML values (``constants`` as a table)."""
    out = {}
    for f in fields(spec):
        value = getattr(spec, f.name)
        if f.name == "constants":
            value = dict(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


# -- species files -------------------------------------------------------------------------------------------


def _species_path(name):
    return os.path.join(SPECIES_DIR, f"{name}.toml")


def species_names():
    """Identifiers of the shipped species (file names without ``.toml``), game species first."""
    if not os.path.isdir(SPECIES_DIR):
        return []
    names = sorted(f[:-5] for f in os.listdir(SPECIES_DIR) if f.endswith(".toml"))

    def group(name):
        try:
            return species_info(name)["group"]
        except ParameterError:  # unreadable: listed last; loading it gives the error
            return "~"
    return sorted(names, key=lambda n: (group(n) != "game", group(n) == "~", n))


def _read_species(name):
    if not isinstance(name, str) or not re.match(r"^[a-z0-9_]{1,48}$", name) or not os.path.isfile(
            _species_path(name)):
        known = [f[:-5] for f in sorted(os.listdir(SPECIES_DIR)) if f.endswith(".toml")] \
            if os.path.isdir(SPECIES_DIR) else []
        close = difflib.get_close_matches(str(name), known, 1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ParameterError(f"species {name!r} not found{hint}; known species: {', '.join(known)}")
    with open(_species_path(name), "rb") as fh:
        try:
            return tomllib.load(fh)
        except tomllib.TOMLDecodeError as err:
            raise ParameterError(f"species file {_species_path(name)!r} is not valid TOML: {err}") from None


def species_info(name):
    """``{"label", "group", "description"}`` of a species file."""
    data = _read_species(name)
    return {"label": data.get("label", name.replace("_", " ").title()),
            "group": data.get("group", "game"),
            "description": data.get("description", "")}


def species_spec(name):
    """The :class:`TreeSpec` a species file describes (``species`` set to its identifier)."""
    data = _read_species(name)
    table = dict(data.get("tree", {}))
    table.pop("species", None)
    spec = tree_spec(table, prefix=f"species {name}: tree.")
    return dataclasses.replace(spec, species=name)


# -- the pipeline --------------------------------------------------------------------------------------------


def _turtle_options(spec):
    return dict(angle=spec.angle, step=spec.step, width=spec.width, width_decay=spec.width_decay,
                length_decay=spec.length_decay, order_width_ratio=spec.order_width_ratio,
                order_length_ratio=spec.order_length_ratio, tropism=spec.tropism,
                tropism_strength=spec.tropism_strength, jitter=spec.jitter, leaf_size=spec.leaf_size)


def _seeds(seed):
    """Independent seeds for rewriting, turtle and mesh from one user seed."""
    ss = np.random.SeedSequence(check_int(seed, name="seed", bounds=TREE_LIMITS["seed"][1]))
    return [int(s.generate_state(1, np.uint64)[0] >> np.uint64(1)) for s in ss.spawn(3)]


def grow_skeleton(spec, *, seed=None, max_modules=MAX_TREE_MODULES):
    """Rewrite and interpret ``spec``'s L-system; returns ``(Skeleton, number of modules)``."""
    from . import lsystem, turtle
    s_rules, s_turtle, _ = _seeds(spec.seed if seed is None else seed)
    system = lsystem.parse(spec.axiom, spec.rules, constants=dict(spec.constants))
    word = lsystem.expand(system, spec.iterations, seed=s_rules, max_modules=max_modules)
    skeleton = turtle.interpret(word, seed=s_turtle, **_turtle_options(spec))
    return skeleton, len(word)


def grow_tree(spec, *, seed=None, max_modules=MAX_TREE_MODULES):
    """Grow the tree ``spec`` describes (with ``seed`` instead of ``spec.seed`` if given)."""
    from . import tree_mesh
    seed = spec.seed if seed is None else seed
    skeleton, modules = grow_skeleton(spec, seed=seed, max_modules=max_modules)
    if skeleton.n_segments == 0 and len(skeleton.leaves) == 0 and not skeleton.polygons:
        raise ParameterError(f"tree {spec.name!r}: the rules draw nothing after {spec.iterations} iterations "
                             f"({modules:,} modules, no F or G); check the axiom and rules")
    s_mesh = _seeds(seed)[2]
    lods = tree_mesh.tree_lods(skeleton, levels=spec.lods, sides=spec.sides, leaf_shape=spec.leaf_shape,
                               leaf_width=spec.leaf_width, uv_scale=spec.uv_scale, seed=s_mesh)
    billboard = tree_mesh.billboard_mesh(lods[0].vertices) if spec.billboard and lods[0].n_vertices else None
    return Tree(spec=dataclasses.replace(spec, seed=seed), skeleton=skeleton, lods=tuple(lods),
                billboard=billboard, modules=modules)


def dumps_spec(spec):
    """``spec`` as TOML text (a ``[tree]`` table) that :func:`loads_spec` reads back equal."""
    from ._toml import toml_table
    return "[tree]\n" + "\n".join(toml_table(tree_spec_dict(spec))) + "\n"


def loads_spec(text, *, source="tree"):
    """Inverse of :func:`dumps_spec`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ParameterError(f"{source}: not valid TOML: {err}") from None
    table = dict(data.get("tree", {}))
    species = table.pop("species", "")
    spec = tree_spec(table, prefix=f"{source}: tree.")
    return dataclasses.replace(spec, species=species)
