"""Tiled worlds in Blender: Build Tiles -- the world run, then its tiles into the scene.

:func:`build_steps` is Build Tiles: ``core.world.run_world`` on a worker thread (:func:`run_steps`,
holding the world folder's lock; Esc cancels it and :func:`run_stopping` / :func:`wait_for_runs`
follow the tasks still ending), then the assembly of the tiles from their files
(:func:`assemble_steps`, each tile by ``.world_tiles.tile_steps``).  Tiles already in the scene are
replaced only at the very end; closing early leaves the scene as it was.
"""

from __future__ import annotations

import concurrent.futures
import os
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import bpy

from ...core.errors import ParameterError
from ...core.steps import drive
from ...core.world import ThreadExecutor, run_world, tile_base, world_grid
from . import outputs
from .fbx import ExportError
from .outputs import folder_lock
from .query import KIND_KEY
from .world_tiles import TILE_KIND, data_names, remove_new_data, remove_tiles, rename_tile, tile_steps

if TYPE_CHECKING:
    from ...core.recipe import Recipe
    from ...core.steps import Progress, Steps
    from ...core.world import WorldRun

#: The tiles a world build is asked for: ``(x, z)`` index pairs.
Tiles = Iterable[Sequence[int]]

__all__ = [
    "assemble_steps",
    "assemble_tiles",
    "run_steps",
    "run_stopping",
    "wait_for_runs",
    "build_steps",
    "RUN_PROGRESS",
]


def assemble_steps(
    recipe: Recipe, folder: str, name: str, tiles: Tiles, *, collection: bpy.types.Collection
) -> Steps[dict[tuple[int, ...], bpy.types.Object]]:
    """Assemble the tiles ``tiles`` (``(x, z)`` pairs) of ``recipe``'s world from ``folder``, yielding
    ``(done, total, label)``; returns ``{(x, z): root}``.

    Tiles of the same name already in the scene are replaced, all at the very end; an object of a
    tile's name that is not a tile is an error (before anything is made).  Closing early removes
    what was made and leaves the scene as it was.
    """
    tiles = [tuple(int(v) for v in t) for t in tiles]
    grid = world_grid(recipe)
    for x, z in tiles:
        wanted = grid.object_name(x, z)
        other = bpy.data.objects.get(wanted)
        if other is not None and other.get(KIND_KEY) != TILE_KIND:
            raise ParameterError(f"an object named {wanted!r} is in the way of tile ({x}, {z}); rename it")
        if not os.path.isfile(os.path.join(folder, tile_base(name, x, z) + ".raw")):
            raise ParameterError(f"tile ({x}, {z}) has no heights in {folder!r}: build it first")
    per_tile = recipe.terrain.lods + 3
    total = per_tile * len(tiles) + 1
    made: dict[tuple[int, ...], bpy.types.Object] = {}
    steps: Steps[bpy.types.Object] | None = None
    before = data_names()
    try:
        for i, (x, z) in enumerate(tiles):
            steps = tile_steps(recipe, folder, name, x, z, collection=collection)
            while True:
                try:
                    done, _of, label = next(steps)
                except StopIteration as stop:
                    made[(x, z)] = stop.value
                    break
                yield i * per_tile + done, total, label
        # (fake-bpy-module types a collection's get() as returning its default's type)
        old: list[bpy.types.Object | None] = [bpy.data.objects.get(grid.object_name(x, z)) for x, z in tiles]
        remove_tiles([o for o in old if o is not None and o not in made.values()])
        for (x, z), root in made.items():
            rename_tile(root, grid.object_name(x, z))
        yield total, total, "done"
        return made
    except BaseException:
        if steps is not None:
            steps.close()  # the tile being made removes itself first
        remove_tiles(list(made.values()))
        remove_new_data(before)
        raise


def assemble_tiles(
    recipe: Recipe,
    folder: str,
    name: str,
    tiles: Tiles,
    *,
    collection: bpy.types.Collection,
    progress: Callable[[int, int, str], object] | None = None,
) -> dict[tuple[int, ...], bpy.types.Object]:
    """:func:`assemble_steps` run to its end."""
    return drive(assemble_steps(recipe, folder, name, tiles, collection=collection), progress)


# --------------------------------------------------------------------------- the world run


#: Progress steps the world run (tiles built by core) counts for in :func:`build_steps`, before assembly.
RUN_PROGRESS = 1000


#: Cancelled world runs whose running tasks are still ending on their worker.
_STOPPING: list[Any] = []


def run_stopping() -> bool:
    """Whether a cancelled world run still ends its running tasks (a new run waits for it: both would
    write the same world JSON)."""
    _STOPPING[:] = [f for f in _STOPPING if not f.done()]
    return bool(_STOPPING)


