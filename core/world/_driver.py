"""Run a tiled world: plan, skip what is already complete, execute, keep the world JSON current.

:func:`run_world` is what the headless run and the Blender World panel call::

    run = run_world(recipe, out_dir, name="world", executor=ThreadExecutor(), tiles=None)

1. The world JSON already in ``out_dir`` (``<name>_world.json``) is read and
   every tile marked complete is checked: each listed file must be there with
   its size and SHA-256, and the JSON's ``recipe_sha256`` must be this
   recipe's (:func:`recipe_digest`); a different recipe means nothing is
   skipped.
2. :func:`plan_world` lists the tasks for the chosen tiles that are not
   complete (and the windows and neighbour tiles they need).
3. The executor runs them; after every finished tile the world JSON is
   rewritten atomically, so a run that is killed or cancelled keeps every tile
   it finished, and the next run skips them.  An earlier world JSON stays as it
   was until this run has finished a tile (or ends without building one): a
   run of a changed recipe that fails before its first tile (a full disk,
   Ctrl-C, a refused worker) leaves the earlier world described.
4. The cache folder (``<out_dir>/.<name>_world_cache``) holds every tile's
   erosion window and border props.  A tile's files there are deleted as soon
   as nothing needs them any more (:class:`CacheRelease`): every task of the
   plan that reads them has finished (on an executor other than the serial
   and thread ones, such as Dask, which may run a finished task again, also
   every task depending on those) and every tile of the tile's 3 x 3
   neighbourhood is complete.  So the cache holds the windows around the
   tiles being built (a band a few rows deep), not the whole world's; a run
   stopped half-way keeps what the unfinished tiles need, and the next plan
   makes again whatever they need and is gone.  Once every tile of the world
   is complete, the cache folder is removed; but for an eroded world with
   rivers or roads (``_networks.stitched_world``), whose plan reads the world's
   eroded heights stitched from every window (the ``world`` task, which runs
   after every window and before every tile: no window is deleted before it
   has run), the stitched heights (``world_heights.npz``) and the stamp stay in
   it, so what reads the plan after the run (the world's network files,
   Blender's tile objects) finds the same heights without eroding again.
5. The files of tiles outside the grid that an earlier run left (a larger grid
   before) are removed (:func:`stale_tile_files`; ``WorldRun.removed``).

The task function handed to the executor is a small picklable object
(:class:`WorldTaskFn`) that carries the recipe as TOML text, so a Dask worker
in another process rebuilds the same recipe with :func:`core.recipe.loads`.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import recipe as core_recipe
from ..errors import ParameterError, short
from ..unity import write_bytes_atomic
from ._animals import write_animal_world_files
from ._executors import Executor, SerialExecutor, ThreadExecutor
from ._grid import WorldGrid, parse_tile_range, world_grid
from ._networks import HEIGHTS_FILE, heights_path, stitched_world
from ._once import carry_once, without_once
from ._plan import Task, neighbourhood, plan_world, run_task
from ._tile import border_path, load_border
from ._window import load_window, window_path
from ._world_json import (
    read_world_json,
    recipe_digest,
    verify_tiles,
    verify_world_files,
    world_json,
    world_json_path,
    write_world_json,
)

if TYPE_CHECKING:
    from ..recipe import Recipe  # the recipe reads this package's spec

__all__ = ["CacheRelease", "WorldRun", "WorldTaskFn", "run_world", "cache_folder"]

#: File in the cache folder naming the recipe its windows were made from.
CACHE_STAMP = "recipe.sha256"
#: The files of tile ``(x, z)`` of a world run named ``name`` (``{name}`` escaped; groups: x, z): the
#: tile files core writes and the FBX the Blender side adds.
TILE_FILE = (
    r"^{name}_(\d+)_(\d+)"
    r"(?:\.raw|\.fbx|_placements\.json|_splat\d+\.png|_biomes\.png|_flow\.png|_terrain\.json|_detail\d+\.raw"
    r"|_texture\d+\.(?:png|jpg))$"
)


def cache_folder(out_dir: str, name: str) -> str:
    """``<out_dir>/.<name>_world_cache``: erosion windows shared by neighbouring tiles while a world builds."""
    return os.path.join(out_dir, f".{name}_world_cache")


@functools.lru_cache(maxsize=4)
def _parsed(text: str) -> tuple[Recipe, WorldGrid]:
    recipe = core_recipe.loads(text, source="world recipe")
    return recipe, world_grid(recipe)


class WorldTaskFn:
    """``fn(task, deps)`` for an executor: :func:`run_task` of one recipe into one folder.

    Pickles to the recipe's TOML text and three paths (a few kilobytes); a
    process that unpickles it parses the text once (cached) and runs tasks with
    the same bytes as the process that made it.
    """

    def __init__(self, recipe: Recipe, *, out_dir: str, name: str, cache_dir: str) -> None:
        self.text = core_recipe.dumps(recipe)
        self.out_dir, self.name, self.cache_dir = out_dir, name, cache_dir
        self._local: tuple[Recipe, WorldGrid] | None = (recipe, world_grid(recipe))

    def __getstate__(self) -> dict[str, str]:
        return {"text": self.text, "out_dir": self.out_dir, "name": self.name, "cache_dir": self.cache_dir}

    def __setstate__(self, state: Mapping[str, str]) -> None:
        self.__dict__.update(state)
        self._local = None

    def __call__(self, task: Task, deps: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        recipe, grid = self._local or _parsed(self.text)
        return run_task(
            task, recipe=recipe, grid=grid, out_dir=self.out_dir, name=self.name, cache_dir=self.cache_dir, deps=deps
        )


@dataclasses.dataclass(frozen=True)
class WorldRun:
    """What :func:`run_world` did.

    Attributes
    ----------
    grid : WorldGrid
    path : str
        The world JSON.
    built : tuple of (x, z)
        Tiles written by this run.
    skipped : tuple of (x, z)
        Chosen tiles that were already complete (verified) and were not rebuilt.
    complete : bool
        Every tile of the world is complete (and the cache folder is gone).
    results : dict
        ``{(x, z): run_task result}`` of the tiles written by this run (files, relief, ledger, border).
    document : dict
        The world JSON as written last.
    seconds : float
        Wall time of the run.
    removed : tuple of str
        Files of tiles outside the grid that an earlier run into the folder wrote (a larger grid),
        removed by this one (:func:`stale_tile_files`), so Unity's batch import by name finds only
        this world's tiles.
    """

    grid: WorldGrid
    path: str
    built: tuple[tuple[int, int], ...]
    skipped: tuple[tuple[int, int], ...]
    complete: bool
    results: dict[tuple[int, ...], dict[str, Any]]
    document: dict[str, Any]
    seconds: float
    removed: tuple[str, ...] = ()


def _chosen(tiles: str | Iterable[Sequence[int]] | None, grid: WorldGrid) -> tuple[tuple[int, int], ...]:
    if tiles is None:
        return tuple(grid.tiles())
    if isinstance(tiles, str):
        return parse_tile_range(tiles, grid)
    chosen = []
    for tile in tiles:
        try:
            x, z = (int(v) for v in tile)
        except (TypeError, ValueError):
            raise ParameterError(f"tiles must be (x, z) pairs of whole numbers, got {short(tile)}") from None
        if not grid.contains(x, z):
            raise ParameterError(
                f"tiles: {(x, z)} is outside the {grid.nx} x {grid.nz} grid "
                f"(x in [0, {grid.nx - 1}], z in [0, {grid.nz - 1}])"
            )
        if (x, z) not in chosen:
            chosen.append((x, z))
    return tuple(chosen)


def _fresh_cache(cache_dir: str, digest: str) -> None:
    """The cache folder, emptied when its windows came from another recipe.

    Never written through a link: a cache folder that is a symbolic link (or a file) is removed
    (the link, not what it points to) and made again as a plain folder; so is one whose stamp or
    any window in it is a link (nothing of the run's may be read from or written to elsewhere).
    """
    stamp = os.path.join(cache_dir, CACHE_STAMP)
    if os.path.islink(cache_dir) or (os.path.lexists(cache_dir) and not os.path.isdir(cache_dir)):
        os.remove(cache_dir)  # the link itself (or a file in the way of the folder)
    same = False
    if os.path.isdir(cache_dir):
        with os.scandir(cache_dir) as entries:
            linked = any(e.is_symlink() for e in entries)
        if not linked:
            try:
                with open(stamp, encoding="ascii") as fh:
                    same = fh.read().strip() == digest
            except OSError:
                same = False
    if not same:
        if os.path.isdir(cache_dir):
            shutil.rmtree(cache_dir)  # rmtree removes links inside, never what they point to
        os.mkdir(cache_dir)
        write_bytes_atomic(stamp, digest.encode("ascii"))


def remove_cache_files(cache_dir: str, names: Iterable[str]) -> tuple[str, ...]:
    """Remove the regular files ``names`` (bare names) directly in ``cache_dir``; returns the names removed.

    Never through a link: nothing is removed when ``cache_dir`` is a link (or no folder), and an
    entry that is a link (or no regular file) is left; a file that is gone already is skipped.
    """
    if os.path.islink(cache_dir) or not os.path.isdir(cache_dir):
        return ()
    removed = []
    for name in names:
        path = os.path.join(cache_dir, name)
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            os.remove(path)
        except OSError:
            continue  # gone already, or not ours to remove: the cache folder goes when the world is complete
        removed.append(name)
    return tuple(removed)


class CacheRelease:
    """Deletes a tile's window and border props from the cache as soon as nothing needs them.

    The files of tile ``N`` (``window_<N>.npz``, ``border_<N>.npz``) go once

    1. every task of ``tasks`` that reads them is done with them (the window: the tile tasks that
       blend it; the border: tile ``N``'s own task, which reads it back when it only builds props),
       and
    2. every tile of ``N``'s 3 x 3 neighbourhood is complete (in ``files``, the world JSON's tiles,
       which the driver updates before calling :meth:`finished`): no later run needs them (a tile
       built again after damage is planned with fresh windows and neighbours).

    A task is done with its files once it has finished; with ``rerun=True`` (an executor that may
    run a finished task again: Dask recomputes a result lost with its worker while a dependent
    still waits for it) only once every task that depends on it has finished too.  A tile that is
    not complete keeps its windows and its neighbours' borders (a resumed run or the next
    ``--tiles`` range reuses them).  Called on the driver's thread only (``on_result``), never in a
    worker, so a file is never deleted while a task that reads it could still start.

    Attributes
    ----------
    removed : int
        Files removed so far.
    """

    def __init__(
        self,
        cache_dir: str,
        grid: WorldGrid,
        tasks: Sequence[Task],
        files: Mapping[tuple[int, ...], Any],
        *,
        rerun: bool = False,
    ) -> None:
        self.cache_dir, self.grid, self.files = cache_dir, grid, files
        self.removed = 0
        by_key = {task.key: task for task in tasks}
        self.reads: dict[str, Any] = {}  # tile task key -> the files it reads: (kind, tile)
        self.waiting: collections.Counter[str] = (
            collections.Counter()
        )  # tile task key -> its dependents not finished (rerun only)
        self.pending: collections.Counter[tuple[str, tuple[int, ...]]] = (
            collections.Counter()
        )  # (kind, tile) -> tasks not done with it
        self.finished_keys: set[str] = set()
        for task in tasks:
            if task.kind != "tile":
                continue
            reads = [("border", tuple(task.tile))]
            for dep in task.deps:
                kind = by_key[dep].kind
                if kind == "window":
                    reads.append(("window", tuple(by_key[dep].tile)))
                elif rerun:
                    self.waiting[dep] += 1
            self.reads[task.key] = (task, reads)
            self.pending.update(reads)
        self.rerun = rerun

    def finished(self, task: Task) -> None:
        """Tile task ``task`` finished (and, when it writes, was recorded): release what it freed."""
        if task.key not in self.reads:
            return
        self.finished_keys.add(task.key)
        settled = [task.key] if self.waiting[task.key] <= 0 else []
        if self.rerun:
            for dep in task.deps:
                if dep in self.reads:
                    self.waiting[dep] -= 1
                    if self.waiting[dep] <= 0 and dep in self.finished_keys:
                        settled.append(dep)
        for key in settled:
            self.pending.subtract(self.reads[key][1])
        tiles = {task.tile} | {self.reads[key][0].tile for key in settled}
        for tile in sorted({n for t in tiles for n in neighbourhood(self.grid, *t)}):
            self.release(tile)

    def release(self, tile: tuple[int, int]) -> None:
        """Remove tile ``(x, z)``'s window and border when nothing needs them (see the class)."""
        if any(t not in self.files for t in neighbourhood(self.grid, *tile)):
            return
        x, z = tile
        names = [
            os.path.basename(make(self.cache_dir, x, z))
            for kind, make in (("window", window_path), ("border", border_path))
            if self.pending[kind, tuple(tile)] <= 0
        ]
        self.removed += len(remove_cache_files(self.cache_dir, names))

    def sweep(self) -> None:
        """Release every tile of the grid (the files an earlier run left that nothing needs)."""
        for tile in self.grid.tiles():
            self.release(tile)


