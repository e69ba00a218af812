"""World recipes: TOML files that hold every parameter and the seed.

A recipe drives the UI presets, the redo panel and the headless batch run
alike. It is parsed with the standard library's ``tomllib`` into frozen
dataclasses and validated here, with no Blender in sight, so a malformed file
fails with one message naming the file, the key, the value and what is allowed.

The sections are ``[world]``, ``[terrain]`` and ``[export]``; every key is
optional and defaults to the values below. Unknown keys are refused (a typo
would otherwise be silently ignored)::

    [world]
    name = "Valley"
    seed = 7

    [terrain]
    resolution = 257
    size = 512.0
    height = 90.0
    octaves = 6

>>> r = loads('[world]\\nseed = 3\\n[terrain]\\nresolution = 65\\n')
>>> (r.world.seed, r.terrain.resolution, r.terrain.octaves)
(3, 65, 6)
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from dataclasses import dataclass, field, fields

from . import heightmap, noise, palette
from . import scatter_spec as _scatter
from . import tree as _tree
from ._toml import toml_table
from ._toml import toml_value as _toml_value
from ._checks import ParameterError, check_bool, check_float, check_limited, check_object_name

__all__ = [
    "Recipe", "WorldSpec", "TerrainSpec", "ExportSpec", "RecipeError",
    "loads", "load", "dumps", "from_dict", "to_dict", "FIELD_LIMITS",
]

#: Seeds are stored in Blender IntProperties, which are 32-bit signed.
SEED = (0, 2**31 - 1)
#: Vertices per terrain side. 4097 is Unity's largest heightmap resolution.
RESOLUTION = (2, 4097)
#: Terrain side length and height in metres.
SIZE = (1.0, 100_000.0)
HEIGHT = (0.0, 20_000.0)
OFFSET = (-1.0e7, 1.0e7)
#: Feature size of the first octave, in metres.
SCALE_M = (0.01, 1.0e6)
LODS = (1, 4)
NORMALIZE_MODES = ("stretch", "fixed")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\- ]{1,48}$")


class RecipeError(ParameterError):
    """A recipe file or value is malformed."""


# One table of what each numeric field allows: (kind, bounds or choices).
# The Blender property groups read their min/max from here, so every range is written once.
FIELD_LIMITS = {
    "seed": ("int", SEED),
    "resolution": ("int", RESOLUTION),
    "size": ("float", SIZE),
    "height": ("float", HEIGHT),
    "scale": ("float", SCALE_M),
    "octaves": ("int", noise.OCTAVES),
    "persistence": ("float", noise.PERSISTENCE),
    "lacunarity": ("float", noise.LACUNARITY),
    "warp": ("float", noise.WARP),
    "basis": ("choice", noise.BASES),
    "kind": ("choice", noise.KINDS),
    "normalize": ("choice", NORMALIZE_MODES),
    "falloff": ("choice", heightmap.FALLOFF_MODES),
    "falloff_width": ("float", heightmap.FALLOFF_WIDTH),
    "redistribution": ("float", heightmap.POWER),
    "terraces": ("int", heightmap.TERRACES),
    "terrace_sharpness": ("float", heightmap.SHARPNESS),
    "sea_level": ("float", heightmap.SEA_LEVEL),
    "palette": ("choice", palette.PALETTE_NAMES),
    "lods": ("int", LODS),
}


@dataclass(frozen=True)
class WorldSpec:
    """``[world]``: the name given to generated objects and the master seed."""
    name: str = "World"
    seed: int = 0


@dataclass(frozen=True)
class TerrainSpec:
    """``[terrain]``: one square terrain tile.

    ``resolution`` vertices per side over ``size`` metres (so the cell size is
    ``size / (resolution - 1)``), heights from 0 to ``height`` metres.
    ``offset`` is the tile's position in metres; tiles whose offsets differ by
    a whole number of cells share their edges exactly. The noise keys
    (``basis``, ``kind``, ``scale`` in metres, ``octaves``, ``persistence``,
    ``lacunarity``, ``warp``) go to :func:`core.noise.fbm`; the shaping keys
    are applied in order: normalize, falloff, redistribution, terraces,
    curve, sea level.
    """
    resolution: int = 257
    size: float = 512.0
    height: float = 80.0
    offset: tuple = (0.0, 0.0)
    basis: str = "perlin"
    kind: str = "fbm"
    scale: float = 256.0
    octaves: int = 6
    persistence: float = 0.5
    lacunarity: float = 2.0
    warp: float = 0.0
    normalize: str = "stretch"
    falloff: str = "none"
    falloff_width: float = 0.35
    redistribution: float = 1.0
    terraces: int = 0
    terrace_sharpness: float = 0.6
    curve: tuple = ((0.0, 0.0), (1.0, 1.0))
    sea_level: float = 0.0
    lods: int = 1
    material: bool = True
    palette: str = "temperate"
    enabled: bool = True

    @property
    def cell_size(self):
        """Metres between neighbouring vertices."""
        return self.size / (self.resolution - 1)


@dataclass(frozen=True)
class ExportSpec:
    """``[export]``: what the batch run writes besides the .blend."""
    fbx: bool = True
    glb: bool = False
    per_object: bool = False
    heightmap_raw: bool = False
    preview: bool = True
    render: bool = False
    placements: bool = False


@dataclass(frozen=True)
class Recipe:
    world: WorldSpec = field(default_factory=WorldSpec)
    terrain: TerrainSpec = field(default_factory=TerrainSpec)
    export: ExportSpec = field(default_factory=ExportSpec)
    trees: tuple = ()
    scatter: tuple = ()


_SECTIONS = {"world": WorldSpec, "terrain": TerrainSpec, "export": ExportSpec}


def _check_value(section, key, value):
    name = f"{section}.{key}"
    if key in FIELD_LIMITS:
        return check_limited(value, name=name, limit=FIELD_LIMITS[key])
    if key == "name":
        return check_object_name(value, name=name, pattern=NAME_PATTERN)
    if key == "offset":
        try:
            x, y = value
        except (TypeError, ValueError):
            raise RecipeError(f"{name} must be a pair of numbers [x, y] in metres, got {value!r}") from None
        return (check_float(x, name=f"{name}[0]", bounds=OFFSET), check_float(y, name=f"{name}[1]", bounds=OFFSET))
    if key == "curve":
        return _check_curve(value, name=name)
    return check_bool(value, name=name)


def _check_curve(value, *, name):
    try:
        points = [tuple(p) for p in value]
    except TypeError:
        raise RecipeError(f"{name} must be a list of [x, y] points, got {value!r}") from None
    if not 2 <= len(points) <= 32:
        raise RecipeError(f"{name} must have 2 to 32 points, got {len(points)}")
    out = []
    for i, p in enumerate(points):
        if len(p) != 2:
            raise RecipeError(f"{name}[{i}] must be an [x, y] pair, got {list(p)!r}")
        out.append((check_float(p[0], name=f"{name}[{i}].x", bounds=(0.0, 1.0)),
                    check_float(p[1], name=f"{name}[{i}].y", bounds=(0.0, 1.0))))
    out.sort()
    xs = [p[0] for p in out]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise RecipeError(f"{name} x values must all differ, got {xs}")
    return tuple(out)


def _cross_checks(recipe):
    if recipe.scatter and not recipe.terrain.enabled:
        raise RecipeError("[[scatter]] layers need a terrain to stand on, but terrain.enabled is false")
    t = recipe.terrain
    feature_cells = t.scale / t.cell_size
    if feature_cells < 1e-3:
        raise RecipeError(
            f"terrain.scale {t.scale:g} m is below a thousandth of the cell size {t.cell_size:g} m; "
            "use a scale of at least size / (resolution - 1) / 1000")
    min_res = 2 ** (t.lods - 1) + 1
    if t.resolution < min_res:
        raise RecipeError(f"terrain.lods {t.lods} needs terrain.resolution >= {min_res}, got {t.resolution}")


MAX_TREE_ENTRIES = 64


def _trees(value, *, source):
    """``[[trees]]`` entries: each a table of :class:`core.tree.TreeSpec` fields, usually a ``species``
    plus the keys that differ from it."""
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise RecipeError(f"{source}: trees must be written as [[trees]] tables, got {value!r}")
    if len(value) > MAX_TREE_ENTRIES:
        raise RecipeError(f"{source}: at most {MAX_TREE_ENTRIES} [[trees]] entries, got {len(value)}")
    out = []
    from . import lsystem
    for i, table in enumerate(value):
        try:
            spec = _tree.tree_spec(table, prefix=f"trees[{i}].")
            lsystem.parse(spec.axiom, spec.rules, constants=dict(spec.constants))  # rule errors before any work
        except ParameterError as err:
            raise RecipeError(f"{source}: trees[{i}]: {err}" if not str(err).startswith("trees[")
                              else f"{source}: {err}") from None
        out.append(spec)
    return tuple(out)


def _scatter_layers(value, *, source):
    """``[[scatter]]`` entries: one :class:`core.scatter_spec.LayerSpec` each, in order."""
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise RecipeError(f"{source}: scatter layers must be written as [[scatter]] tables, got {value!r}")
    if len(value) > _scatter.MAX_LAYERS:
        raise RecipeError(f"{source}: at most {_scatter.MAX_LAYERS} [[scatter]] layers, got {len(value)}")
    try:
        return tuple(_scatter.layer_spec(t, prefix=f"scatter[{i}].") for i, t in enumerate(value))
    except ParameterError as err:
        raise RecipeError(f"{source}: {err}") from None


def from_dict(data, *, source="recipe"):
    """Validate a nested dict (as parsed from TOML) into a :class:`Recipe`."""
    if not isinstance(data, dict):
        raise RecipeError(f"{source}: a recipe must be a table of sections, got {type(data).__name__}")
    data = dict(data)
    trees = _trees(data.pop("trees"), source=source) if "trees" in data else ()
    scatter = _scatter_layers(data.pop("scatter"), source=source) if "scatter" in data else ()
    unknown = sorted(set(data) - set(_SECTIONS))
    if unknown:
        loose = [k for k in unknown if not isinstance(data[k], dict)]
        if loose:
            raise RecipeError(f"{source}: key(s) {loose} stand outside any section; put them under "
                              f"[world], [terrain], [export], [[trees]] or [[scatter]]")
        names = [*_SECTIONS, "trees", "scatter"]
        hints = [f"{u!r} -> {m[0]!r}" for u in unknown for m in [difflib.get_close_matches(u, names, 1)] if m]
        hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
        raise RecipeError(f"{source}: unknown section(s) {unknown}{hint}; allowed: [world], [terrain], [export], "
                          f"[[trees]], [[scatter]]")
    parts = {}
    for section, cls in _SECTIONS.items():
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise RecipeError(f"{source}: [{section}] must be a table, got {table!r}")
        allowed = {f.name for f in fields(cls)}
        bad = sorted(set(table) - allowed)
        if bad:
            hints = [f"{b!r} -> {m[0]!r}" for b in bad for m in [difflib.get_close_matches(b, allowed, 1)] if m]
            hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
            raise RecipeError(f"{source}: unknown key(s) {bad} in [{section}]{hint}; allowed: {sorted(allowed)}")
        try:
            parts[section] = cls(**{k: _check_value(section, k, v) for k, v in table.items()})
        except ParameterError as err:
            raise RecipeError(f"{source}: {err}") from None
    recipe = Recipe(**parts, trees=trees, scatter=scatter)
    try:
        _cross_checks(recipe)
    except ParameterError as err:
        raise RecipeError(f"{source}: {err}") from None
    return recipe


def loads(text, *, source="recipe"):
    """Parse and validate recipe text (TOML)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RecipeError(f"{source}: not valid TOML: {err}") from None
    return from_dict(data, source=source)


