"""Ecosystems: plants that grow, compete and succeed each other over years; animals that graze,
hunt and wear trails over steps.

Public names only; the engines live in private modules.
"""

from ._chart import chart_image
from ._files import (
    CSV_HEADER,
    FORMAT,
    VERSION,
    ecosystem_json,
    ecosystem_json_bytes,
    file_names,
    ground_heights,
    plant_placements,
    plants_csv_bytes,
    population_png_bytes,
)
from ._habitat import Habitat, habitat, suitability
from ._neighbours import overlapping_pairs
from ._plants import (
    LAYER,
    MAX_PLANTS,
    UNDERSTOREY,
    PlantRun,
    dispersal_reach,
    estimate_plants,
    interaction_reach,
    plants_steps,
    plants_tile_steps,
)
from .spec import (
    ANIMAL_LIMITS,
    DISTURBANCE_KINDS,
    LIMITS,
    MAX_ANIMALS,
    MAX_SPECIES,
    SPECIES_LIMITS,
    AnimalSpecies,
    EcosystemSpec,
    PlantSpecies,
    animal_from_dict,
    food_web,
    from_dict,
    species_from_dict,
    to_dict,
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
    "Habitat",
    "habitat",
    "suitability",
    "overlapping_pairs",
    "PlantRun",
    "plants_steps",
    "plants_tile_steps",
    "estimate_plants",
    "dispersal_reach",
    "interaction_reach",
    "LAYER",
    "UNDERSTOREY",
    "MAX_PLANTS",
    "FORMAT",
    "VERSION",
    "CSV_HEADER",
    "file_names",
    "ground_heights",
    "plants_csv_bytes",
    "ecosystem_json",
    "ecosystem_json_bytes",
    "population_png_bytes",
    "plant_placements",
    "chart_image",
]