def wait_for_runs(timeout: float | None = None) -> bool:
    """Wait for the cancelled world runs to end (at most ``timeout`` seconds); True when none runs."""
    concurrent.futures.wait(list(_STOPPING), timeout=timeout)
    return not run_stopping()


def _locked_run_world(recipe: Recipe, folder: str, *, wait: float, **kwargs: Any) -> WorldRun:
    """``core.world.run_world`` holding ``folder``'s lock (as the headless run and the exports do):
    another Worldseed run writing the folder is waited for up to ``wait`` seconds, then refused."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ExportError(f"world folder {folder!r} cannot be created: {err.strerror or err}") from None
    progress = kwargs.get("progress")
    if progress is not None:  # shown while another run holds the folder (the run's first step replaces it)
        progress(0, 1, "waiting for the world folder")
    with folder_lock(folder, wait=wait):
        return run_world(recipe, folder, **kwargs)


def run_steps(
    recipe: Recipe,
    folder: str,
    name: str,
    tiles: str | Tiles | None,
    *,
    workers: int | None = None,
    poll: float = 0.05,
    wait: float | None = None,
) -> Steps[WorldRun]:
    """``core.world.run_world`` of ``tiles`` into ``folder`` on a worker thread (a ``ThreadExecutor`` of
    ``workers`` threads under it), yielding ``(done, total, label)`` -- the last step again while
    waiting, so a modal operator stays responsive; returns its ``WorldRun``.

    The worker holds the folder's lock for the whole run (``outputs.folder_lock``; another
    Worldseed run writing the folder -- a headless run, an export -- is waited for up to ``wait``
    seconds, default ``outputs.LOCK_WAIT``, then the run fails with one line saying so).

    Closing the generator (Esc) cancels the run at once: no new task starts, the running ones end
    on the worker (their files are whole; :func:`run_stopping` says whether one still does, and
    :func:`wait_for_runs` waits for them), the tiles finished so far stay in the folder, listed in
    the world JSON, and the next run skips them.  Nothing of Blender is touched off the main thread.
    """
    cancel = threading.Event()
    steps: queue.SimpleQueue[Progress] = queue.SimpleQueue()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="worldseed-world-run")
    future = pool.submit(
        _locked_run_world,
        recipe,
        folder,
        wait=outputs.LOCK_WAIT if wait is None else wait,
        name=name,
        executor=ThreadExecutor(workers),
        tiles=tiles,
        progress=lambda done, total, label: steps.put((done, total, label)),
        cancel=cancel,
    )
    pool.shutdown(wait=False)
    last = (0, 1, "planning")
    try:
        while True:
            if not steps.empty():
                last = steps.get_nowait()
                yield last  # every task's step, so each shows (and Esc lands after it)
                continue
            if future.done():
                return future.result()
            try:
                future.result(timeout=poll)
            except concurrent.futures.TimeoutError:
                pass
            yield last
    finally:
        if not future.done():  # Esc: the UI comes back now, the worker ends its running tasks
            cancel.set()
            _STOPPING.append(future)


def build_steps(
    recipe: Recipe,
    folder: str,
    name: str,
    tiles: str | Tiles | None,
    *,
    collection: bpy.types.Collection,
    workers: int | None = None,
    wait: float | None = None,
) -> Steps[tuple[WorldRun, dict[tuple[int, ...], bpy.types.Object]]]:
    """Build ``tiles`` of ``recipe``'s world: their files into ``folder`` (:func:`run_steps`, tiles
    complete already are skipped), then their objects (:func:`assemble_steps`), yielding
    ``(done, total, label)``; returns ``(run, {(x, z): root})``.  Closing early leaves the scene
    as it was (and the folder with the tiles finished so far).  ``wait``: seconds to wait for the
    folder's lock (:func:`run_steps`)."""
    total = 2 * RUN_PROGRESS
    steps = run_steps(recipe, folder, name, tiles, workers=workers, wait=wait)
    while True:
        try:
            done, of, label = next(steps)
        except StopIteration as stop:
            run = stop.value
            break
        yield min(RUN_PROGRESS, RUN_PROGRESS * done // max(of, 1)), total, f"building tiles: {label}"
    chosen = sorted({*run.built, *run.skipped}, key=lambda t: (t[1], t[0]))
    assembling = assemble_steps(recipe, folder, name, chosen, collection=collection)
    while True:
        try:
            done, of, label = next(assembling)
        except StopIteration as stop:
            return run, stop.value
        yield RUN_PROGRESS + RUN_PROGRESS * done // max(of, 1), total, label
