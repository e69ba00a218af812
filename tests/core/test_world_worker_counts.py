"""The same world from 1 and 4 Dask worker processes and from 1 and 4 threads: the serial bytes.

``test_world_dask`` covers 2 workers (and threads, a scheduler by address, a killed worker); this
file adds the other worker counts the issue names, each on a cluster started and stopped here.
"""

import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core import world as core_world
from worldseed.scaleout.dask_executor import DaskExecutor

from ._world_cases import digests

WORLD = """
[world]
name = "Counts"
seed = 29
tiles = [3, 2]

[terrain]
resolution = 33
size = 128.0
height = 40.0
falloff = "square"
falloff_width = 0.4

[terrain.erosion]
enabled = true
droplets_per_km2 = 30000.0

[[splat]]
name = "Ground"

[[splat]]
name = "Cliff"
slope_range = [20.0, 90.0]

[[scatter]]
name = "Stones"
prop = "rock"
radius = 6.0
"""


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("serial"))
    run = core_world.run_world(core_recipe.loads(WORLD), folder)
    assert run.complete and len(run.built) == 6
    written = digests(folder, hidden=True)
    assert sum(name.endswith(".raw") for name in written) >= 6 and any("_placements" in n for n in written)
    return written


@pytest.mark.parametrize("workers", [1, 4])
def test_dask_worker_counts_give_the_serial_bytes(serial, workers, tmp_path):
    with DaskExecutor(workers=workers) as ex:
        assert len(ex.client.scheduler_info()["workers"]) == workers
        run = core_world.run_world(core_recipe.loads(WORLD), str(tmp_path), executor=ex)
    assert run.complete and sorted(run.built) == sorted(run.grid.tiles())
    assert digests(str(tmp_path), hidden=True) == serial


@pytest.mark.parametrize("workers", [1, 4])
def test_thread_counts_give_the_serial_bytes(serial, workers, tmp_path):
    run = core_world.run_world(
        core_recipe.loads(WORLD), str(tmp_path), executor=core_world.ThreadExecutor(workers=workers)
    )
    assert run.complete
    assert digests(str(tmp_path), hidden=True) == serial
