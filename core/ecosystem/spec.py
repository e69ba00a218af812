"""``[ecosystem]``: plant species that grow and compete over years, animals that graze and hunt over
steps, and their limits.

A recipe writes the section as one table with two lists of sub-tables::

    [ecosystem]
    years = 150
    seed = 7
    steps = 1000                  # animal steps (optional)

    [[ecosystem.species]]
    name = "Birch"
    tree = "birch"                # a trees-family species (or a scatter prop) for its mesh
    initial_density = 40.0        # plants per hectare at year 0
    seeds_per_year = 30.0
    dispersal = 40.0              # mean distance of a seed from its parent, metres
    max_age = 90
    max_radius = 3.5
    max_height = 20.0
    growth_years = 12.0           # years to half the maximum radius
    shade_tolerance = 0.0         # 0: dies under any taller canopy; 1: lives as understorey

    [[ecosystem.animals]]
    name = "Deer"
    eats = "plants"
    count = 60
    energy_gain = 4.0
    reproduce = 0.04

The fixed keys (``years``, ``seed``, ``steps``; a species' ``name``, ``tree``,
``initial_density``, ``seeds_per_year``, ``dispersal``, ``max_age``, ``max_radius``,
``max_height``, ``growth_years``, ``shade_tolerance``; an animal's ``name``, ``eats``,
``count``, ``energy_gain``, ``reproduce``) are the issue's; the others are this family's own
(habitat optima and tolerances, mortality, disturbance, movement, trails).  Every range is in
:data:`LIMITS`, :data:`SPECIES_LIMITS` and :data:`ANIMAL_LIMITS`.

>>> spec = from_dict({"years": 50, "species": [{"name": "Pine", "tree": "conifer"}]})
>>> spec.years, spec.species[0].name, spec.species[0].max_radius
(50, 'Pine', 4.0)
>>> from_dict(to_dict(spec)) == spec
True
>>> try:
...     from_dict({"animals": [{"name": "Wolf", "eats": ["Wolf"]}]})
... except ParameterError as err:
...     print(err)
ecosystem.animals[0].eats names 'Wolf' itself: an animal may not eat its own kind
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import ParameterError, short
from ..files import PRESETS, read_toml
from ..scatter.spec import check_prop
from ..spec import (
    check_keys,
    choice,
    custom,
    did_you_mean,
    flag,
    from_table,
    integer,
    number,
    object_name,
    to_table,
)

__all__ = [
    "EcosystemSpec",
    "PlantSpecies",
    "AnimalSpecies",
    "LIMITS",
    "SPECIES_LIMITS",
    "ANIMAL_LIMITS",
    "MAX_SPECIES",
    "MAX_ANIMALS",
    "DISTURBANCE_KINDS",
    "from_dict",
    "to_dict",
    "species_from_dict",
    "animal_from_dict",
    "food_web",
    "PRESETS_DIR",
    "preset_names",
    "load_preset",
]

#: Most plant species and animal kinds one ecosystem holds.
MAX_SPECIES = 16
MAX_ANIMALS = 16
#: What a disturbance patch does: a fire kills every plant in it, a windthrow the tall ones.
DISTURBANCE_KINDS = ("windthrow", "fire")

#: Every field of :class:`PlantSpecies`: kind, range, label and description, written once.
SPECIES_LIMITS = {
    "name": object_name("Name", "Species name (in the plants CSV, the history and the chart)"),
    "tree": custom(check_prop, "Tree", "The trees-family species (or built-in prop) whose mesh the plants use"),
    "initial_density": number(
        (0.0, 10_000.0), "Initial Density", "Plants per hectare at year 0, at random positions", soft=(0.0, 2000.0)
    ),
    "seeds_per_year": number(
        (0.0, 100_000.0), "Seeds per Year", "Seeds a mature plant sheds every year", soft=(0.0, 500.0)
    ),
    "dispersal": number(
        (0.1, 1000.0), "Dispersal", "Mean distance of a seed from its parent", unit="m", soft=(0.5, 200.0)
    ),
    "max_age": integer((1, 10_000), "Max Age", "Years a plant lives at most (with the age spread)", soft=(1, 1000)),
    "max_radius": number((0.05, 50.0), "Max Radius", "Largest canopy radius", unit="m", soft=(0.05, 20.0)),
    "max_height": number((0.05, 150.0), "Max Height", "Largest height", unit="m", soft=(0.05, 80.0)),
    "growth_years": number(
        (0.1, 5000.0),
        "Growth Years",
        "Years to half the maximum radius on ideal ground in full light",
        soft=(0.1, 200.0),
    ),
    "shade_tolerance": number(
        (0.0, 1.0),
        "Shade Tolerance",
        "Share of its canopy a taller canopy may cover before the plant dies (0: dies under any, 1: understorey)",
    ),
    "germination": number((0.0, 1.0), "Germination", "Share of the seeds that germinate on ideal ground"),
    "immigrants": number(
        (0.0, 10_000.0), "Immigrants", "Seeds per hectare per year arriving from outside", soft=(0.0, 10.0)
    ),
    "maturity": number((0.0, 1.0), "Maturity", "Share of the maximum height from which a plant sheds seeds"),
    "age_spread": number((0.0, 1.0), "Age Spread", "Spread of the lifespan as a share of the maximum age"),
    "mortality": number((0.0, 1.0), "Mortality", "Yearly chance of death from any other cause", soft=(0.0, 0.1)),
    "stress": number((0.0, 1.0), "Stress", "Extra yearly chance of death on wholly unsuitable ground", soft=(0.0, 0.5)),
    "variation": number((0.0, 0.9), "Variation", "Spread of the plants' vigour (growth rate) around 1"),
    "moisture": number((0.0, 1.0), "Moisture", "Moisture the species germinates best at (0 dry .. 1 wet)"),
    "moisture_tolerance": number(
        (0.01, 100.0),
        "Moisture Tolerance",
        "Moisture distance from the optimum at which no seed germinates (10: indifferent)",
        soft=(0.05, 10.0),
    ),
    "altitude": number(
        (-10_000.0, 10_000.0), "Altitude", "Height above the sea the species germinates best at", unit="m"
    ),
    "altitude_tolerance": number(
        (1.0, 1.0e6),
        "Altitude Tolerance",
        "Height distance from the optimum at which no seed germinates",
        unit="m",
        soft=(1.0, 10_000.0),
    ),
    "max_slope": number((1.0, 90.0), "Max Slope", "Slope at which no seed germinates", unit="deg"),
    "temperature": number((-50.0, 50.0), "Temperature", "Temperature the species germinates best at (degrees C)"),
    "temperature_tolerance": number(
        (0.5, 1000.0),
        "Temperature Tolerance",
        "Temperature distance from the optimum at which no seed germinates (degrees C)",
        soft=(0.5, 100.0),
    ),
}


@dataclass(frozen=True)
class PlantSpecies:
    """One plant species of ``[[ecosystem.species]]`` (ranges: :data:`SPECIES_LIMITS`).

    A plant's canopy radius and height follow the saturating curve ``max * e / (e + growth_years)``
    of its effective age ``e``, which advances by the plant's vigour times its habitat suitability
    times its light every year (so ``growth_years`` is the age at half the maximum on ideal ground in
    full light).  Suitability is the product of four bumps ``max(0, 1 - (d / tolerance)^2)``: moisture,
    altitude above the sea, temperature (distances from the optima) and slope (``d`` the slope,
    ``max_slope`` its tolerance).
    """

    name: str = "Species"
    tree: str = "broadleaf"
    initial_density: float = 50.0
    seeds_per_year: float = 20.0
    dispersal: float = 15.0
    max_age: int = 200
    max_radius: float = 4.0
    max_height: float = 20.0
    growth_years: float = 20.0
    shade_tolerance: float = 0.5
    germination: float = 0.1
    immigrants: float = 0.2
    maturity: float = 0.5
    age_spread: float = 0.15
    mortality: float = 0.002
    stress: float = 0.05
    variation: float = 0.2
    moisture: float = 0.5
    moisture_tolerance: float = 10.0
    altitude: float = 0.0
    altitude_tolerance: float = 1.0e6
    max_slope: float = 90.0
    temperature: float = 10.0
    temperature_tolerance: float = 1000.0


def _check_eats(value: Any, name: str) -> str | tuple[str, ...]:
    if value == "plants":
        return value
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise ParameterError(f'{name} must be "plants" or a list of animal names, got {short(value)}')
    if len(value) > MAX_ANIMALS:
        raise ParameterError(f"{name} names at most {MAX_ANIMALS} animals, got {len(value)}")
    return tuple(value)


#: Every field of :class:`AnimalSpecies`.
ANIMAL_LIMITS = {
    "name": object_name("Name", "Animal name (in the history, the spawn points and the chart)"),
    "eats": custom(_check_eats, "Eats", '"plants" (grazes the vegetation) or a list of the animals it hunts'),
    "count": integer((0, 1_000_000), "Count", "Animals at step 0", soft=(0, 10_000)),
    "energy_gain": number((0.0, 1000.0), "Energy Gain", "Energy from one meal (a cell's grass or one prey)"),
    "reproduce": number((0.0, 1.0), "Reproduce", "Chance per step of having young while energy allows"),
    "speed": number((0.1, 1000.0), "Speed", "Distance walked per step", unit="m", soft=(0.1, 50.0)),
    "vision": number((0.0, 10_000.0), "Vision", "Distance at which food, water and hunters are seen", unit="m"),
    "metabolism": number((0.0, 100.0), "Metabolism", "Energy spent per step"),
    "max_age": integer((1, 1_000_000), "Max Age", "Steps an animal lives at most", soft=(1, 10_000)),
    "mutation": number((0.0, 1.0), "Mutation", "Spread of the young's speed and vision around the parent's"),
    "catch": number((0.0, 1.0), "Catch", "Chance a hunter catches a prey within its step"),
    "drink_every": integer((0, 100_000), "Drink Every", "Steps between visits to water (0: never thirsty)"),
    "home_range": number(
        (0.0, 100_000.0), "Home Range", "Distance from its den at which an animal turns back (0: roams)", unit="m"
    ),
    "trails": flag("Trails", "The animal wears game trails where it walks"),
}


@dataclass(frozen=True)
class AnimalSpecies:
    """One animal of ``[[ecosystem.animals]]`` (ranges: :data:`ANIMAL_LIMITS`).

    ``eats`` is ``"plants"`` (a grazer of the vegetation) or a tuple of the names of the animals it
    hunts.  Each step an animal spends ``metabolism`` energy, gains ``energy_gain`` from a meal, and
    with energy above twice its start has young with chance ``reproduce`` (the energy is shared).
    """

    name: str = "Animal"
    eats: str | tuple[str, ...] = "plants"
    count: int = 50
    energy_gain: float = 4.0
    reproduce: float = 0.04
    speed: float = 4.0
    vision: float = 30.0
    metabolism: float = 1.0
    max_age: int = 400
    mutation: float = 0.05
    catch: float = 0.5
    drink_every: int = 0
    home_range: float = 0.0
    trails: bool = True


#: What :func:`_entries` reads: species or animals.
_Entry = TypeVar("_Entry", PlantSpecies, AnimalSpecies)


def _entries(value: Any, name: str, reader: Callable[..., _Entry], limit: int, what: str) -> tuple[_Entry, ...]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise ParameterError(f"{name} must be a list of {what} tables, got {short(value)}")
    if len(value) > limit:
        raise ParameterError(f"{name} holds at most {limit} {what}, got {len(value)}")
    out = tuple(reader(t, prefix=f"{name}[{i}].") for i, t in enumerate(value))
    names = [e.name for e in out]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise ParameterError(f"{name}[{i}].name {n!r} is taken by {name}[{names.index(n)}]; names must differ")
    return out


def _check_species(value: Any, name: str) -> tuple[PlantSpecies, ...]:
    return _entries(value, name, species_from_dict, MAX_SPECIES, "species")


def _check_animals(value: Any, name: str) -> tuple[AnimalSpecies, ...]:
    return _entries(value, name, animal_from_dict, MAX_ANIMALS, "animal")


#: Every field of :class:`EcosystemSpec`.
LIMITS = {
    "years": integer((0, 5000), "Years", "Years of plant growth to simulate", soft=(0, 500)),
    "seed": integer((0, 2**31 - 1), "Seed", "Random seed of the simulation"),
    "steps": integer((0, 1_000_000), "Steps", "Animal steps to simulate", soft=(0, 10_000)),
    "snapshot_every": integer(
        (1, 5000), "Snapshot Every", "Years between the stored snapshots of the forest (the year slider)"
    ),
    "disturbance": number(
        (0.0, 100.0), "Disturbance", "Disturbance patches per square kilometre per year", soft=(0.0, 2.0)
    ),
    "patch_radius": number((1.0, 5000.0), "Patch Radius", "Radius of a disturbance patch", unit="m"),
    "disturbance_kind": choice(
        (
            ("windthrow", "Windthrow", "Storms fell the plants taller than half their species' height"),
            ("fire", "Fire", "Fire kills every plant in the patch"),
        ),
        "Disturbance Kind",
        "What a disturbance patch kills",
    ),
    "burn_in": integer((0, 1_000_000), "Burn-in", "Animal steps before the spawn maps start counting"),
    "grass_regrowth": number((0.0, 1.0), "Grass Regrowth", "Share of the eaten grass that grows back per step"),
    "trail_wear": number((0.0, 1000.0), "Trail Wear", "Wear one animal adds to the ground per step"),
    "trail_decay": number((0.0, 1.0), "Trail Decay", "Share of the wear that fades per step"),
    "trail_attraction": number(
        (0.0, 100.0), "Trail Attraction", "How strongly walkers prefer worn ground (0: not at all)"
    ),
    "trampled": number(
        (0.0, 1.0),
        "Trampled",
        "Trail wear (share of the most worn cell's) from which the ground is trampled: no props there (0: none)",
    ),
    "species": custom(_check_species, "Species", "The plant species: [[ecosystem.species]] tables"),
    "animals": custom(_check_animals, "Animals", "The animals: [[ecosystem.animals]] tables"),
}


@dataclass(frozen=True)
class EcosystemSpec:
    """``[ecosystem]``: the simulation's length, seed and settings, and its species and animals.

    With no species and no animals (the default) there is nothing to simulate.  ``years`` of plant
    growth (yearly steps, snapshots every ``snapshot_every`` years), ``steps`` of animal life (the
    spawn maps count from ``burn_in`` on).  ``disturbance`` patches of ``patch_radius`` metres per
    km^2 per year (``disturbance_kind``).  Grazed cells regrow by ``grass_regrowth`` of what is
    missing per step; trails gain ``trail_wear`` per animal step, lose ``trail_decay`` of their wear
    per step and pull walkers with ``trail_attraction``; ground worn to ``trampled`` of the most worn
    cell's wear is kept free of props (the scatter's clearing).  Ranges: :data:`LIMITS`.
    """

    years: int = 100
    seed: int = 0
    steps: int = 1000
    snapshot_every: int = 1
    disturbance: float = 0.0
    patch_radius: float = 20.0
    disturbance_kind: str = "windthrow"
    burn_in: int = 200
    grass_regrowth: float = 0.05
    trail_wear: float = 1.0
    trail_decay: float = 0.02
    trail_attraction: float = 1.0
    trampled: float = 0.5
    species: tuple[PlantSpecies, ...] = ()
    animals: tuple[AnimalSpecies, ...] = ()


def species_from_dict(
    table: Mapping[str, Any],
    *,
    prefix: str = "ecosystem.species[0].",
) -> PlantSpecies:
    """A validated :class:`PlantSpecies` from one ``[[ecosystem.species]]`` table.

    >>> try:
    ...     species_from_dict({"max_radius": 0.0})
    ... except ParameterError as err:
    ...     print(err)
    ecosystem.species[0].max_radius must be a finite number in [0.05, 50], got 0
    """
    return from_table(PlantSpecies, SPECIES_LIMITS, table, prefix=prefix)


def animal_from_dict(table: Mapping[str, Any], *, prefix: str = "ecosystem.animals[0].") -> AnimalSpecies:
    """A validated :class:`AnimalSpecies` from one ``[[ecosystem.animals]]`` table."""
    return from_table(AnimalSpecies, ANIMAL_LIMITS, table, prefix=prefix)


def food_web(animals: Sequence[AnimalSpecies], *, prefix: str = "ecosystem.") -> dict[str, tuple[str, ...]]:
    """``{name: (prey names)}`` of ``animals`` after checking the names ``eats`` lists: known, not the
    animal itself, and no cycle (a hunts b hunts ... hunts a).  Grazers map to ``()``.

    >>> web = food_web((AnimalSpecies(name="Deer"), AnimalSpecies(name="Wolf", eats=("Deer",))))
    >>> web
    {'Deer': (), 'Wolf': ('Deer',)}
    """
    names = [a.name for a in animals]
    web: dict[str, tuple[str, ...]] = {}
    for i, a in enumerate(animals):
        key = f"{prefix}animals[{i}].eats"
        if a.eats == "plants":
            web[a.name] = ()
            continue
        for prey in a.eats:
            if prey == a.name:
                raise ParameterError(f"{key} names {prey!r} itself: an animal may not eat its own kind")
            if prey not in names:
                # every animal of the table (the one that hunts too: a one-animal table is not "none")
                listed = ", ".join(f"{n} (itself)" if n == a.name else n for n in names)
                raise ParameterError(
                    f"{key} names {short(prey)}, which is not an animal of [[ecosystem.animals]]"
                    f"{did_you_mean(prey, names)}; animals: {listed}"
                )
        web[a.name] = tuple(a.eats)
    # a cycle of hunters (a eats b eats a): depth-first search in name order
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for prey in web[name]:
            if state.get(prey) == 1:
                loop = path[path.index(prey) :] + [prey]
                i = names.index(path[-1])
                raise ParameterError(
                    f"{prefix}animals[{i}].eats makes a cycle {' -> '.join(loop)}: no animal may (through others) "
                    "eat its own hunter"
                )
            if prey not in state:
                visit(prey, path + [prey])
        state[name] = 2

    for name in names:
        if name not in state:
            visit(name, [name])
    return web


def from_dict(table: Mapping[str, Any], *, prefix: str = "ecosystem.") -> EcosystemSpec:
    """A validated :class:`EcosystemSpec` from an ``[ecosystem]`` table (unknown keys refused, the
    food web checked: :func:`food_web`).

    >>> try:
    ...     from_dict({"species": [{"initial_density": -3.0}]})
    ... except ParameterError as err:
    ...     print(err)
    ecosystem.species[0].initial_density must be a finite number in [0, 10000], got -3
    """
    spec = from_table(EcosystemSpec, LIMITS, table, prefix=prefix)
    food_web(spec.animals, prefix=prefix)
    return spec


def to_dict(spec: EcosystemSpec) -> dict[str, Any]:
    """The spec as a table of plain TOML values; ``species`` and ``animals`` as lists of tables.

    >>> to_dict(EcosystemSpec(animals=(AnimalSpecies(eats=("Deer",)),)))["animals"][0]["eats"]
    ['Deer']
    """
    table = to_table(dataclasses.replace(spec, species=(), animals=()))
    table["species"] = [to_table(s) for s in spec.species]
    table["animals"] = [to_table(a) for a in spec.animals]  # eats: "plants" or a list of names
    return table


#: Folder of the shipped ecosystems (``<extension root>/presets/ecosystem``).
PRESETS_DIR = os.path.join(PRESETS, "ecosystem")
#: Largest preset file read.
MAX_PRESET_BYTES = 1 << 20


def preset_names() -> list[str]:
    """The shipped ecosystems (file names without ``.toml``), sorted.

    >>> preset_names()
    ['boreal', 'savanna', 'temperate']
    """
    if not os.path.isdir(PRESETS_DIR):
        return []
    return sorted(f[:-5] for f in os.listdir(PRESETS_DIR) if f.endswith(".toml"))


def load_preset(name: str) -> EcosystemSpec:
    """The :class:`EcosystemSpec` of a shipped ecosystem (its ``[ecosystem]`` table).

    >>> spec = load_preset("temperate")
    >>> [s.name for s in spec.species], [a.name for a in spec.animals]
    (['Birch', 'Beech', 'Hazel'], ['Deer', 'Wolf'])
    """
    names = preset_names()
    if name not in names:
        raise ParameterError(
            f"ecosystem preset must be one of {', '.join(names)}, got {short(name)}{did_you_mean(name, names)}"
        )
    path = os.path.join(PRESETS_DIR, f"{name}.toml")
    data = read_toml(path, name="ecosystem preset", limit=MAX_PRESET_BYTES)
    check_keys(data, ["ecosystem"], where=f"ecosystem preset {name!r}")
    return from_dict(data.get("ecosystem", {}))


#: The lists of tables inside ``[ecosystem]`` (``[[ecosystem.species]]``, ``[[ecosystem.animals]]``): their
#: spec and limits table, for the generated recipe reference (``tools/recipe_reference.py``).
LIST_TABLES: dict[str, tuple[type, dict[str, Any]]] = {
    "species": (PlantSpecies, SPECIES_LIMITS),
    "animals": (AnimalSpecies, ANIMAL_LIMITS),
}
