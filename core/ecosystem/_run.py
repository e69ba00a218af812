"""One ecosystem run: the plants over the years, then the animals over the steps on the grass the
forest leaves them, and every file of it as bytes."""

from __future__ import annotations

from dataclasses import dataclass

from ..steps import Steps
from ._animals import AnimalRun, animals_steps
from ._files import (
    ecosystem_json_bytes,
    file_names,
    grass_capacity,
    plants_csv_bytes,
    population_png_bytes,
    spawns_json_bytes,
    trails_png_bytes,
)
from ._habitat import Habitat
from ._plants import PlantRun, plants_steps
from .spec import EcosystemSpec

__all__ = ["Ecosystem", "ecosystem_steps", "ecosystem_files"]


@dataclass(frozen=True, eq=False)
class Ecosystem:
    """A simulated ecosystem: ``plants`` (a :class:`PlantRun`, None without species), ``animals`` (an
    :class:`AnimalRun`, None without animals or steps) and the ``habitat`` they lived on."""

    plants: PlantRun | None
    animals: AnimalRun | None
    habitat: Habitat


def ecosystem_steps(
    spec: EcosystemSpec, hab: Habitat, *, animal_habitat: Habitat | None = None, prefix: str = "ecosystem."
) -> Steps[Ecosystem]:
    """The plants of ``spec`` for its years, then its animals for its steps (grazing the grass the
    plants' canopies leave: :func:`grass_capacity`), as steps: yields ``(done, years + steps,
    "plants" | "animals")``, returns an :class:`Ecosystem`.  ``animal_habitat``: where the animals
    roam when it is not the plants' ``hab`` (the result's ``habitat``)."""
    plant_hab, hab = hab, hab if animal_habitat is None else animal_habitat
    total = (spec.years + 1 if spec.species else 0) + (spec.steps + 1 if spec.animals else 0)
    plants: PlantRun | None
    animals: AnimalRun | None
    steps: Steps[PlantRun] | Steps[AnimalRun]
    plants = animals = None
    done = 0
    if spec.species:
        steps = plants_steps(spec, plant_hab, prefix=prefix)
        while True:
            try:
                year, _, label = next(steps)
            except StopIteration as stop:
                plants = stop.value
                break
            yield year + 1, total, label
        done = spec.years + 1
    if spec.animals:
        vegetation = grass_capacity(plants, hab) if plants is not None else None
        steps = animals_steps(spec, hab, vegetation=vegetation, prefix=prefix)
        while True:
            try:
                step, _, label = next(steps)
            except StopIteration as stop:
                animals = stop.value
                break
            yield done + step + 1, total, label
    return Ecosystem(plants=plants, animals=animals, habitat=hab)


def ecosystem_files(
    name: str, eco: Ecosystem, *, blender_offset: tuple[float, float, float] = (0.0, 0.0, 0.0), seed: int = 0
) -> dict[str, bytes]:
    """``{file name: bytes}`` of every file of ``eco`` (an :class:`Ecosystem`) for the output name
    ``name``: the plants CSV (with plants), the ecosystem JSON and the population chart (always),
    the trails PNG and the spawns JSON (with animals).  ``blender_offset``: the terrain's location
    (the habitat's frame plus it is Blender's world); ``seed`` keys the spawn points' sampling."""
    names = file_names(name)
    hab = eco.habitat
    out = {}
    if eco.plants is not None:
        out[names["plants"]] = plants_csv_bytes(eco.plants, hab, blender_offset=blender_offset)
    out[names["ecosystem"]] = ecosystem_json_bytes(eco.plants, animals=eco.animals, area_m2=hab.area_m2)
    out[names["population"]] = population_png_bytes(eco.plants, animals=eco.animals)
    if eco.animals is not None:
        out[names["trails"]] = trails_png_bytes(eco.animals)
        out[names["spawns"]] = spawns_json_bytes(eco.animals, hab, blender_offset=blender_offset, seed=seed)
    return out