def _stitched_in(cache_dir: str, digest: str) -> bool:
    """Whether the world's stitched heights of the recipe ``digest`` are in ``cache_dir`` (a regular file)."""
    path = heights_path(cache_dir)
    if not os.path.isfile(path) or os.path.islink(path):
        return False
    return load_window(path, digest, keys=("digest",)) is not None


def cached_borders(
    cache_dir: str, grid: WorldGrid, digest: str, *, skip: Iterable[Sequence[int]] = ()
) -> tuple[tuple[int, int], ...]:
    """The tiles of ``grid`` (but ``skip``) whose border props are in ``cache_dir`` for the recipe
    ``digest`` (regular files only): :func:`plan_world` plans them without windows when it needs
    only their props."""
    skip = set(skip)
    tiles = []
    for x, z in grid.tiles():
        path = border_path(cache_dir, x, z)
        if (x, z) in skip or not os.path.isfile(path) or os.path.islink(path):
            continue
        if load_border(path, digest) is not None:
            tiles.append((x, z))
    return tuple(tiles)


def stale_tile_files(out_dir: str, name: str, grid: WorldGrid, earlier: Mapping[str, Any] | None = None) -> list[str]:
    """The files in ``out_dir`` of tiles outside ``grid`` that an earlier world run named ``name``
    wrote: listed in its world JSON ``earlier`` (the document before this run), or named as a tile's
    files are (:data:`TILE_FILE`).  Regular files directly in ``out_dir`` only, never a link."""
    pattern = re.compile(TILE_FILE.format(name=re.escape(name)))
    names: set[str] = set()
    for entry in (earlier or {}).get("tiles", ()):
        try:
            x, z = int(entry["x"]), int(entry["z"])
        except (KeyError, TypeError, ValueError):
            continue
        if not grid.contains(x, z):
            names.update(str(f.get("name", "")) for f in entry.get("files", ()) if isinstance(f, dict))
    for file_name in os.listdir(out_dir):
        match = pattern.match(file_name)
        if match and not grid.contains(int(match.group(1)), int(match.group(2))):
            names.add(file_name)
    paths = []
    for file_name in sorted(names):
        path = os.path.join(out_dir, file_name)
        if file_name and os.path.basename(file_name) == file_name and not file_name.startswith("."):
            if os.path.isfile(path) and not os.path.islink(path):
                paths.append(path)
    return paths


