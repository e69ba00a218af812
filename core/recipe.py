"""World recipes: TOML files that hold every parameter and the seed.

A recipe drives the UI presets, the redo panel and the headless batch run
alike. It is parsed with the standard library's ``tomllib`` into frozen
dataclasses and validated here, with no Blender in sight, so a malformed file
fails with one message naming the file, the key, the value and what is allowed.

The sections are listed once, in :data:`SECTIONS`, in the order a world is
built: ``[world]``, ``[terrain]`` (with ``[terrain.erosion]``), ``[rivers]``, ``[roads]``, ``[biomes]``,
``[settlements]``, ``[[splat]]``, ``[[trees]]``, ``[ecosystem]``, ``[[scatter]]``, ``[[level]]``, ``[export]``.
That registry drives parsing, the
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import biomes, ecosystem, export, levels, rivers, roads, scatter, settlements, splat, terrain, trees
from ._recipe_checks import (
    check_biomes,
    check_deposit_rules,
    check_ecosystem,
    check_levels,
    check_rivers,
    check_roads,
    check_scatter,
    check_settlements,
    check_splats,
    check_trees,
)
from ._toml import toml_table, toml_value
from .errors import ParameterError, RecipeError, short
from .files import check_depth, parse_toml, read_checked
from .spec import Limit, closest
from .world import spec as world  # the spec, not the face: the tiled-world engine behind it reads recipes

__all__ = [
    "Recipe",
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

#: Largest recipe file read (a recipe is a few kilobytes; /dev/zero must not fill the memory).
MAX_RECIPE_BYTES = 1 << 20
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


#: Most ``[[level]]`` tables a recipe may hold.
MAX_LEVELS = 32


#: What a tiled world may do with a section (:attr:`Section.tiled`).
TILED = ("per_tile", "once", "refuse")


def _terrain_size(recipe: Recipe) -> float | None:
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
    ``omit_default``: a single section left out of :func:`to_dict` (and so of :func:`dumps` and the
    recipe digest) while it holds only its defaults, so recipes without it read and write as before.
    ``paths``: the keys of the section that name files (relative to the recipe, or presets), and
    ``parse`` then takes ``base=`` (the recipe's folder, or None) to find them; each such file is
    checked (a regular file of a bounded size, nesting bounded) when the recipe is read, and its
    content is never quoted when it lies outside the recipe's folder (``core.files``).
    ``tiled`` is what a tiled world (``[world] tiles`` other than ``[1, 1]``) does with the
    section, one of :data:`TILED`: ``"per_tile"`` (every tile is built from it), ``"once"`` (built
    once for the whole world, in world coordinates, by the Blender side: ``operators/bridge``'s
    ``world_export.export_once``) or ``"refuse"`` (a tiled recipe holding it is refused, the
    reason in ``tiled_note``); ``tiled_note`` says what it becomes, in one line.  A section without
    a decision is refused in a tiled world too (:func:`check_tiled`): never silently dropped.
    """

    key: str
    spec: type[Any]
    limits: dict[str, Limit]
    parse: Callable[..., Any]
    dump: Callable[[Any], dict[str, Any]]
    many: bool = False
    max_entries: int = 1
    check: Callable[[Recipe], None] | None = None
    label: str = ""
    build: bool = True
    package: str = ""
    paths: tuple[str, ...] = ()
    tiled: str = ""
    tiled_note: str = ""
    omit_default: bool = False

    @property
    def header(self) -> str:
        """How the section is written in TOML: ``[terrain]`` or ``[[trees]]``."""
        return f"[[{self.key}]]" if self.many else f"[{self.key}]"

    @property
    def default(self) -> Any:
        return () if self.many else self.spec()


