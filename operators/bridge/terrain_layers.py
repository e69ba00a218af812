"""The terrain's layers in Blender: erosion, water flow, biomes and texture layers.

``core.terrain.terrain_layers_steps`` does the work (numpy only, yielding
progress); this module runs it for the terrain build -- on a worker thread,
so the modal operator stays responsive and Esc stops it at the next step --,
keeps the last results (a rebuild, the scatter and Export for Unity reuse
them instead of eroding again), and writes the Unity terrain package files
(``<name>_splat<k>.png``, ``<name>_biomes.png``, ``<name>_flow.png``,
``<name>_terrain.json``, detail layers, and a copy of each texture layer's image,
``<name>_texture<k>.png`` / ``.jpg``) whose bytes core makes.
"""

from __future__ import annotations

import collections
import concurrent.futures
import os
import queue
import threading
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ...core import terrain as core_terrain
from ...core import unity_package as core_package
from ...core.steps import Progress, Steps, drive
from ...core.terrain import TerrainHeights, TerrainLayers

if TYPE_CHECKING:
    from ...core.recipe import Recipe

T = TypeVar("T")
U = TypeVar("U")

__all__ = [
    "has_layers",
    "has_networks",
    "layers_steps",
    "layers_for",
    "is_kept",
    "worker_steps",
    "forget",
    "keep",
    "Relay",
    "Cancelled",
    "package_names",
    "detail_count",
    "package_files",
    "PACKAGE_FILE",
]

#: Terrain layers kept in memory: the last (it holds several maps of the terrain's size; the
#: rebuild, the scatter and the export of the terrain just built reuse it).
CACHE_SIZE = 1
_CACHE: collections.OrderedDict[object, Any] = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()
#: File names of a terrain package beside the RAW heightmap (``{name}`` the export's base name).
PACKAGE_FILE = r"^{name}_(?:splat\d+\.png|biomes\.png|flow\.png|terrain\.json|detail\d+\.raw|texture\d+\.(?:png|jpg))$"


def has_layers(recipe: Recipe) -> bool:
    """Whether the terrain of ``recipe`` has layers to work out: erosion, rivers, roads, biomes or
    texture layers.  Without them its heights are core's terrain heights, bit for bit."""
    erosion = getattr(recipe.terrain, "erosion", None)
    biomes = getattr(recipe, "biomes", None)
    settled = getattr(getattr(recipe, "settlements", None), "enabled", False)
    return bool(
        getattr(erosion, "enabled", False)
        or getattr(biomes, "enabled", False)
        or getattr(recipe, "splat", ())
        or has_networks(recipe)
        or settled
    )


def has_networks(recipe: Recipe) -> bool:
    """Whether ``recipe``'s terrain has rivers or roads (``[rivers]`` / ``[roads]`` on)."""
    return bool(
        getattr(getattr(recipe, "rivers", None), "enabled", False)
        or getattr(getattr(recipe, "roads", None), "enabled", False)
    )


def _key(recipe: Recipe) -> tuple[Any, ...]:
    """What the layers depend on: the seed, the terrain, the rivers and roads, the biomes (and their
    table file's time) and the texture layers."""
    biomes = getattr(recipe, "biomes", None)
    table = getattr(biomes, "table", "")
    stamp = os.path.getmtime(table) if table and os.path.isfile(table) else None
    networks = (_on(getattr(recipe, "rivers", None)), _on(getattr(recipe, "roads", None)))
    settled = _on(getattr(recipe, "settlements", None))
    return (recipe.world.seed, recipe.terrain, *networks, settled, biomes, stamp, tuple(getattr(recipe, "splat", ())))


def _on(spec: Any) -> Any:
    """A section's spec when it is on, else None (an off section's settings change nothing)."""
    return spec if getattr(spec, "enabled", False) else None


def layers_steps(recipe: Recipe, heights: TerrainHeights) -> Steps[TerrainLayers]:
    """The layers of ``recipe``'s terrain from its ``heights`` (a :class:`core.terrain.TerrainHeights`),
    yielding ``(done, total, label)``; returns a ``core.terrain.TerrainLayers`` (the last results
    are kept: the same recipe again costs nothing)."""
    key = _key(recipe)
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    layers = yield from core_terrain.terrain_layers_steps(
        heights,
        terrain_spec=recipe.terrain,
        biomes_spec=getattr(recipe, "biomes", None),
        splats=tuple(getattr(recipe, "splat", ())),
        seed=recipe.world.seed,
        flow=True,  # the flow map is part of the package whenever the terrain has layers
        rivers_spec=_on(getattr(recipe, "rivers", None)),
        roads_spec=_on(getattr(recipe, "roads", None)),
        settlements_spec=_on(getattr(recipe, "settlements", None)),
    )
    with _CACHE_LOCK:
        _CACHE[key] = layers
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return layers


def is_kept(recipe: Recipe) -> bool:
    """Whether the layers of ``recipe``'s terrain are kept (asking for them costs nothing)."""
    with _CACHE_LOCK:
        return _key(recipe) in _CACHE


