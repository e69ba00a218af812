"""The [ecosystem] section: keys, round trips, and bad input refused in one line naming the key."""

import time
import tracemalloc

import numpy as np
import pytest

from worldseed.core import ecosystem as eco
from worldseed.core import recipe
from worldseed.core.errors import ParameterError, RecipeError
from worldseed.core.steps import drive

from ._ecosystem_cases import CLIMAX, PIONEER

#: The keys the issue fixes (checks outside the project rely on them).
FIXED_TOP = ["years", "seed", "steps", "species", "animals"]
FIXED_SPECIES = [
    "name",
    "tree",
    "initial_density",
    "seeds_per_year",
    "dispersal",
    "max_age",
    "max_radius",
    "max_height",
    "growth_years",
    "shade_tolerance",
]
FIXED_ANIMAL = ["name", "eats", "count", "energy_gain", "reproduce"]

RECIPE = """
[terrain]
resolution = 65
size = 256.0

[ecosystem]
years = 30
seed = 4
steps = 200

[[ecosystem.species]]
name = "Birch"
tree = "birch"
initial_density = 30.0
shade_tolerance = 0.0

[[ecosystem.species]]
name = "Beech"
tree = "broadleaf"

[[ecosystem.animals]]
name = "Deer"
eats = "plants"
count = 40

[[ecosystem.animals]]
name = "Wolf"
eats = ["Deer"]
count = 5
"""


def test_the_fixed_keys_are_there():
    assert set(FIXED_TOP) <= set(eco.LIMITS)
    assert FIXED_SPECIES == list(eco.SPECIES_LIMITS)[: len(FIXED_SPECIES)]
    assert FIXED_ANIMAL == list(eco.ANIMAL_LIMITS)[: len(FIXED_ANIMAL)]
    for table in (eco.LIMITS, eco.SPECIES_LIMITS, eco.ANIMAL_LIMITS):
        assert all(limit.label and limit.description for limit in table.values())


def test_a_recipe_reads_writes_and_reads_back_the_same():
    r = recipe.loads(RECIPE)
    assert [s.name for s in r.ecosystem.species] == ["Birch", "Beech"]
    assert r.ecosystem.animals[1].eats == ("Deer",)
    text = recipe.dumps(r)
    assert "[[ecosystem.species]]" in text and "[[ecosystem.animals]]" in text
    assert recipe.loads(text) == r


def test_a_recipe_without_an_ecosystem_writes_as_before():
    r = recipe.loads("[terrain]\nresolution = 65\n")
    assert r.ecosystem == eco.EcosystemSpec()
    assert "ecosystem" not in recipe.dumps(r) and "ecosystem" not in recipe.to_dict(r)


@pytest.mark.parametrize(
    ("fragment", "match"),
    [
        ("[[ecosystem.species]]\nname = 'A'\ninitial_density = -5.0\n", r"ecosystem\.species\[0\]\.initial_density"),
        ("[[ecosystem.species]]\nname = 'A'\nmax_radius = 0\n", r"ecosystem\.species\[0\]\.max_radius"),
        ("[[ecosystem.species]]\nname = 'A'\ntree = 'oak'\n", r"ecosystem\.species\[0\]\.tree"),
        ("[[ecosystem.species]]\nname = 'A'\n[[ecosystem.species]]\nname = 'A'\n", r"ecosystem\.species\[1\]\.name"),
        ("[[ecosystem.animals]]\nname = 'Wolf'\neats = ['Deer']\n", r"ecosystem\.animals\[0\]\.eats.*'Deer'"),
        ("[[ecosystem.animals]]\nname = 'Wolf'\neats = ['Wolf']\n", r"ecosystem\.animals\[0\]\.eats.*itself"),
        (
            "[[ecosystem.animals]]\nname = 'A'\neats = ['B']\n[[ecosystem.animals]]\nname = 'B'\neats = ['A']\n",
            r"ecosystem\.animals\[\d\]\.eats makes a cycle",
        ),
        ("[[ecosystem.animals]]\nname = 'A'\neats = 3\n", r"ecosystem\.animals\[0\]\.eats"),
        ("[[ecosystem.animals]]\nname = 'A'\ncount = -1\n", r"ecosystem\.animals\[0\]\.count"),
        ("[[ecosystem.species]]\nname = 'A'\nmax_radus = 3.0\n", r"max_radus.*did you mean.*max_radius"),
        ("years = -1\n", r"ecosystem\.years"),
    ],
)
def test_bad_input_is_one_line_naming_the_key(fragment, match):
    text = "[terrain]\nresolution = 65\n[ecosystem]\n" + fragment
    with pytest.raises(RecipeError, match=match) as err:
        recipe.loads(text)
    assert "\n" not in str(err.value)


def test_an_unknown_eats_lists_the_animals_the_table_has():
    """The listing ends with every animal of the table, the hunter itself too (a one-animal table
    listed "none")."""
    one = "[terrain]\nresolution = 65\n[ecosystem]\n[[ecosystem.animals]]\nname = 'Wolf'\neats = ['Deer']\n"
    with pytest.raises(RecipeError) as err:
        recipe.loads(one)
    assert str(err.value).endswith("animals: Wolf (itself)") and "none" not in str(err.value)
    two = one + "[[ecosystem.animals]]\nname = 'Hare'\neats = 'plants'\n"
    with pytest.raises(RecipeError) as err:
        recipe.loads(two)
    assert str(err.value).endswith("animals: Wolf (itself), Hare")


def test_a_billion_plants_are_refused_with_the_figure_before_any_allocation():
    dense = "".join(f"[[ecosystem.species]]\nname = 'S{i}'\ninitial_density = 10000.0\n" for i in range(10))
    with pytest.raises(RecipeError, match=r"initial_density 10000 per hectare .* 1,000,\d+,\d+ plants .* GB") as err:
        recipe.loads("[terrain]\nresolution = 65\nsize = 10000.0\n[ecosystem]\n" + dense)
    assert "\n" not in str(err.value)
    # the engine refuses too, before it allocates: a coarse 1,000 km^2 habitat
    spec = eco.from_dict({"species": [{"initial_density": 10000.0}]})
    hab = eco.habitat(np.zeros((101, 101)) + 50.0, cell_size=316.3)
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match=r"ecosystem\.species\[0\]\.initial_density .* at most 2,000,000"):
        drive(eco.plants_steps(spec, hab))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert time.perf_counter() - t0 < 1.0 and peak < 50e6


def test_too_many_seedlings_are_refused_naming_seeds_per_year():
    prolific = {**PIONEER, "initial_density": 2000.0, "seeds_per_year": 100_000.0, "germination": 1.0, "maturity": 0.0}
    spec = eco.from_dict({"years": 3, "species": [prolific, CLIMAX]})
    hab = eco.habitat(np.zeros((51, 51)) + 50.0, cell_size=4.0)
    with pytest.raises(ParameterError, match=r"ecosystem\.species\[0\]\.seeds_per_year .* plants in year 1"):
        drive(eco.plants_steps(spec, hab))


def test_the_food_web_lists_the_prey():
    r = recipe.loads(RECIPE)
    assert eco.food_web(r.ecosystem.animals) == {"Deer": (), "Wolf": ("Deer",)}
