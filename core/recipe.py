"""World recipes: TOML files that hold every parameter and the seed.

A recipe drives the UI presets, the redo panel and the headless batch run
alike. It is parsed with the standard library's ``tomllib`` into frozen
dataclasses and validated here, with no Blender in sight, so a malformed file
fails with one message naming the file, the key, the value and what is allowed.

The sections are listed once, in :data:`SECTIONS`, in the order a world is
built: ``[world]``, ``[terrain]`` (with ``[terrain.erosion]``), ``[biomes]``, ``[[splat]]``,
``[[trees]]``, ``[[scatter]]``, ``[[level]]``, ``[export]``.  That registry drives parsing, the
error messages, :func:`to_dict`, :func:`dumps`, the headless build order and the sidebar; a new generator
family is one more entry.  Every key is optional and defaults to the values
of its spec. Unknown keys are refused (a typo would otherwise be silently
ignored)::

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
import json
import os
import re
import tomllib
from dataclasses import dataclass, field

from . import levels, scatter, terrain, trees
from ._recipe_checks import (
    biomes_from_dict,
    check_biomes,
    check_deposit_rules,
    check_levels,
    check_scatter,
    check_splats,
    check_trees,
    splat_from_dict,
)
from ._toml import toml_table, toml_value
from ._world_section import (
    HALO,
    MAX_TILE_COUNT,
    TILE_RESOLUTIONS,
    TILES,
    WORLD_LIMITS,
    WorldSpec,
    check_tiles,
    check_world,
    tiles_fix_normalize,
)
from .biomes import spec as biome_spec
from .errors import ParameterError, RecipeError, short
from .spec import closest, flag, from_table, to_table

__all__ = [
    "Recipe",
    "WorldSpec",
    "WORLD_LIMITS",
    "TILES",
    "MAX_TILE_COUNT",
    "TILE_RESOLUTIONS",
    "HALO",
    "check_tiles",
    "check_world",
    "ExportSpec",
    "TerrainSpec",
    "RecipeError",
    "Section",
    "SECTIONS",
    "SECTION_KEYS",
    "TILED",
    "check_tiled",
    "loads",
    "load",
    "dumps",
    "from_dict",
    "to_dict",
    "replace",
    "MAX_RECIPE_BYTES",
    "check_deposit_rules",
]

TerrainSpec = terrain.TerrainSpec
#: Largest recipe file read (a recipe is a few kilobytes; /dev/zero must not fill the memory).
MAX_RECIPE_BYTES = 1 << 20
#: Deepest nesting of arrays and tables a recipe may have.
MAX_DEPTH = 32
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class ExportSpec:
    """``[export]``: what a world writes besides the .blend (the batch run and Export for Unity alike)."""

    fbx: bool = True
    glb: bool = False
    per_object: bool = False
    heightmap_raw: bool = False
    preview: bool = True
    render: bool = False
    placements: bool = False


EXPORT_LIMITS = {
    "fbx": flag("FBX", "Write an FBX file for Unity"),
    "glb": flag("glTF Binary", "Also write a .glb file"),
    "per_object": flag("One File per Object", "Write one file per object instead of one for all"),
    "heightmap_raw": flag("Unity RAW Heightmap", "Also write a 16-bit RAW heightmap for Unity's Terrain"),
    "preview": flag("Relief Map", "Write a shaded-relief map, relief.png"),
    "render": flag("Render", "Write a 3-D preview render, preview.png (Workbench; needs OpenGL)"),
    "placements": flag("Placement File", "Write the scattered props' Unity positions, rotations and scales as JSON"),
}


def _world_from_dict(table, *, prefix):
    return from_table(WorldSpec, WORLD_LIMITS, table, prefix=prefix)


def _export_from_dict(table, *, prefix):
    return from_table(ExportSpec, EXPORT_LIMITS, table, prefix=prefix)


#: Most ``[[level]]`` tables a recipe may hold.
MAX_LEVELS = 32


#: What a tiled world may do with a section (:attr:`Section.tiled`).
TILED = ("per_tile", "once", "refuse")


def _terrain_size(recipe):
    return recipe.terrain.size if recipe.terrain.enabled else None


@dataclass(frozen=True)
class Section:
    """One recipe section: a table (``[terrain]``) or a list of tables (``[[trees]]``).

    ``spec`` is its frozen dataclass and ``limits`` the table of its fields;
    ``parse(table, prefix=...)`` validates one table into a spec and
    ``dump(spec)`` writes it back as plain values.  ``many`` sections hold up
    to ``max_entries`` specs in a tuple.  ``check(recipe)``, when given, checks
    the section against the others once the whole recipe is read.  ``label``
    names the section in the sidebar; ``build`` says whether a world build
    makes something of it (``[world]`` and ``[export]`` only configure).
    ``package`` names the family's core package when it is not the key
    (``[[level]]`` tables, ``core/levels/``); the other files are named by the key.
    ``paths``: the section names files relative to the recipe, and ``parse`` takes ``base=``
    (the recipe's folder, or None) to find them.
    ``tiled`` is what a tiled world (``[world] tiles`` other than ``[1, 1]``) does with the
    section, one of :data:`TILED`: ``"per_tile"`` (every tile is built from it), ``"once"`` (built
    once for the whole world, in world coordinates, by the Blender side: ``operators/bridge``'s
    ``world_export.export_once``) or ``"refuse"`` (a tiled recipe holding it is refused, the
    reason in ``tiled_note``); ``tiled_note`` says what it becomes, in one line.  A section without
    a decision is refused in a tiled world too (:func:`check_tiled`): never silently dropped.
    """

    key: str
    spec: type
    limits: dict
    parse: object
    dump: object
    many: bool = False
    max_entries: int = 1
    check: object = None
    label: str = ""
    build: bool = True
    package: str = ""
    paths: bool = False
    tiled: str = ""
    tiled_note: str = ""

    @property
    def header(self):
        """How the section is written in TOML: ``[terrain]`` or ``[[trees]]``."""
        return f"[[{self.key}]]" if self.many else f"[{self.key}]"

    @property
    def default(self):
        return () if self.many else self.spec()


#: Every recipe section, in build order. A new generator family is one more entry here.
SECTIONS = (
    Section(
        "world",
        WorldSpec,
        WORLD_LIMITS,
        _world_from_dict,
        to_table,
        check=check_world,
        label="World",
        build=False,
        tiled="per_tile",
        tiled_note="the grid, name and seed every tile is built from",
    ),
    Section(
        "terrain",
        terrain.TerrainSpec,
        terrain.LIMITS,
        terrain.from_dict,
        terrain.to_dict,
        label="Terrain",
        tiled="per_tile",
        tiled_note="each tile's heights and LOD meshes, seamless at the borders",
    ),
    # the terrain's layers: built with the terrain (core.terrain.terrain_layers_steps), not on their own
    Section(
        "biomes",
        biome_spec.BiomesSpec,
        biome_spec.BIOMES_LIMITS,
        biomes_from_dict,
        biome_spec.biomes_to_dict,
        check=check_biomes,
        label="Biomes",
        build=False,
        package="biomes",
        paths=True,
        tiled="per_tile",
        tiled_note="each tile's biome map, from the world's moisture and temperature",
    ),
    Section(
        "splat",
        biome_spec.SplatSpec,
        biome_spec.SPLAT_LIMITS,
        splat_from_dict,
        biome_spec.splat_to_dict,
        many=True,
        max_entries=biome_spec.MAX_LAYERS,
        check=check_splats,
        label="Texture Layers",
        build=False,
        package="biomes",
        paths=True,
        tiled="per_tile",
        tiled_note="each tile's splat maps",
    ),
    Section(
        "trees",
        trees.TreeSpec,
        trees.LIMITS,
        trees.from_dict,
        trees.to_dict,
        many=True,
        max_entries=64,
        check=check_trees,
        label="Trees",
        tiled="once",
        tiled_note="the trees once, in rows in front of the world, as <name>_trees.fbx",
    ),
    Section(
        "scatter",
        scatter.LayerSpec,
        scatter.LIMITS,
        scatter.from_dict,
        scatter.to_dict,
        many=True,
        max_entries=scatter.MAX_LAYERS,
        check=check_scatter,
        label="Scatter",
        tiled="per_tile",
        tiled_note="each tile's props (placement file), spaced across the borders; the props once, <name>_props.fbx",
    ),
    Section(
        "level",
        levels.LevelSpec,
        levels.LIMITS,
        levels.from_dict,
        levels.to_dict,
        many=True,
        max_entries=MAX_LEVELS,
        check=check_levels,
        label="Levels",
        package="levels",
        paths=True,
        tiled="once",
        tiled_note="each level once at its origin in world coordinates: <name>_level.fbx and the level's own files",
    ),
    Section(
        "export",
        ExportSpec,
        EXPORT_LIMITS,
        _export_from_dict,
        to_table,
        label="Export",
        build=False,
        tiled="per_tile",
        tiled_note="fbx: each tile's FBX and the world's; glb, per_object and render are not used (a note says so)",
    ),
)
SECTION_KEYS = tuple(s.key for s in SECTIONS)
_BY_KEY = {s.key: s for s in SECTIONS}

Recipe = dataclasses.make_dataclass(
    "Recipe", [(s.key, object, field(default_factory=lambda s=s: s.default)) for s in SECTIONS], frozen=True
)
Recipe.__module__ = __name__
Recipe.__doc__ = """A whole world: one attribute per entry of :data:`SECTIONS` (a spec, or a tuple of them)."""


def check_tiled(recipe, sections=SECTIONS):
    """Refuse a tiled ``recipe`` (``[world] tiles`` other than ``[1, 1]``) holding a section that a tiled
    world does not build (:attr:`Section.tiled` ``"refuse"``, or no decision): one line naming it.
    ``sections``: the registry to read (:data:`SECTIONS`)."""
    tiles = list(recipe.world.tiles)
    if tiles == [1, 1]:
        return
    for section in sections:
        value = getattr(recipe, section.key)
        if section.tiled in ("per_tile", "once") or value == section.default:
            continue
        why = section.tiled_note if section.tiled == "refuse" else "the section has no tiled-world decision"
        raise ParameterError(f"{section.header} is not built in a tiled world (world.tiles {tiles}): {why}")


def _check_depth(value, *, source, depth=0):
    """Refuse absurdly nested arrays or tables before anything walks them recursively."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            raise RecipeError(f"{source}: values nest deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)