def _remove_stale_tiles(out_dir: str, name: str, grid: WorldGrid, earlier: Mapping[str, Any] | None) -> tuple[str, ...]:
    removed = []
    for path in stale_tile_files(out_dir, name, grid, earlier):
        try:
            os.remove(path)
        except OSError:
            continue  # not ours to remove after all (permissions): leave it
        removed.append(path)
    return tuple(removed)


def run_world(
    recipe: Recipe,
    out_dir: str,
    *,
    name: str = "world",
    executor: Executor | None = None,
    tiles: str | Iterable[Sequence[int]] | None = None,
    progress: Callable[[int, int, str], object] | None = None,
    cancel: threading.Event | None = None,
) -> WorldRun:
    """Build the tiles of a tiled world into ``out_dir`` (see the module docstring).

    Parameters
    ----------
    recipe : Recipe
        A recipe with ``[world] tiles``; its sections built once (``once_sections``) are not the
        tiles' (the Blender side builds them) and not part of the world JSON's ``recipe_sha256``.
    out_dir : str
        Output folder (created if missing).
    name : str
        File name of the run: tiles are ``<name>_<x>_<z>...``, the world JSON ``<name>_world.json``.
    executor : SerialExecutor, ThreadExecutor or DaskExecutor, optional
        Runs the tasks (default: serial, in this thread).
    tiles : sequence of (x, z), or str, optional
        The tiles to build (``"X0:X1,Z0:Z1"`` as :func:`parse_tile_range` reads it); every tile when None.
    progress : callable, optional
        ``progress(done, total, label)`` per finished task.
    cancel : threading.Event-like, optional
        Checked between tasks; once set the run raises ``Cancelled`` and the tiles finished so far stay.

    Returns
    -------
    run : WorldRun
    """
    start = time.perf_counter()
    recipe = without_once(recipe)  # the tiles never read the sections built once ([[trees]], [[level]])
    grid = world_grid(recipe)
    chosen = _chosen(tiles, grid)
    executor = SerialExecutor() if executor is None else executor
    os.makedirs(out_dir, exist_ok=True)
    path = world_json_path(out_dir, name)
    digest = recipe_digest(recipe)
    earlier = read_world_json(path)
    files = verify_tiles(out_dir, earlier, recipe_sha256=digest)
    world_files = verify_world_files(out_dir, earlier, recipe_sha256=digest)  # the prop library ...: kept
    cache_dir = cache_folder(out_dir, name)
    # the world's animals, once (Esc stops the pass between its steps); on an eroded world's stitched
    # heights after the world task, unless they are in the cache already
    animals_first = not stitched_world(recipe) or _stitched_in(cache_dir, digest)
    if animals_first:
        world_files = write_animal_world_files(
            recipe, grid, out_dir, name, world_files, cache_dir, progress=progress, cancel=cancel
        )
    skipped = tuple(t for t in chosen if t in files)
    seed = recipe.world.seed
    document = world_json(grid, name=name, seed=seed, recipe_sha256=digest, files=files, world_files=world_files)
    document = carry_once(document, earlier)  # the files of [[trees]] and [[level]]: listed while in the folder
    written = earlier is None  # the earlier world JSON is kept until this run completes a tile (or ends)
    if written:
        write_world_json(path, document)
    todo = tuple(t for t in chosen if t not in files)
    results: dict[tuple[int, ...], dict[str, Any]] = {}
    if todo:
        _fresh_cache(cache_dir, digest)
        cached = cached_borders(cache_dir, grid, digest, skip=todo)
        stitched = stitched_world(recipe) and _stitched_in(cache_dir, digest)
        tasks = plan_world(grid, recipe, tiles=todo, done=tuple(files), cached=cached, stitched=stitched)
        # Serial and thread executors never run a finished task again; any other may (Dask)
        rerun = not isinstance(executor, (SerialExecutor, ThreadExecutor))
        release = CacheRelease(cache_dir, grid, tasks, files, rerun=rerun)
        release.sweep()

        def on_result(task: Task, result: dict[str, Any]) -> None:
            nonlocal document, written
            if task.kind == "tile" and task.write:
                files[tuple(task.tile)] = result["files"]
                results[tuple(task.tile)] = result
                document = world_json(
                    grid, name=name, seed=seed, recipe_sha256=digest, files=files, world_files=world_files
                )
                document = carry_once(document, earlier)
                write_world_json(path, document)
                written = True
            release.finished(task)  # after the record: a kill in between leaves a file, never a gap

        fn = WorldTaskFn(recipe, out_dir=out_dir, name=name, cache_dir=cache_dir)
        executor.run(tasks, fn, progress=progress, cancel=cancel, on_result=on_result)
    if not animals_first:  # the world's animals on the heights the world task stitched (the line stays up)
        said = None if progress is None else (lambda done, total, stage: progress(1, 1, stage))
        kept = world_files
        world_files = write_animal_world_files(
            recipe, grid, out_dir, name, world_files, cache_dir, progress=said, cancel=cancel
        )
        if world_files is not kept:
            document = world_json(
                grid, name=name, seed=seed, recipe_sha256=digest, files=files, world_files=world_files
            )
            document = carry_once(document, earlier)
            write_world_json(path, document)
            written = True
    if not written:  # nothing built (every chosen tile complete): the document of what was verified
        write_world_json(path, document)
    complete = all(t in files for t in grid.tiles())
    if complete and os.path.isdir(cache_dir) and not os.path.islink(cache_dir):
        if stitched_world(recipe):  # the plan's heights stay (see the module docstring), the rest goes
            keep = {CACHE_STAMP, HEIGHTS_FILE}
            remove_cache_files(cache_dir, [n for n in os.listdir(cache_dir) if n not in keep])
        else:
            shutil.rmtree(cache_dir, ignore_errors=True)
    built = tuple(t for t in chosen if t in results)
    removed = _remove_stale_tiles(out_dir, name, grid, earlier)
    return WorldRun(
        grid=grid,
        path=path,
        built=built,
        skipped=skipped,
        complete=complete,
        results=results,
        document=document,
        seconds=time.perf_counter() - start,
        removed=removed,
    )
