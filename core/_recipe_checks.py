"""The recipe's cross-section checks.

Split out of :mod:`core.recipe`, which names these in its :data:`core.recipe.SECTIONS`: the
``check(recipe)`` functions run once the whole recipe is read (biome names, ``deposits``
rules, scatter density, level names, tree rules).  They raise :class:`RecipeError` or
:class:`ParameterError`; :func:`check_deposit_rules` is public through :mod:`core.recipe`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from . import ecosystem, scatter, splat, trees, unity_package
from .biomes import MAX_PER_CELL, load_table
from .errors import ParameterError, RecipeError, short
from .spec import did_you_mean
from .terrain import TerrainSpec

if TYPE_CHECKING:
    from .recipe import Recipe

__all__ = [
    "biome_names",
    "check_biome_names",
    "deposits_off",
    "check_deposit_rules",
    "check_biomes",
    "check_splats",
    "check_scatter",
    "check_levels",
    "check_trees",
    "check_rivers",
    "check_roads",
    "check_ecosystem",
    "check_settlements",
]


def biome_names(recipe: Recipe, where: str) -> tuple[str, ...]:
    """The biome names of the recipe's table, for entries (``where``) that name biomes."""
    if not recipe.biomes.enabled:
        raise RecipeError(f"{where}.biomes names biomes, but [biomes] is off; set biomes.enabled = true")
    try:
        return load_table(recipe.biomes.table).names
    except ParameterError as err:
        raise RecipeError(f"biomes.table: {err}") from None


def check_biome_names(recipe: Recipe, key: str, entries: Iterable[splat.SplatSpec | scatter.LayerSpec]) -> None:
    names = None
    for i, spec in enumerate(entries):
        if not spec.biomes:
            continue
        names = names if names is not None else biome_names(recipe, f"{key}[{i}]")
        for name, _ in spec.biomes:
            if name not in names:
                raise RecipeError(
                    f"{key}[{i}].biomes names {name!r}, which is not a biome of the table "
                    f"{recipe.biomes.table!r}{did_you_mean(name, names)}; biomes: {', '.join(names)}"
                )


def deposits_off(spec: splat.SplatSpec | scatter.LayerSpec) -> bool:
    """Whether the ``deposits`` rule of a texture layer (a weight, 0: off) or a scatter layer (a
    depth range, the full range: off) is off."""
    if isinstance(spec.deposits, (int, float)):
        return spec.deposits == 0.0
    return tuple(spec.deposits) == (0.0, scatter.DEPOSITS[1])


def check_deposit_rules(
    terrain_spec: TerrainSpec, key: str, entries: Iterable[splat.SplatSpec | scatter.LayerSpec]
) -> None:
    """Refuse ``entries`` (``[[splat]]`` or ``[[scatter]]`` specs, named ``key[i]``) with a
    ``deposits`` rule on a terrain (``terrain_spec``) without ``[terrain.erosion]``: nothing is
    deposited, so the rule would silently match nowhere.  One :class:`RecipeError` naming the layer
    and the key (the sidebar's scatter can call it too)."""
    if terrain_spec.erosion.enabled:
        return
    for i, spec in enumerate(entries):
        if not deposits_off(spec):
            raise RecipeError(
                f"{key}[{i}].deposits is {short(spec.deposits)}, but [terrain.erosion] is off, so nothing is "
                "deposited; set terrain.erosion.enabled = true (or drop the deposits rule)"
            )


def check_biomes(recipe: Recipe) -> None:
    if recipe.biomes.enabled:
        if not recipe.terrain.enabled:
            raise RecipeError("[biomes] needs a terrain to classify, but terrain.enabled is false")
        biome_names(recipe, "biomes")  # the table is read (and checked) before any work


def check_splats(recipe: Recipe) -> None:
    if not recipe.splat:
        return
    if not recipe.terrain.enabled:
        raise RecipeError("[[splat]] layers need a terrain to paint, but terrain.enabled is false")
    seen: dict[str, int] = {}
    for i, spec in enumerate(recipe.splat):
        if spec.name in seen:
            raise RecipeError(
                f"splat[{i}].name {spec.name!r} is taken by splat[{seen[spec.name]}] (the Unity terrain file "
                "lists the layers by name: give every layer its own)"
            )
        seen[spec.name] = i
    check_biome_names(recipe, "splat", recipe.splat)
    check_deposit_rules(recipe.terrain, "splat", recipe.splat)


def check_scatter(recipe: Recipe) -> None:
    if recipe.scatter and not recipe.terrain.enabled:
        raise RecipeError("[[scatter]] layers need a terrain to stand on, but terrain.enabled is false")
    scatter.check_prop_count(recipe.scatter, size=recipe.terrain.size)
    base = unity_package.alphamap_side(recipe.terrain.resolution)
    for i, spec in enumerate(recipe.scatter):
        side = scatter.detail_side(base, size=recipe.terrain.size, per_m2=spec.unity_detail)
        cell = recipe.terrain.size / side
        if spec.unity_detail * (cell * cell) > MAX_PER_CELL:  # as scatter.detail_side
            most = MAX_PER_CELL / (cell * cell)
            raise RecipeError(
                f"scatter[{i}].unity_detail {spec.unity_detail:g} per m^2 puts more than {MAX_PER_CELL} instances "
                f"in a Unity detail cell of a {recipe.terrain.size:g} m terrain ({side} cells a side); "
                f"at most {most:.3g} per m^2"
            )
    check_biome_names(recipe, "scatter", recipe.scatter)
    check_deposit_rules(recipe.terrain, "scatter", recipe.scatter)