def _allowed_sections():
    return ", ".join(s.header for s in SECTIONS)


def _parse_section(section, value, *, source, base=None):
    extra = {"base": base} if section.paths else {}
    if not section.many:
        if not isinstance(value, dict):
            raise RecipeError(f"{source}: {section.header} must be a table, got {short(value)}")
        return section.parse(value, prefix=f"{section.key}.", **extra)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise RecipeError(f"{source}: {section.key} must be written as {section.header} tables, got {short(value)}")
    if len(value) > section.max_entries:
        raise RecipeError(f"{source}: at most {section.max_entries} {section.header} entries, got {len(value)}")
    specs = []
    for i, table in enumerate(value):
        try:
            specs.append(section.parse(table, prefix=f"{section.key}[{i}].", **extra))
        except ParameterError as err:
            named = str(err).startswith(f"{section.key}[{i}]")
            raise RecipeError(err if named else f"{section.key}[{i}]: {err}") from None
    return tuple(specs)


def from_dict(data, *, source="recipe", base=None):
    """Validate a nested dict (as parsed from TOML) into a :class:`Recipe`.

    ``base`` is the folder the recipe's relative file paths (a level's ``tileset`` or ``sample``)
    are found in; the recipe keeps them as absolute paths.  None: they stay relative, found in the
    current directory when used.
    """
    if not isinstance(data, dict):
        raise RecipeError(f"{source}: a recipe must be a table of sections, got {type(data).__name__}")
    _check_depth(data, source=source)
    unknown = sorted(set(data) - set(SECTION_KEYS), key=str)
    if unknown:
        loose = [k if len(k) <= 40 else k[:37] + "..." for k in unknown if not isinstance(data[k], (dict, list))]
        if loose:
            raise RecipeError(
                f"{source}: key(s) {loose} stand outside any section; put them under {_allowed_sections()}"
            )
        hints = [f"{short(u, 40)} -> {m!r}" for u in unknown for m in [closest(u, SECTION_KEYS)] if m]
        hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
        raise RecipeError(
            f"{source}: unknown section(s) {[u if len(u) <= 40 else u[:37] + '...' for u in unknown]}"
            f"{hint}; allowed: "
            f"{_allowed_sections()}"
        )
    parts = {}
    try:
        for section in SECTIONS:
            if section.key in data:
                parts[section.key] = _parse_section(section, data[section.key], source=source, base=base)
        recipe = tiles_fix_normalize(Recipe(**parts), data)
        for section in SECTIONS:
            if section.check is not None:
                section.check(recipe)
        check_tiled(recipe)
    except RecipeError as err:
        raise RecipeError(err if str(err).startswith(f"{source}:") else f"{source}: {err}") from None
    except ParameterError as err:
        raise RecipeError(f"{source}: {err}") from None
    return recipe