#: Every recipe section, in build order. A new generator family is one more entry here.
SECTIONS = (
    Section(
        "world",
        world.WorldSpec,
        world.LIMITS,
        world.from_dict,
        world.to_dict,
        check=world.check_world,
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
    # the networks: planned over the (eroded) terrain, carving it before the biomes, splats and
    # scatter read it; built with the terrain, not on their own
    Section(
        "rivers",
        rivers.RiversSpec,
        rivers.LIMITS,
        rivers.from_dict,
        rivers.to_dict,
        check=check_rivers,
        label="Rivers",
        build=False,
        tiled="per_tile",
        tiled_note="planned once over the whole world's (eroded) heights, each tile carves its part: "
        "<name>_<x>_<z>_rivers.json, seams agree",
    ),
    Section(
        "roads",
        roads.RoadsSpec,
        roads.LIMITS,
        roads.from_dict,
        roads.to_dict,
        check=check_roads,
        label="Roads",
        build=False,
        tiled="per_tile",
        tiled_note="planned once over the whole world's (eroded) heights, each tile cuts and fills its part: "
        "<name>_<x>_<z>_roads.json, seams agree",
    ),
    # the terrain's layers: built with the terrain (core.terrain.terrain_layers_steps), not on their own
    Section(
        "biomes",
        biomes.BiomesSpec,
        biomes.LIMITS,
        biomes.from_dict,
        biomes.to_dict,
        check=check_biomes,
        label="Biomes",
        build=False,
        paths=("table",),
        tiled="per_tile",
        tiled_note="each tile's biome map, from the world's moisture and temperature",
    ),
    # settlements: sites on the biomes' map, their pads levelled into the terrain (before the texture
    # layers and the scatter read it) and, with [roads] on, the roads between them
    Section(
        "settlements",
        settlements.SettlementsSpec,
        settlements.LIMITS,
        settlements.from_dict,
        settlements.to_dict,
        check=check_settlements,
        label="Settlements",
        omit_default=True,
        tiled="per_tile",
        tiled_note="planned once over the whole world, each tile levels its part of the pads and "
        "roads: <name>_<x>_<z>_settlements.json lists the sites whose centre stands in the tile, seams agree",
    ),
    Section(
        "splat",
        splat.SplatSpec,
        splat.LIMITS,
        splat.from_dict,
        splat.to_dict,
        many=True,
        max_entries=splat.MAX_LAYERS,
        check=check_splats,
        label="Texture Layers",
        build=False,
        paths=("texture",),
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
    # after the terrain (its layers: the habitat) and the trees, before the scatter (which avoids the
    # trampled trails); the Blender side is operators/bridge/ecosystem.py
    Section(
        "ecosystem",
        ecosystem.EcosystemSpec,
        ecosystem.LIMITS,
        ecosystem.from_dict,
        ecosystem.to_dict,
        check=check_ecosystem,
        label="Ecosystem",
        omit_default=True,
        tiled="per_tile",
        tiled_note="each tile's plants, simulated with a halo (the same plants on both sides of a border); "
        "the animals once over the whole world, each tile its part of the trails (<tile>_trails.png), "
        "<name>_spawns.json once",
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
        paths=("wfc_tileset", "sample"),
        tiled="once",
        tiled_note="each level once at its origin in world coordinates: <name>_level.fbx and the level's own files",
    ),
    Section(
        "export",
        export.ExportSpec,
        export.LIMITS,
        export.from_dict,
        export.to_dict,
        label="Export",
        build=False,
        tiled="per_tile",
        tiled_note="fbx: each tile's FBX and the world's; glb, per_object and render are not used (a note says so)",
    ),
)
SECTION_KEYS = tuple(s.key for s in SECTIONS)
_BY_KEY = {s.key: s for s in SECTIONS}


@dataclass(frozen=True)
class Recipe:
    """A whole world: one attribute per entry of :data:`SECTIONS` (a spec, or a tuple of them), in its order
    (checked below: a new section is its entry there and its typed attribute here)."""

    world: world.WorldSpec = field(default_factory=world.WorldSpec)
    terrain: terrain.TerrainSpec = field(default_factory=terrain.TerrainSpec)
    rivers: rivers.RiversSpec = field(default_factory=rivers.RiversSpec)
    roads: roads.RoadsSpec = field(default_factory=roads.RoadsSpec)
    biomes: biomes.BiomesSpec = field(default_factory=biomes.BiomesSpec)
    settlements: settlements.SettlementsSpec = field(default_factory=settlements.SettlementsSpec)
    splat: tuple[splat.SplatSpec, ...] = ()
    trees: tuple[trees.TreeSpec, ...] = ()
    ecosystem: ecosystem.EcosystemSpec = field(default_factory=ecosystem.EcosystemSpec)
    scatter: tuple[scatter.LayerSpec, ...] = ()
    level: tuple[levels.LevelSpec, ...] = ()
    export: export.ExportSpec = field(default_factory=export.ExportSpec)


assert tuple(f.name for f in dataclasses.fields(Recipe)) == SECTION_KEYS, "Recipe's attributes are SECTIONS' keys"


def check_tiled(recipe: Recipe, sections: Iterable[Section] = SECTIONS) -> None:
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


def _allowed_sections() -> str:
    return ", ".join(s.header for s in SECTIONS)


def _parse_section(section: Section, value: object, *, source: str, base: str | None = None) -> Any:
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


def from_dict(data: object, *, source: str = "recipe", base: str | None = None) -> Recipe:
    """Validate a nested dict (as parsed from TOML) into a :class:`Recipe`.

    ``base`` is the folder the recipe's relative file paths (a level's ``wfc_tileset`` or ``sample``)
    are found in; the recipe keeps them as absolute paths.  None: they stay relative, found in the
    current directory when used.
    """
    if not isinstance(data, dict):
        raise RecipeError(f"{source}: a recipe must be a table of sections, got {type(data).__name__}")
    check_depth(data, source=source, error=RecipeError)
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
        recipe = world.tiles_fix_normalize(Recipe(**parts), data)
        for section in SECTIONS:
            if section.check is not None:
                section.check(recipe)
        check_tiled(recipe)
    except RecipeError as err:
        raise RecipeError(err if str(err).startswith(f"{source}:") else f"{source}: {err}") from None
    except ParameterError as err:
        raise RecipeError(f"{source}: {err}") from None
    return recipe


def loads(text: str, *, source: str = "recipe", base: str | None = None) -> Recipe:
    """Parse and validate recipe text (TOML); ``base`` as in :func:`from_dict`."""
    if len(text) > MAX_RECIPE_BYTES:
        raise RecipeError(f"{source}: a recipe may be at most {MAX_RECIPE_BYTES:,} characters, got {len(text):,}")
    data = parse_toml(text, source=source, error=RecipeError)
    return from_dict(data, source=source, base=base)


def load(path: str | os.PathLike[str]) -> Recipe:
    """Read and validate a recipe file (a regular file of at most :data:`MAX_RECIPE_BYTES`); its
    relative file paths (a level's ``wfc_tileset`` or ``sample``) are found beside it."""
    try:
        raw = read_checked(path, name="recipe file", limit=MAX_RECIPE_BYTES)
    except ParameterError as err:
        raise RecipeError(str(err)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecipeError(f"recipe file {str(path)!r} is not UTF-8 text") from None
    return loads(text, source=str(path), base=os.path.dirname(os.path.abspath(path)))


def to_dict(recipe: Recipe) -> dict[str, Any]:
    """The recipe as a nested dict of plain TOML values (every single section; lists only when not empty)."""
    out: dict[str, Any] = {}
    for section in SECTIONS:
        value = getattr(recipe, section.key)
        if section.many:
            if value:
                out[section.key] = [section.dump(spec) for spec in value]
        elif not (section.omit_default and value == section.default):
            out[section.key] = section.dump(value)
    return out


def _quoted_keys(value: Any) -> Any:
    """Inline tables' keys that are not bare TOML keys (biome names such as "bare rock") quoted."""
    if not isinstance(value, dict):
        return value
    return {k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False): v for k, v in value.items()}


def _is_tables(value: Any) -> bool:
    """A sub-table or a non-empty list of sub-tables (written after the section's own keys)."""
    return isinstance(value, dict) or (isinstance(value, list) and bool(value) and isinstance(value[0], dict))


def dumps(recipe: Recipe) -> str:
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
        lines.extend(f"{k} = {toml_value(v)}" for k, v in table.items() if not _is_tables(v))
        for k, sub in table.items():  # sub-tables ([terrain.erosion]) after the section's own keys
            if isinstance(sub, dict):
                lines.append(f"\n[{key}.{k}]")
                lines.extend(toml_table(sub))
            elif _is_tables(sub):  # lists of sub-tables ([[ecosystem.species]])
                for entry in sub:
                    lines.append(f"\n[[{key}.{k}]]")
                    lines.extend(toml_table({n: _quoted_keys(v) for n, v in entry.items()}))
    return "\n".join(lines) + "\n"


def replace(recipe: Recipe, **sections: Any) -> Recipe:
    """A copy of ``recipe`` with whole sections or ``section_key=value`` fields replaced, validated."""
    data = to_dict(recipe)
    for key, value in sections.items():
        section, _, name = key.partition("_")
        if key in _BY_KEY:
            whole: dict[str, Any] = {key: value}
            data[key] = to_dict(Recipe(**whole))[key] if dataclasses.is_dataclass(value) else value
        elif section in _BY_KEY and name and not _BY_KEY[section].many:
            data[section][name] = value
        else:
            raise RecipeError(f"replace: unknown field {key!r}")
    return from_dict(data)
