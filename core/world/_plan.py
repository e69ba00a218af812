"""The plan of a tiled world: its tasks, their dependencies, a serial order; and running one task.

Three kinds of :class:`Task`: ``window_<x>_<z>`` erodes tile ``(x, z)``'s window (only when erosion
is on or the flow is needed), ``tile_<x>_<z>`` builds the tile from the windows of its 3 x 3
neighbourhood and the border props of its lower-coloured neighbours, and, in an eroded world with
rivers or roads (``_networks.stitched_world``), one ``world`` task after every window: it stitches
the world's eroded heights into the cache (``_networks.stitch_heights``) and plans the networks on
them; every tile task that builds depends on it (the tiles carve that plan).  :func:`run_task` is a pure
function of the recipe (its seed) and the task: any process, any valid order, the same bytes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ParameterError
from ._grid import WorldGrid
from ._networks import check_network_size, stitch_heights, stitched_world, wants_networks, world_networks
from ._tile import run_tile
from ._window import needs_windows, run_window
from ._world_json import recipe_digest

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["Task", "neighbourhood", "plan_world", "run_task", "tile_deps"]

KINDS = ("window", "tile", "world")
#: The key of the ``world`` task.
WORLD_KEY = "world"


@dataclass(frozen=True)
class Task:
    """One job of a world build.

    Attributes
    ----------
    key : str
        ``"window_<x>_<z>"``, ``"tile_<x>_<z>"`` or ``"world"``.
    kind : {'window', 'tile', 'world'}
    tile : (int, int)
        The tile ``(x, z)`` (``(0, 0)`` for the world task).
    deps : tuple of str
        Keys of the tasks whose results this one reads.
    write : bool
        Whether a tile task writes its files (False: built only for its neighbours' sake).
    """

    key: str
    kind: str
    tile: tuple[int, int]
    deps: tuple[str, ...] = ()
    write: bool = True


def _key(kind: str, x: int, z: int) -> str:
    return f"{kind}_{x}_{z}"


def neighbourhood(grid: WorldGrid, x: int, z: int) -> list[tuple[int, int]]:
    """The tile and its 8 neighbours inside the grid, in (z, x) order: the windows a tile blends, and
    the tiles that blend window ``(x, z)``."""
    return [(tx, tz) for tz in (z - 1, z, z + 1) for tx in (x - 1, x, x + 1) if grid.contains(tx, tz)]


def tile_deps(grid: WorldGrid, x: int, z: int) -> list[tuple[int, int]]:
    """The tiles whose border props tile ``(x, z)`` waits for: its 8-neighbours of lower colour."""
    c = grid.colour(x, z)
    return [(tx, tz) for tx, tz in neighbourhood(grid, x, z) if (tx, tz) != (x, z) and grid.colour(tx, tz) < c]


def plan_world(
    grid: WorldGrid,
    recipe: Recipe,
    *,
    tiles: Iterable[Sequence[int]] | None = None,
    done: Iterable[Sequence[int]] = (),
    cached: Iterable[Sequence[int]] = (),
    stitched: bool = False,
) -> tuple[Task, ...]:
    """The tasks that build ``tiles`` (default: every tile) of the world, in a valid serial order.

    Parameters
    ----------
    grid : WorldGrid
    recipe : Recipe
    tiles : iterable of (x, z) or None
        The tiles to build and write.  The tiles they depend on (lower-coloured neighbours, and
        theirs) are planned too, with ``write=False``: their props are needed, not their files.
    done : iterable of (x, z)
        Tiles already complete: not rebuilt; planned with ``write=False`` only when a tile to build
        depends on them (their border props are then read from the cache when there).
    cached : iterable of (x, z)
        Tiles whose border props are in the cache (``border_<x>_<z>.npz`` of this recipe): planned
        with ``write=False`` they have no dependencies (neither windows nor tiles), since
        :func:`run_task` then only reads the border back.  A tile to write is built whole anyway.
    stitched : bool
        In a world with the ``world`` task (``_networks.stitched_world``): whether the world's
        stitched heights are in the cache already (then the world task needs no window; otherwise
        it depends on every tile's window, planned first).

    Returns
    -------
    tasks : tuple of Task
        Every task after its dependencies; tiles are taken row by row (z, then x), or column by
        column (x, then z) when the grid is at least twice as wide as tall, and each pulls in its
        windows and dependencies just before it, so few windows are alive at a time: the driver
        deletes a window once its 3 x 3 tiles are complete, which leaves a band of about 3 rows
        (or 5 columns: the colours' dependencies reach further along x) of live windows.  With
        the ``world`` task (not ``stitched``), every window comes first, then the world task.

    Raises ParameterError before any work when the world's networks are too big to plan whole
    (``_networks.check_network_size``).
    """
    chosen = [tuple(t) for t in (grid.tiles() if tiles is None else tiles)]
    for x, z in chosen:
        if not grid.contains(x, z):
            raise ParameterError(f"tiles: ({x}, {z}) is outside the {grid.nx} x {grid.nz} grid")
    done = {tuple(t) for t in done}
    build = [t for t in chosen if t not in done]
    writes = set(build)
    cached = {tuple(t) for t in cached}
    windows = needs_windows(recipe)
    out, seen = [], set()
    world: list[str] = []
    if wants_networks(recipe):
        check_network_size(grid)
    if build and stitched_world(recipe):  # the world's eroded heights: every window, then the world task
        deps = []
        if not stitched:
            for tx, tz in grid.tiles():
                wkey = _key("window", tx, tz)
                seen.add(wkey)
                out.append(Task(wkey, "window", (tx, tz)))
                deps.append(wkey)
        out.append(Task(WORLD_KEY, "world", (0, 0), tuple(sorted(deps))))
        world.append(WORLD_KEY)

    def tile_task(x: int, z: int) -> None:
        key = _key("tile", x, z)
        if key in seen:
            return
        seen.add(key)
        if (x, z) in cached and (x, z) not in writes:
            out.append(Task(key, "tile", (x, z), (), False))
            return
        deps = list(world)
        for tx, tz in tile_deps(grid, x, z):
            tile_task(tx, tz)
            deps.append(_key("tile", tx, tz))
        if windows:
            for tx, tz in neighbourhood(grid, x, z):
                wkey = _key("window", tx, tz)
                if wkey not in seen:
                    seen.add(wkey)
                    out.append(Task(wkey, "window", (tx, tz)))
                deps.append(wkey)
        out.append(Task(key, "tile", (x, z), tuple(sorted(deps)), (x, z) in writes))

    # the band of live windows: about 3 rows of nx tiles row by row, 5 columns of nz column by column
    order = (lambda t: t) if grid.nx >= 2 * grid.nz else (lambda t: (t[1], t[0]))
    for x, z in sorted(build, key=order):
        tile_task(x, z)
    return tuple(out)


def run_task(
    task: Task,
    *,
    recipe: Recipe,
    grid: WorldGrid,
    out_dir: str,
    name: str,
    cache_dir: str,
    deps: Mapping[str, dict[str, Any]],
) -> dict[str, Any]:
    """Run one :class:`Task`; returns its small result dict.

    ``window`` -> ``{"key", "kind", "tile", "path", "seconds"}``;
    ``tile`` -> ``{"key", "kind", "tile", "files": [{"name", "bytes", "sha256"}], "border",
    "ledger", "relief": [min_m, max_m], "seconds"}``; ``world`` -> ``{"key", "kind", "tile",
    "relief": [min_m, max_m], "seconds"}`` (the stitched heights in the cache, the networks planned
    and kept in this process).  ``deps``: ``{key: result}`` of the task's
    dependencies.  Everything it writes is written atomically.
    """
    start = time.perf_counter()
    x, z = task.tile
    result: dict[str, Any] = {"key": task.key, "kind": task.kind, "tile": (x, z)}
    if task.kind == "window":
        path, summary = run_window(recipe, grid, x, z, cache_dir)
        result["path"] = path
        result["relief"] = summary["relief"]
    elif task.kind == "tile":
        result.update(
            run_tile(
                recipe,
                grid,
                x,
                z,
                out_dir=out_dir,
                name=name,
                cache_dir=cache_dir,
                deps=dict(deps or {}),
                write=task.write,
            )
        )
    elif task.kind == "world":
        values = stitch_heights(recipe, grid, cache_dir)
        result["relief"] = [float(values.min()) * grid.height, float(values.max()) * grid.height]
        del values
        world_networks(recipe, grid, recipe_digest(recipe), cache_dir)  # the tiles of this process share it
    else:
        raise ParameterError(f"task.kind must be one of {KINDS}, got {task.kind!r}")
    result["seconds"] = time.perf_counter() - start
    return result