def loads(text, *, source="recipe", base=None):
    """Parse and validate recipe text (TOML); ``base`` as in :func:`from_dict`."""
    if len(text) > MAX_RECIPE_BYTES:
        raise RecipeError(f"{source}: a recipe may be at most {MAX_RECIPE_BYTES:,} characters, got {len(text):,}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RecipeError(f"{source}: not valid TOML: {err}") from None
    except RecursionError:
        raise RecipeError(f"{source}: values nest too deeply") from None
    except ValueError:  # tomllib's int() of more than 4,300 digits (Python's limit on int conversion)
        raise RecipeError(f"{source}: not valid TOML: a number is too long (more than 4,300 digits)") from None
    return from_dict(data, source=source, base=base)


def load(path):
    """Read and validate a recipe file (at most :data:`MAX_RECIPE_BYTES`); its relative file paths
    (a level's ``tileset`` or ``sample``) are found beside it."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_RECIPE_BYTES + 1)
    except OSError as err:
        raise RecipeError(f"recipe file {str(path)!r} cannot be read: {err.strerror}") from None
    if len(raw) > MAX_RECIPE_BYTES:
        raise RecipeError(f"recipe file {str(path)!r} is larger than {MAX_RECIPE_BYTES:,} bytes; is it a recipe?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecipeError(f"recipe file {str(path)!r} is not UTF-8 text") from None
    return loads(text, source=str(path), base=os.path.dirname(os.path.abspath(path)))


def to_dict(recipe):
    """The recipe as a nested dict of plain TOML values (every single section; lists only when not empty)."""
    out = {}
    for section in SECTIONS:
        value = getattr(recipe, section.key)
        if section.many:
            if value:
                out[section.key] = [section.dump(spec) for spec in value]
        else:
            out[section.key] = section.dump(value)
    return out


def _quoted_keys(value):
    """Inline tables' keys that are not bare TOML keys (biome names such as "bare rock") quoted."""
    if not isinstance(value, dict):
        return value
    return {k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False): v for k, v in value.items()}