def worker_steps(recipe: Recipe) -> Steps[TerrainLayers]:
    """The layers of ``recipe``'s terrain worked out on a worker thread (noise, then
    :func:`layers_steps`), yielding ``(done, total, label)`` -- the last step again while waiting,
    so a modal operator stays responsive; closing stops the worker at its next step.  Returns a
    ``core.terrain.TerrainLayers`` (kept: asked again, it costs nothing)."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="worldseed-layers")
    relay = Relay(
        pool,
        lambda: layers_steps(recipe, core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)),
    )
    pool.shutdown(wait=False)
    last, steps = (0, 1, "layers"), relay.steps()
    try:
        while True:
            try:
                step = next(steps)
            except StopIteration as stop:
                return stop.value
            if step is not None:
                last = step
            yield last
    except BaseException:
        relay.cancel()
        raise


def forget() -> None:
    """Drop the kept layers (the next build works them out again)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def keep(recipe: Recipe, layers: TerrainLayers) -> None:
    """Keep ``layers`` as the layers of ``recipe``'s terrain (a later section changed them: the
    ecosystem's trampled ground and trail-painted splats), so the scatter and the export read them."""
    with _CACHE_LOCK:
        _CACHE[_key(recipe)] = layers
        _CACHE.move_to_end(_key(recipe))
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)


def layers_for(recipe: Recipe, *, progress: Callable[[int, int, str], object] | None = None) -> TerrainLayers | None:
    """The layers of ``recipe``'s terrain (kept, or worked out again), or None when it has none."""
    if not has_layers(recipe):
        return None
    heights = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
    return drive(layers_steps(recipe, heights), progress)


class Cancelled(Exception):
    """The build that wanted the layers was cancelled."""


class Relay(Generic[T]):
    """Run a step generator on a thread pool: :meth:`steps` hands its steps on to the main thread,
    :attr:`future` holds its result, and :meth:`cancel` stops it at its next step.  ``make_steps()``
    (called on the worker) returns the generator."""

    def __init__(self, pool: concurrent.futures.Executor, make_steps: Callable[[], Steps[T]]) -> None:
        self._queue: queue.SimpleQueue[Progress] = queue.SimpleQueue()
        self._stop = threading.Event()
        self.future = pool.submit(self._run, make_steps)

    def _run(self, make_steps: Callable[[], Steps[T]]) -> T:
        steps = make_steps()
        try:
            while True:
                if self._stop.is_set():
                    raise Cancelled()
                try:
                    self._queue.put(next(steps))
                except StopIteration as stop:
                    return stop.value
        finally:
            steps.close()

    def steps(self, poll: float = 0.05) -> Generator[Progress | None, None, T]:
        """Yield every step of the generator as it comes (None while waiting ``poll`` seconds for
        one, so a modal operator stays responsive); return its result."""
        while True:
            try:
                yield self._queue.get_nowait()
                continue
            except queue.Empty:
                pass
            if self.future.done() and self._queue.empty():
                return self.future.result()
            try:
                self.future.result(timeout=poll)
            except concurrent.futures.TimeoutError:
                yield None

    def cancel(self) -> None:
        self._stop.set()
        self.future.cancel()


class Then(Generic[T, U]):
    """A future's result passed through ``fn`` (the eroded heights of a layers future)."""

    def __init__(self, future: concurrent.futures.Future[T], fn: Callable[[T], U]) -> None:
        self._future, self._fn = future, fn

    def result(self, timeout: float | None = None) -> U:
        return self._fn(self._future.result(timeout=timeout))

    def cancel(self) -> bool:
        return self._future.cancel()


# --------------------------------------------------------------------------- files


def detail_count(recipe: Recipe) -> int:
    """Unity detail layers a headless run of ``recipe`` writes: its ``[[scatter]]`` layers with
    ``unity_detail > 0`` (scattered on its terrain)."""
    return sum(1 for spec in getattr(recipe, "scatter", ()) if spec.unity_detail > 0)


def package_names(recipe: Recipe, name: str) -> list[str]:
    """The package files (beside the RAW heightmap) a terrain of ``recipe`` exports as ``name``: for
    a terrain with layers, or with Unity detail layers in its scatter."""
    details = detail_count(recipe)
    layered = has_layers(recipe)
    if not layered and not details:
        return []
    names = [f"{name}_splat{k}.png" for k in range(-(-len(getattr(recipe, "splat", ())) // 4))]
    names += core_package.texture_file_names(name, getattr(recipe, "splat", ()))  # the textures, copied
    if getattr(getattr(recipe, "biomes", None), "enabled", False):
        names.append(f"{name}_biomes.png")
    if layered:
        names.append(f"{name}_flow.png")
    names += [f"{name}_detail{k}.raw" for k in range(details)]
    names.append(f"{name}_terrain.json")
    return names


def package_files(
    layers: TerrainLayers,
    recipe: Recipe,
    name: str,
    *,
    details: Iterable[tuple[str, npt.NDArray[np.uint16]]] = (),
    placements: str | None = None,
    blender_centre: Sequence[float] = (0.0, 0.0, 0.0),
) -> dict[str, bytes]:
    """``{file name: bytes}`` of the Unity terrain package of ``layers``: every file
    ``core.unity_package.package_files`` makes but the RAW heightmap (written beside it, as without
    layers), the JSON last.  ``details``: the detail layers ``((name, counts), ...)``
    (``bridge.scatter.terrain_detail_layers``); ``placements``: the placement file's name when one
    is written beside (listed in the JSON)."""
    files = core_package.package_files(
        name,
        layers,
        size=recipe.terrain.size,
        splats=tuple(getattr(recipe, "splat", ())),
        details=tuple(details),
        placements=placements,
        blender_centre=blender_centre,
    )
    return {file_name: data for file_name, data in files.items() if not file_name.endswith("_heightmap.raw")}