def check_levels(recipe: Recipe) -> None:
    """Level names must differ (also in case alone): each level writes ``<name>.tmx`` and the like."""
    seen: dict[str, int] = {}
    for i, spec in enumerate(recipe.level):
        key = spec.name.casefold()
        if key in seen:
            raise RecipeError(
                f"level[{i}].name {spec.name!r} is taken by level[{seen[key]}] "
                "(each level writes <name>.tmx, <name>_level.json and <name>_level.png: give every level its own name)"
            )
        seen[key] = i


def check_trees(recipe: Recipe) -> None:
    for i, spec in enumerate(recipe.trees):  # rule errors before any work, named by their entry
        error = trees.rule_error(spec.axiom, spec.rules, trees.constants_to_text(spec.constants))
        if error:
            raise RecipeError(f"trees[{i}]: {error}")


def check_rivers(recipe: Recipe) -> None:
    """``[rivers]`` on needs the terrain on, and a threshold of at least 4 cells' area."""
    spec = recipe.rivers
    if not spec.enabled:
        return
    if not recipe.terrain.enabled:
        raise RecipeError("rivers.enabled needs [terrain] enabled = true (rivers follow the terrain's water)")
    cell = recipe.terrain.cell_size
    if spec.threshold < 4.0 * cell * cell:
        raise RecipeError(
            f"rivers.threshold {spec.threshold:g} m² is less than 4 cells of {cell:g} m ({4.0 * cell * cell:g} m²): "
            "every slope would be a river"
        )


def check_roads(recipe: Recipe) -> None:
    """``[roads]`` on needs the terrain on and at least 2 points, each on the terrain (a tiled
    world's: anywhere on its tiles, Blender x in [-nx size, 0] and y in [-nz size, 0])."""
    spec = recipe.roads
    if not spec.enabled:
        return
    if not recipe.terrain.enabled:
        raise RecipeError("roads.enabled needs [terrain] enabled = true (roads are laid on the terrain)")
    if len(spec.points) < 2 and not recipe.settlements.enabled:  # settlements bring their own points
        raise RecipeError(f"roads.points has {len(spec.points)} point(s); a road needs at least 2")
    size = recipe.terrain.size
    nx, nz = recipe.world.tiles
    if (nx, nz) == (1, 1):
        x0, x1, y0, y1 = -0.5 * size, 0.5 * size, -0.5 * size, 0.5 * size
    else:
        x0, x1, y0, y1 = -nx * size, 0.0, -nz * size, 0.0
    for i, (x, y) in enumerate(spec.points):
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            raise RecipeError(
                f"roads.points[{i}] ({x:g}, {y:g}) lies outside the terrain "
                f"(x in [{x0:g}, {x1:g}], y in [{y0:g}, {y1:g}] m)"
            )


def check_ecosystem(recipe: Recipe) -> None:
    """An ecosystem with species or animals needs a terrain to stand on; its plants at year 0 on
    one terrain tile (the tiles of a world simulate one at a time, plus a halo) within the engine's
    bounds (``core.ecosystem.estimate_plants``: the figure, before any work); a tiled world's animals
    roam the whole world (``core.ecosystem.estimate_world_animals``: its samples and memory)."""
    spec = recipe.ecosystem
    if not (spec.species or spec.animals):
        return
    if not recipe.terrain.enabled:
        raise RecipeError("[ecosystem] needs a terrain to grow on, but terrain.enabled is false")
    side = recipe.terrain.size
    if tuple(recipe.world.tiles) != (1, 1) and spec.animals:  # one animal pass over the whole world
        n = recipe.terrain.resolution - 1
        nx, nz = recipe.world.tiles
        ecosystem.estimate_world_animals(spec, (nz * n + 1, nx * n + 1), cell_size=recipe.terrain.size / n)
    if tuple(recipe.world.tiles) != (1, 1):
        side += 4.0 * ecosystem.interaction_reach(spec.species)  # the default halo: two reaches a side
    ecosystem.estimate_plants(spec, side * side)


#: Most samples of a tiled world whose settlements are planned whole (``core.world.MAX_NETWORK_CELLS``).
MAX_PLAN_CELLS = 4097 * 4097


def check_settlements(recipe: Recipe) -> None:
    """``[settlements]`` on needs the terrain on; their spacing keeps two sites apart on a terrain
    that can hold more than one; a ``level`` names one of the recipe's ``[[level]]`` entries (when
    it has any: a sidebar's recipe names the Levels panel's)."""
    spec = recipe.settlements
    if not spec.enabled:
        return
    if not recipe.terrain.enabled:
        raise RecipeError("settlements.enabled needs [terrain] enabled = true (settlements stand on the terrain)")
    nx, nz = recipe.world.tiles
    if (nx, nz) != (1, 1):  # the whole world's plan: refused before any tile is built
        n = recipe.terrain.resolution - 1
        rows, cols = nz * n + 1, nx * n + 1
        if rows * cols > MAX_PLAN_CELLS:
            raise RecipeError(
                f"settlements.enabled in a tiled world plans the whole world at once: {rows:,} x {cols:,} samples "
                f"(world.tiles {[nx, nz]}, terrain.resolution {recipe.terrain.resolution}) is more than "
                f"{MAX_PLAN_CELLS:,}; use fewer or smaller tiles"
            )
    names = [level.name for level in recipe.level]
    if spec.level and names and spec.level not in names:
        raise RecipeError(
            f"settlements.level {spec.level!r} names no [[level]] of the recipe{did_you_mean(spec.level, names)}; "
            f"levels: {', '.join(names)}"
        )
    if spec.spacing >= recipe.terrain.size * 1.5 and (spec.count > 1 or spec.density > 0.0):
        raise RecipeError(
            f"settlements.spacing {spec.spacing:g} m leaves room for one site on a terrain of "
            f"{recipe.terrain.size:g} m; lower it or ask for count = 1"
        )