def dumps(recipe):
    """Write a recipe as TOML text that :func:`loads` reads back equal."""
    lines = ["# Worldseed recipe"]
    for key, table in to_dict(recipe).items():
        section = _BY_KEY[key]
        if section.many:
            for entry in table:
                lines.append(f"\n{section.header}")
                lines.extend(toml_table({k: _quoted_keys(v) for k, v in entry.items()}))
            continue
        lines.append(f"\n{section.header}")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in table.items() if not isinstance(v, dict))
        for k, sub in table.items():  # sub-tables ([terrain.erosion]) after the section's own keys
            if isinstance(sub, dict):
                lines.append(f"\n[{key}.{k}]")
                lines.extend(toml_table(sub))
    return "\n".join(lines) + "\n"


def replace(recipe, **sections):
    """A copy of ``recipe`` with whole sections or ``section_key=value`` fields replaced, validated."""
    data = to_dict(recipe)
    for key, value in sections.items():
        section, _, name = key.partition("_")
        if key in _BY_KEY:
            data[key] = to_dict(Recipe(**{key: value}))[key] if dataclasses.is_dataclass(value) else value
        elif section in _BY_KEY and name and not _BY_KEY[section].many:
            data[section][name] = value
        else:
            raise RecipeError(f"replace: unknown field {key!r}")
    return from_dict(data)
