"""core.world.run_world never writes through a link in its cache folder (``.<name>_world_cache``).

A cache folder that is a symbolic link to another folder is removed (the link) and made again as a
plain folder, even when the folder it points to holds this recipe's stamp (the run would have
trusted it); a link inside the cache empties it.  The folder linked to is left exactly as it was.
"""

import os

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.core.world import _driver

from ._world_cases import isle

WORLD = isle(splats=0, rocks=None)  # erosion only


@pytest.fixture(scope="module")
def recipe():
    return core_recipe.loads(WORLD)


def listing(folder):
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))}


@pytest.mark.parametrize("stamped", [False, True], ids=["empty", "with-this-recipes-stamp"])
def test_a_linked_cache_folder_is_replaced_and_its_target_untouched(recipe, tmp_path, stamped):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    if stamped:
        (victim / _driver.CACHE_STAMP).write_text(core_world.recipe_digest(recipe))
    before = listing(victim)
    cache = core_world.cache_folder(str(out), "world")
    os.symlink(victim, cache)
    run = core_world.run_world(recipe, str(out), tiles=[(0, 0)])  # part of the world: the cache stays
    assert run.built == ((0, 0),) and not run.complete
    assert listing(victim) == before  # no window_*.npz, no stamp written through the link
    assert os.path.isdir(cache) and not os.path.islink(cache)
    assert any(n.startswith("window_") for n in os.listdir(cache))


def test_a_link_inside_the_cache_empties_it(recipe, tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    core_world.run_world(recipe, str(out), tiles=[(0, 0)])
    cache = core_world.cache_folder(str(out), "world")
    window = os.path.join(cache, "window_1_0.npz")
    os.remove(window)
    os.symlink(victim / "window_1_0.npz", window)  # a dangling link: a write through it lands in victim
    core_world.run_world(recipe, str(out), tiles=[(1, 0)])
    assert os.listdir(victim) == []
    assert not any(os.path.islink(os.path.join(cache, n)) for n in os.listdir(cache))


def test_a_file_in_the_way_of_the_cache_folder_is_replaced(recipe, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    cache = core_world.cache_folder(str(out), "world")
    open(cache, "w").close()
    run = core_world.run_world(recipe, str(out), tiles=[(0, 0)])
    assert run.built == ((0, 0),) and os.path.isdir(cache)