def load(path):
    """Read and validate a recipe file."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as err:
        raise RecipeError(f"recipe file {str(path)!r} cannot be read: {err.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecipeError(f"recipe file {str(path)!r} is not UTF-8 text") from None
    return loads(text, source=str(path))


def to_dict(recipe):
    """The recipe as a nested dict of plain TOML values."""
    out = {}
    for section in _SECTIONS:
        spec = getattr(recipe, section)
        table = {}
        for f in fields(spec):
            value = getattr(spec, f.name)
            if isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            table[f.name] = value
        out[section] = table
    if recipe.trees:
        out["trees"] = [_tree.tree_spec_dict(t) for t in recipe.trees]
    if recipe.scatter:
        out["scatter"] = [_scatter.layer_spec_dict(t) for t in recipe.scatter]
    return out




def dumps(recipe):
    """Write a recipe as TOML text that :func:`loads` reads back equal."""
    lines = ["# Worldseed recipe"]
    for section, table in to_dict(recipe).items():
        if section in ("trees", "scatter"):
            for entry in table:
                lines.append(f"\n[[{section}]]")
                lines.extend(toml_table(entry))
            continue
        lines.append(f"\n[{section}]")
        lines.extend(f"{key} = {_toml_value(value)}" for key, value in table.items())
    return "\n".join(lines) + "\n"


def replace(recipe, **sections):
    """A copy of ``recipe`` with whole sections or ``section_key=value`` fields replaced, validated."""
    data = to_dict(recipe)
    for key, value in sections.items():
        section, _, name = key.partition("_")
        if key in _SECTIONS:
            data[key] = to_dict(Recipe(**{key: value}))[key] if dataclasses.is_dataclass(value) else value
        elif section in _SECTIONS and name:
            data[section][name] = value
        else:
            raise RecipeError(f"replace: unknown field {key!r}")
    return from_dict(data)
