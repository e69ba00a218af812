"""Tiled worlds: a grid of terrain tiles built tile by tile, seamless at their borders.

A recipe with ``[world] tiles = [nx, nz]`` describes ``nx * nz`` terrain tiles of ``[terrain]``'s
size side by side.  :func:`world_grid` gives its :class:`WorldGrid`; :func:`plan_world` lists the
:class:`Task` s that build it (erosion windows, then tiles; with erosion and rivers or roads a
``world`` task between them plans the networks on the stitched eroded heights) and :func:`run_task` runs one, as a pure
function of the recipe, the seed and the task (numpy only: any process, any order the
dependencies allow, the same bytes).  :func:`seam_report` measures how well the erosion windows
agree at the borders before they are blended.

The executors that run the plan (serial, threads, Dask), the driver and the world JSON are in
``_executors``, ``_driver`` and ``_world_json``; the ``[world]`` recipe section (:class:`WorldSpec`,
its ``LIMITS``, ``from_dict``/``to_dict`` and the tiled world's checks) in :mod:`.spec`; the sections
built once for the whole world (``[[trees]]``, ``[[level]]``: :func:`once_sections`) and their files'
record in ``_once``.
"""

from ._animals import (
    SHADE,
    WorldAnimals,
    animal_world_files,
    animal_world_names,
    wants_animals,
    world_animals,
    world_forage,
)
from ._driver import WorldRun, WorldTaskFn, cache_folder, run_world
from ._ecosystem import PlantGround, plant_ground, tile_plants
from ._executors import MAX_WORKERS, Cancelled, SerialExecutor, ThreadExecutor, check_tasks, check_workers
from ._grid import MIN_HALO_CELLS, WorldGrid, halo_cells, parse_tile_range, tile_base, world_grid
from ._networks import (
    MAX_NETWORK_CELLS,
    WorldNetworks,
    check_network_size,
    stitched_world,
    wants_networks,
    world_heights,
    world_networks,
)
from ._once import once_names, once_sections, verify_once, with_once, without_once
from ._overview import OVERVIEW_SIDE, overview_name, overview_png
from ._plan import Task, plan_world, run_task, tile_deps
from ._settlements import WorldSettlements
from ._stitch import seam_report
from ._tile import planned_roads, tile_layers, world_settlements
from ._window import window_loader
from ._world_json import (
    file_record,
    read_world_json,
    recipe_digest,
    verify_tiles,
    verify_world_files,
    with_records,
    world_json,
    world_json_path,
    write_world_json,
)
from .spec import (
    HALO,
    LIMITS,
    MAX_TILE_COUNT,
    SEED,
    TILE_RESOLUTIONS,
    TILES,
    WorldSpec,
    check_tiles,
    check_world,
    from_dict,
    tiles_fix_normalize,
    to_dict,
)

__all__ = [
    "WorldAnimals",
    "wants_animals",
    "world_animals",
    "world_forage",
    "SHADE",
    "animal_world_files",
    "animal_world_names",
    "window_loader",
    "PlantGround",
    "plant_ground",
    "tile_plants",
    "WorldSettlements",
    "world_settlements",
    "planned_roads",
    "WorldNetworks",
    "world_networks",
    "world_heights",
    "wants_networks",
    "stitched_world",
    "check_network_size",
    "MAX_NETWORK_CELLS",
    "WorldSpec",
    "LIMITS",
    "from_dict",
    "to_dict",
    "check_world",
    "check_tiles",
    "tiles_fix_normalize",
    "SEED",
    "TILES",
    "MAX_TILE_COUNT",
    "TILE_RESOLUTIONS",
    "HALO",
    "WorldGrid",
    "world_grid",
    "tile_base",
    "parse_tile_range",
    "halo_cells",
    "MIN_HALO_CELLS",
    "Task",
    "plan_world",
    "run_task",
    "tile_deps",
    "seam_report",
    "tile_layers",
    "overview_png",
    "overview_name",
    "OVERVIEW_SIDE",
    "once_sections",
    "without_once",
    "once_names",
    "verify_once",
    "with_once",
    "SerialExecutor",
    "ThreadExecutor",
    "Cancelled",
    "check_tasks",
    "check_workers",
    "MAX_WORKERS",
    "world_json",
    "world_json_path",
    "read_world_json",
    "write_world_json",
    "verify_world_files",
    "with_records",
    "verify_tiles",
    "file_record",
    "recipe_digest",
    "run_world",
    "WorldRun",
    "WorldTaskFn",
    "cache_folder",
]
