"""Levels by Wave Function Collapse (:mod:`core.wfc`): a tileset's tiles or a sample's style as level classes.

Three generators of :mod:`.spec`: ``wfc_tiled`` (the simple tiled model on ``wfc_tileset``),
``wfc_overlapping`` (the overlapping model on ``sample``) and ``wfc`` (overlapping when ``sample`` is
given, else tiled).  One level cell per WFC cell.

**Files** (:mod:`._wfc_files`).  ``wfc_tileset`` / ``sample`` is either a preset name -- letters,
digits, ``_`` and ``-`` only, no suffix: ``presets/wfc/<name>.toml``, ``presets/wfc/samples/<name>.txt``
or ``.png`` -- or a file path with its suffix (``.toml``; ``.txt`` or ``.png``), relative to ``base``
(the recipe's folder; None: the current directory) or absolute.  A path may lead anywhere the user can read, but it must
be a regular file (never a directory, a device or a pipe, also behind a link) of at most
:data:`core.files.MAX_FILE_BYTES`.  A missing or unreadable file is a ParameterError naming ``level.wfc_tileset``
or ``level.sample`` and the path; an error about the content of a file outside the recipe's folder
quotes nothing of it (``core.files.content_hidden``).

**Classes.**  Tiled: each variant's class from the tileset (``class`` of its ``[[tile]]``, ``floor``
when the tileset says none).  Overlapping: ``classes`` maps sample values to classes; a value it does
not name is ``wall`` when it is the most common value on the sample's border, else ``floor``.

**Constraints.**  ``connected``, ``connect_points`` ([x, y] level cells, checked on the grid and
refused without ``connected``) and ``counts`` (base tile names of the tileset, or sample values as in
``classes``; minimums over the cells refused) go to :func:`core.wfc.tiled_steps` /
:func:`core.wfc.overlapping_steps`; every accepted level keeps them.  A level is a finite grid:
``connected`` counts no path across its edges, also when ``periodic`` (``wrap=False``).

**Markers, doors, regions.**  A spawn and an exit (:func:`~._content.place_markers`) in the largest
walkable region.  A solved grid whose largest walkable region is too small for a level counts as a
failed attempt and the next attempt starts (:func:`least_walkable`: 2 cells, and with ``connected``
at least :data:`MIN_WALKABLE_SHARE_PERCENT` % of the cells, since rock round one floor cell meets
``connected`` too); when the last attempt's grid is refused, or no grid can hold a spawn and an exit
(every tile a wall), it is a ParameterError naming the level.  Every door-class cell is one of the
level's ``doors``; a WFC level has no ``rooms``.  Without ``connected`` the walkable cells may form
several regions: the record counts them (``regions``) and :func:`~._record.level_warnings` says so.

**Errors** of the solver (:class:`core.wfc.Contradiction`) name the level: ``level 'Keep' (tileset
'dungeon'): ...``.
"""

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from .. import wfc as core_wfc
from .._checks import make_rng
from ..errors import ParameterError, short
from ..spec import did_you_mean
from ..steps import Steps
from ..wfc import Tileset
from ._content import place_markers
from ._fields import LevelSpec
from ._level import CLASSES, DOOR, FLOOR, WALL, Level, Marker, WfcRecord
from ._regions import label_regions
from ._wfc_files import DEFAULT_SAMPLE, load_sample_of, load_tileset_of, prefixed, wfc_model

__all__ = [
    "MAX_WAVE_BYTES",
    "MAX_SOLVE_SECONDS",
    "MAX_PATTERNS",
    "MIN_WALKABLE_SHARE_PERCENT",
    "check_wfc",
    "least_walkable",
    "wfc_level_steps",
    "palette_names",
    "tiled_counts",
    "sample_counts",
]

#: Largest wave (cells x patterns bytes) a level may ask for; more is refused before any work.
MAX_WAVE_BYTES = 2**30
#: Longest solve a level may ask for, seconds of CPU for one attempt as :func:`core.wfc.solve_seconds`
#: estimates it; a longer one is refused before any work.
MAX_SOLVE_SECONDS = 600
#: Most patterns a sample may give (the overlapping model's own limit: its overlap table is 4 x P x P).
MAX_PATTERNS = 2048
#: Least share of the cells, in percent, that the walkable region of a ``connected`` level holds (see
#: :func:`least_walkable`); a solved grid with less counts as a failed attempt.
MIN_WALKABLE_SHARE_PERCENT = 2
_COUNTS: dict[tuple[Any, ...], int] = {}  # pattern counts of recent samples (see _pattern_count)

T = TypeVar("T")


def palette_names(palette: npt.NDArray[np.integer[Any]]) -> tuple[str, ...]:
    """Text of each sample value: ``"12"`` for an integer, ``"#rrggbb"`` (``"#rrggbbaa"``) for a colour.

    >>> palette_names(np.array([0, 3])), palette_names(np.array([[255, 128, 0]], np.uint8))
    (('0', '3'), ('#ff8000',))
    """
    palette = np.asarray(palette)
    if palette.ndim == 1:
        return tuple(str(int(v)) for v in palette)
    return tuple("#" + "".join(f"{int(c):02x}" for c in row) for row in palette)


def _sample_classes(
    sample: npt.NDArray[np.integer[Any]],
    palette: npt.NDArray[np.integer[Any]],
    classes: Sequence[tuple[str, str]],
    *,
    prefix: str,
) -> npt.NDArray[np.uint8]:
    """(C,) uint8 class of each palette entry: ``classes`` where it names the value, else wall for the
    most common value on the sample's border and floor for the others."""
    names = palette_names(palette)
    index = {n: k for k, n in enumerate(names)}
    arr = np.asarray(sample)
    flat = arr.reshape(-1, arr.shape[2]) if arr.ndim == 3 else arr.reshape(-1)
    if arr.ndim == 3:
        ids = np.unique(flat, axis=0, return_inverse=True)[1].reshape(arr.shape[:2])
    else:
        ids = np.unique(flat, return_inverse=True)[1].reshape(arr.shape)
    border = np.concatenate([ids[0], ids[-1], ids[:, 0], ids[:, -1]])
    out = np.full(len(names), FLOOR, np.uint8)
    out[int(np.argmax(np.bincount(border, minlength=len(names))))] = WALL
    for key, cls in classes:
        if key not in index:
            shown = ", ".join(names[:16]) + (" ..." if len(names) > 16 else "")
            raise ParameterError(f"{prefix}classes names the value {key!r}, which the sample lacks (it has {shown})")
        out[index[key]] = CLASSES[cls]
    return out


def _wave_check(cells: int, patterns: int, *, spec: LevelSpec, prefix: str, what: str) -> None:
    need = cells * patterns
    if need > MAX_WAVE_BYTES:
        raise ParameterError(
            f"{prefix}width x {prefix}height {spec.width} x {spec.height} with {patterns:,} {what} needs a wave "
            f"of {need / 2**30:.1f} GB (cells x {what}), more than the {MAX_WAVE_BYTES / 2**30:.0f} GB allowed: "
            "make the level smaller"
        )


def _duration(seconds: float) -> str:
    """``seconds`` as people say it: ``'45 s'``, ``'12 min'``, ``'3.1 h'``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _time_check(cells: int, patterns: int, *, spec: LevelSpec, prefix: str, what: str) -> None:
    """Refuse a solve that :func:`core.wfc.solve_seconds` says takes more than :data:`MAX_SOLVE_SECONDS`."""
    counts = bool(spec.counts)
    seconds = core_wfc.solve_seconds(cells, patterns, connected=spec.connected, counts=counts)
    if seconds <= MAX_SOLVE_SECONDS:
        return
    asked = [
        f"{prefix}{k} = true" if k == "connected" else f"{prefix}{k}"
        for k, on in (("connected", spec.connected), ("counts", counts))
        if on
    ]
    hint = f"make {prefix}width and {prefix}height smaller"
    if asked:
        hint += f" or leave out {' and '.join(asked)} (they cost about cells squared)"
    elif spec.sample:
        hint += f" or use a sample with fewer patterns (a smaller {prefix}n or {prefix}symmetry)"
    raise ParameterError(
        f"{level_label(spec)}: {prefix}width x {prefix}height {spec.width} x {spec.height} with {patterns:,} {what}"
        + (f" and {' and '.join(asked)}" if asked else "")
        + f" would take about {_duration(seconds)} to solve (one attempt, estimated from the cells and {what}), "
        f"more than the {_duration(MAX_SOLVE_SECONDS)} allowed: {hint}"
    )


def _check_points(spec: LevelSpec, prefix: str) -> None:
    """Refuse ``connect_points`` without ``connected`` or off the grid."""
    points = spec.connect_points
    if points and not spec.connected:
        raise ParameterError(
            f"{prefix}connect_points needs {prefix}connected = true (the points are linked through the one "
            f"walkable region it asks for), got {len(points)} point(s) with connected = false"
        )
    for k, (x, y) in enumerate(points):
        if not (0 <= x < spec.width and 0 <= y < spec.height):
            raise ParameterError(
                f"{prefix}connect_points[{k}] [{x}, {y}] is off the level: x must be in [0, {spec.width - 1}] "
                f"and y in [0, {spec.height - 1}] (level width x height {spec.width} x {spec.height})"
            )


def _check_fixed_cells(spec: LevelSpec, prefix: str) -> None:
    """Refuse painted cells off the grid."""
    for k, (x, y, _) in enumerate(spec.fixed):
        if not (0 <= x < spec.width and 0 <= y < spec.height):
            raise ParameterError(
                f"{prefix}fixed[{k}] [{x}, {y}] is off the level: x must be in [0, {spec.width - 1}] "
                f"and y in [0, {spec.height - 1}] (level width x height {spec.width} x {spec.height})"
            )


def tiled_fixed(spec: LevelSpec, tileset: Tileset, *, prefix: str = "level.") -> dict[tuple[int, int], str]:
    """``fixed`` of a tiled ``spec`` as :func:`core.wfc.tiled` takes it, ``{(x, y): tile}``; a name that
    is neither a base tile nor a variant of ``tileset`` is refused."""
    bases = list(dict.fromkeys(str(b) for b in tileset.base_names))
    known = set(bases) | {str(n) for n in tileset.names}
    out = {}
    for k, (x, y, tile) in enumerate(spec.fixed):
        if tile not in known:
            raise ParameterError(
                f"{prefix}fixed[{k}] paints the tile {tile!r}, which tileset {tileset.name!r} lacks"
                f"{did_you_mean(tile, bases)} (its tiles: {', '.join(bases)})"
            )
        out[(x, y)] = tile
    return out


def _sample_values(palette: npt.NDArray[np.integer[Any]]) -> Callable[..., tuple[Any, str]]:
    """``value_of(key, where, verb)``: the sample value (an int, or a channel tuple of an image) that a
    recipe's text ``key`` (``"12"``, ``"#rrggbb"``) names, with its canonical text; refused with
    ``where`` (or ``subject``) in the message when it is no sample value or one the sample lacks."""
    names = palette_names(palette)
    index = {n: k for k, n in enumerate(names)}
    values = _values(palette, np.ones(len(palette), bool))

    def value_of(key: str, where: str, verb: str, subject: str | None = None) -> tuple[Any, str]:
        try:  # the canonical text of a sample value, as in classes
            value = core_wfc.check_classes({key: "wall"}, name=where)[0][0]
        except ParameterError:
            raise ParameterError(
                f"{subject or where} must be sample values: an integer (a grid sample) or '#rrggbb' of an image "
                f"sample, got {short(key)}"
            ) from None
        if value not in index:
            shown = ", ".join(names[:16]) + (" ..." if len(names) > 16 else "")
            raise ParameterError(f"{where} {verb} the value {key!r}, which the sample lacks (it has {shown})")
        return values[index[value]], value

    return value_of


def sample_fixed(
    spec: LevelSpec, palette: npt.NDArray[np.integer[Any]], *, prefix: str = "level."
) -> dict[tuple[int, int], Any]:
    """``fixed`` of an overlapping ``spec`` as :func:`core.wfc.overlapping` takes it, ``{(x, y): value}``
    (ints, or channel tuples of an image); a value the sample lacks is refused."""
    value_of = _sample_values(palette)
    return {(x, y): value_of(key, f"{prefix}fixed[{k}]", "paints")[0] for k, (x, y, key) in enumerate(spec.fixed)}


def _check_minimums(spec: LevelSpec, prefix: str) -> None:
    cells = spec.width * spec.height
    for key, low, _ in spec.counts:
        if low > cells:
            raise ParameterError(
                f"{prefix}counts[{key!r}] min {low:,} is more than the {cells:,} cells of the level "
                f"(width x height {spec.width} x {spec.height})"
            )
    total = sum(low for _, low, _ in spec.counts)
    if total > cells:
        raise ParameterError(
            f"{prefix}counts minimums add up to {total:,}, more than the {cells:,} cells of the level "
            f"(width x height {spec.width} x {spec.height})"
        )


def _bound(high: int) -> int | None:
    return None if high < 0 else high


def tiled_counts(spec: LevelSpec, tileset: Tileset, *, prefix: str = "level.") -> dict[str, tuple[int, int | None]]:
    """``counts`` of a tiled ``spec`` as :func:`core.wfc.tiled` takes them, ``{base tile name: (min, max)}``
    (``max`` None: no bound); a name that is no base tile of ``tileset`` is refused."""
    bases = list(dict.fromkeys(str(b) for b in tileset.base_names))
    out = {}
    for key, low, high in spec.counts:
        if key not in bases:
            raise ParameterError(
                f"{prefix}counts names the tile {key!r}, which tileset {tileset.name!r} lacks"
                f"{did_you_mean(key, bases)} (its tiles: {', '.join(bases)})"
            )
        out[key] = (low, _bound(high))
    return out


def sample_counts(
    spec: LevelSpec, palette: npt.NDArray[np.integer[Any]], *, prefix: str = "level."
) -> dict[Any, tuple[int, int | None]]:
    """``counts`` of an overlapping ``spec`` as :func:`core.wfc.overlapping` takes them,
    ``{sample value: (min, max)}`` with the values as ints (a grid sample) or channel tuples (an
    image); a key that is no value of ``palette`` is refused."""
    value_of = _sample_values(palette)
    out = {}
    for key, low, high in spec.counts:
        value, text = value_of(key, f"{prefix}counts", "names", subject=f"{prefix}counts keys")
        if value in out:
            raise ParameterError(f"{prefix}counts bounds the sample value {text!r} twice")
        out[value] = (low, _bound(high))
    return out


def check_wfc(
    spec: LevelSpec, *, base: str | None = None, prefix: str = "level."
) -> tuple[str, Tileset | npt.NDArray[np.integer[Any]], str]:
    """Refuse a WFC ``spec`` that cannot work, before any solving: a missing or bad tileset or sample,
    both or neither given, a size below ``n``, classes naming values the sample lacks, a wave larger
    than :data:`MAX_WAVE_BYTES`, a solve estimated to take more than :data:`MAX_SOLVE_SECONDS`,
    ``connect_points`` off the grid or without ``connected``, ``counts`` naming tiles or values that
    are not there, or minimums over the cells.  Returns the loaded
    ``(model, data, source)``."""
    model = wfc_model(spec)
    cells = spec.width * spec.height
    if cells > core_wfc.MAX_CELLS:
        raise ParameterError(
            f"{prefix}width x {prefix}height {spec.width} x {spec.height} = {cells:,} cells, more than the "
            f"{core_wfc.MAX_CELLS:,} a WFC level takes (about 1 KB of memory a cell): make the level smaller"
        )
    _check_points(spec, prefix)
    _check_fixed_cells(spec, prefix)
    _check_minimums(spec, prefix)
    if model == "tiled":
        tileset, source = load_tileset_of(spec, base, prefix)
        tiled_counts(spec, tileset, prefix=prefix)
        tiled_fixed(spec, tileset, prefix=prefix)
        _wave_check(cells, len(tileset.names), spec=spec, prefix=prefix, what="tile variants")
        _time_check(cells, len(tileset.names), spec=spec, prefix=prefix, what="tile variants")
        return model, tileset, source
    sample, source = load_sample_of(spec, base, prefix)
    n = spec.n
    for key in ("width", "height"):
        if getattr(spec, key) < n:
            raise ParameterError(
                f"{prefix}{key} must be at least n = {n} for the overlapping model, got {getattr(spec, key)}"
            )
    try:
        palette = np.unique(sample.reshape(-1, sample.shape[2]), axis=0) if sample.ndim == 3 else np.unique(sample)
        if sample.shape[0] > 256 or sample.shape[1] > 256:
            raise ParameterError(f"sample must be 1 to 256 values a side, got {sample.shape[1]} x {sample.shape[0]}")
        _sample_classes(sample, palette, spec.classes, prefix=prefix)
        sample_counts(spec, palette, prefix=prefix)
        sample_fixed(spec, palette, prefix=prefix)
        count = _pattern_count(sample, n, spec.symmetry, spec.periodic_input)
    except ParameterError as err:
        raise ParameterError(prefixed(err, prefix, "sample")) from None
    if count > MAX_PATTERNS:
        raise ParameterError(
            f"{prefix}sample {spec.sample or DEFAULT_SAMPLE!r} gives {count:,} patterns of {n} x {n} with symmetry "
            f"{spec.symmetry}, "
            f"more than the {MAX_PATTERNS:,} allowed: use a smaller or plainer sample, or a smaller "
            f"{prefix}n or {prefix}symmetry"
        )
    _wave_check(cells, count, spec=spec, prefix=prefix, what="patterns")
    _time_check(cells, count, spec=spec, prefix=prefix, what="patterns")
    return model, sample, source


def _pattern_count(sample: npt.NDArray[np.integer[Any]], n: int, symmetry: int, periodic_input: bool) -> int:
    """How many patterns the overlapping model takes from ``sample`` (remembered for the last few
    samples: a spec is checked each time it is read, and counting a large sample takes seconds)."""
    key = (sample.shape, sample.dtype.str, hashlib.sha256(sample.tobytes()).hexdigest(), n, symmetry, periodic_input)
    count = _COUNTS.get(key)
    if count is None:
        flat = sample.reshape(-1, sample.shape[2]) if sample.ndim == 3 else sample.reshape(-1)
        indices = np.unique(flat, axis=0, return_inverse=True)[1].reshape(sample.shape[:2])
        patterns, _ = core_wfc.extract_patterns(indices, n=n, symmetry=symmetry, periodic_input=periodic_input)
        count = len(patterns)
        while len(_COUNTS) >= 32:
            _COUNTS.pop(next(iter(_COUNTS)))
        _COUNTS[key] = count
    return count


def _values(palette: npt.NDArray[np.integer[Any]], keep: npt.NDArray[np.bool_]) -> list[Any]:
    """The sample values of ``palette`` where ``keep`` holds: ints, or tuples of channels."""
    return [tuple(int(c) for c in row) if palette.ndim == 2 else int(row) for row in palette[np.asarray(keep)]]


def level_label(spec: LevelSpec) -> str:
    """How messages name a WFC level: ``level 'Keep' (tileset 'dungeon')``, ``level 'Mine' (sample 'rooms')``."""
    if wfc_model(spec) == "overlapping":
        return f"level {spec.name!r} (sample {spec.sample or DEFAULT_SAMPLE!r})"
    return f"level {spec.name!r} (tileset {spec.wfc_tileset!r})"


def least_walkable(spec: LevelSpec, walkable: Sequence[Any], counts: Mapping[Any, tuple[int, int | None]]) -> int:
    """Fewest cells the largest walkable region of a WFC level of ``spec`` must hold, else a solved
    grid counts as a failed attempt and the next one starts; 0 when no grid can hold 2.

    ``walkable``: the walkable base tiles (sample values); ``counts`` ``{base tile (sample value):
    (min, max)}`` as :func:`tiled_counts` (:func:`sample_counts`) give them.  Without ``connected``:
    2 cells, a spawn and an exit side by side.  With ``connected`` the level is that one region, and
    rock round a room of a few cells meets the rule as well as a level does: at least
    :data:`MIN_WALKABLE_SHARE_PERCENT` % of the cells (never more than the maximums of ``counts``
    allow the walkable tiles together).

    >>> from core.levels import LevelSpec
    >>> least_walkable(LevelSpec(width=70, height=70), ["floor", "door"], {})
    98
    >>> least_walkable(LevelSpec(width=70, height=70, connected=False), ["floor", "door"], {})
    2
    >>> least_walkable(LevelSpec(width=70, height=70), ["floor", "door"], {"floor": (0, 20), "door": (0, 40)})
    60
    >>> least_walkable(LevelSpec(), ["floor", "door"], {"floor": (0, 0), "door": (0, 1)})
    0
    >>> least_walkable(LevelSpec(), [], {})  # no walkable tile: no grid can hold a spawn and an exit
    0
    """
    bound: int | None = 0
    for key in walkable:
        high = counts.get(key, (0, None))[1]
        if high is None:
            bound = None
            break
        assert bound is not None  # None only on the way out
        bound += high
    if bound is None:
        bound = spec.width * spec.height
    least = -(-spec.width * spec.height * MIN_WALKABLE_SHARE_PERCENT // 100) if spec.connected else 2
    least = min(max(least, 2), bound)
    return least if least >= 2 else 0


def _too_small(
    grid: npt.NDArray[np.uint8], spec: LevelSpec, walkable_names: Sequence[str], least: int = 2
) -> tuple[tuple[int, str] | None, npt.NDArray[np.int32], int]:
    """``(flat cell, message)`` when the largest walkable region of the class ``grid`` has fewer than
    ``least`` cells (the message names the level), else None; also the region labels and the largest
    region's label."""
    labels, count = label_regions(grid != WALL)
    sizes = np.bincount(labels[labels >= 0], minlength=count) if count else np.zeros(1, np.int64)
    largest = int(np.argmax(sizes))
    size = int(sizes[largest])
    if size >= max(least, 2):
        return None, labels, largest
    if count == 0:
        what = "no walkable cell (every tile is a wall)"
    elif size < 2:
        what = "no two walkable cells side by side (each walkable region is 1 cell)"
    else:
        what = (
            f"the walkable region has {size} cells, fewer than the {least} a connected level needs "
            f"({MIN_WALKABLE_SHARE_PERCENT} % of its cells, or all that counts allow)"
        )
    if spec.sample:
        hint = "map sample values to walkable classes (classes) or ask for them with counts"
    elif walkable_names:
        example = f"{_toml_key(walkable_names[0])} = [{max(8, least)}]"
        hint = f"ask for walkable tiles with counts (e.g. counts = {{ {example} }})"
    else:
        hint = f"tileset {spec.wfc_tileset!r} has no walkable tile (every class is wall): give some tiles a class"
    where = int(np.flatnonzero(labels.ravel() == largest)[0]) if count else 0
    if size < 2:
        what += ", so there is no place for a spawn and an exit"
    else:
        hint += ", set connected = false"
    return (where, f"{what}: {hint}, make the level larger or try another seed"), labels, largest


def _refuse_small(
    classes_of: Callable[[Any], npt.NDArray[np.uint8]], spec: LevelSpec, walkable_names: Sequence[str], least: int
) -> Callable[[Any], None]:
    """The solver's ``accept``: refuses (:class:`core.wfc.Unsatisfied`) an output whose largest
    walkable region has fewer than ``least`` cells; ``classes_of(output)`` is its class grid."""

    def accept(output: Any) -> None:
        small = _too_small(classes_of(output), spec, walkable_names, least)[0]
        if small is not None:
            raise core_wfc.Unsatisfied(*small)

    return accept


def _markers(
    grid: npt.NDArray[np.uint8], seed: int, spec: LevelSpec, walkable_names: Sequence[str] = ()
) -> tuple[Marker, ...]:
    """Spawn and exit in the largest walkable region; a ParameterError naming the level when that
    region has fewer than 2 cells (no level is without its spawn and exit)."""
    small, labels, largest = _too_small(grid, spec, walkable_names)
    if small is not None:
        raise ParameterError(f"{level_label(spec)}: {small[1]}")
    g = np.where(labels == largest, grid, WALL).astype(np.uint8)
    return place_markers(g, rng=make_rng(seed))


def _palette_ids(output: npt.ArrayLike, palette: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """(height, width) int32 index in ``palette`` (sorted sample values, (C,) or (C, channels)) of each
    value of an overlapping ``output``."""
    out, pal = np.asarray(output), np.asarray(palette)
    if out.ndim == 3:
        flat = out.reshape(-1, out.shape[2])
        codes = np.zeros(len(flat), np.int64)
        pcodes = np.zeros(len(pal), np.int64)
        for c in range(out.shape[2]):
            codes = codes * 256 + flat[:, c]
            pcodes = pcodes * 256 + pal[:, c]
        return np.searchsorted(pcodes, codes).reshape(out.shape[:2]).astype(np.int32)
    return np.searchsorted(pal, out).astype(np.int32)


def _toml_key(name: str) -> str:
    """``name`` as a TOML key: bare when it may be, else quoted."""
    return name if name.replace("_", "").replace("-", "").isalnum() and name.isascii() else f'"{name}"'


def _doors(grid: npt.NDArray[np.uint8]) -> tuple[tuple[int, int], ...]:
    """``(x, y)`` of every door-class cell, in raster order (row by row, then column)."""
    ys, xs = np.nonzero(grid == DOOR)
    return tuple((int(x), int(y)) for y, x in zip(ys.tolist(), xs.tolist()))


def _named(steps: Steps[T], spec: LevelSpec) -> Steps[T]:
    """``yield from steps``, a :class:`core.wfc.Contradiction` naming the level (its name and tileset
    or sample) before the solver's words."""
    try:
        return (yield from steps)
    except core_wfc.Contradiction as err:
        hint = ""
        if spec.counts and spec.connected:  # found from outside: door=1-4 on a connected dungeon
            hint = (
                "; with connected on, counts far from what the tileset makes by itself may have no solution: "
                "loosen counts or set connected = false"
            )
        raise core_wfc.Contradiction(
            f"{level_label(spec)}: {err}{hint}", cell=err.cell, attempts=err.attempts
        ) from None


def _constraint_settings(spec: LevelSpec) -> dict[str, Any]:
    """The global constraints of ``spec`` as the level record's settings."""
    return {
        "connected": spec.connected,
        "connect_points": [list(p) for p in spec.connect_points],
        "counts": [list(c) for c in spec.counts],
        "fixed": [list(f) for f in spec.fixed],
    }


def wfc_level_steps(spec: LevelSpec, *, base: str | None = None, prefix: str = "level.") -> Steps[Level]:
    """The level a WFC ``spec`` describes, as a step generator: yields ``(done, total, label)`` and
    returns the :class:`~._level.Level` (with its :class:`~._level.WfcRecord`).  A contradiction is
    the :class:`core.wfc.Contradiction` (a ParameterError) naming the cell and the attempts."""
    model, data, source = check_wfc(spec, base=base, prefix=prefix)
    total = spec.width * spec.height
    yield 0, total, "solving"
    common: dict[str, Any] = {
        "periodic": spec.periodic,
        "seed": spec.seed,
        "attempts": spec.attempts,
        "backtrack_limit": spec.backtrack_limit,
    }
    solver = {k: v for k, v in common.items() if k != "seed"}
    if model == "tiled":
        assert isinstance(data, core_wfc.Tileset)
        tileset = data
        raw = getattr(tileset, "classes", None)
        variant_classes = (
            np.full(len(tileset.names), FLOOR, np.uint8) if raw is None else np.asarray(raw, dtype=np.uint8)
        )
        walkable_names = tuple(
            dict.fromkeys(str(b) for b, c in zip(tileset.base_names, variant_classes.tolist()) if c != WALL)
        )
        counts = tiled_counts(spec, tileset, prefix=prefix)
        least = least_walkable(spec, walkable_names, counts)
        steps = core_wfc.tiled_steps(
            tileset,
            spec.width,
            spec.height,
            **common,
            connected=spec.connected,
            connect_points=spec.connect_points,
            wrap=False,  # a level is a finite grid: no path across its edges, also when periodic
            counts=counts or None,
            fixed=tiled_fixed(spec, tileset, prefix=prefix) or None,
            accept=_refuse_small(lambda tiles: variant_classes[tiles], spec, walkable_names, least) if least else None,
        )
        result = yield from _named(steps, spec)
        tiles = result.tiles
        ids = np.asarray(tiles, dtype=np.int32)
        grid = variant_classes[ids]
        record = WfcRecord(
            model="tiled",
            ids=ids,
            names=tuple(str(n) for n in tileset.names),
            classes=tuple(int(c) for c in variant_classes),
            attempts=int(result.attempts),
            backtracks=int(result.backtracks),
            source=source,
            base_names=tuple(str(n) for n in getattr(tileset, "base_names", getattr(tileset, "tile", ()))),
            turns=tuple(int(t) for t in getattr(tileset, "turns", ())),
            mirrored=tuple(bool(m) for m in getattr(tileset, "mirrored", ())),
        )
        settings = {"tileset": source, **solver, **_constraint_settings(spec)}
    else:
        assert isinstance(data, np.ndarray)
        sample = data
        palette = np.unique(sample.reshape(-1, sample.shape[2]), axis=0) if sample.ndim == 3 else np.unique(sample)
        value_classes = _sample_classes(sample, palette, spec.classes, prefix=prefix)
        counts = sample_counts(spec, palette, prefix=prefix)
        least = least_walkable(spec, _values(palette, value_classes != WALL), counts)
        sample_steps = core_wfc.overlapping_steps(
            sample,
            spec.width,
            spec.height,
            n=spec.n,
            symmetry=spec.symmetry,
            periodic_input=spec.periodic_input,
            ground=spec.ground,
            **common,
            connected=spec.connected,
            walkable=_values(palette, value_classes != WALL) if spec.connected else None,
            connect_points=spec.connect_points,
            wrap=False,
            counts=counts or None,
            fixed=sample_fixed(spec, palette, prefix=prefix) or None,
            accept=_refuse_small(lambda out: value_classes[_palette_ids(out, palette)], spec, (), least)
            if least
            else None,
        )
        sampled = yield from _named(sample_steps, spec)
        pal = np.asarray(sampled.palette)
        ids = _palette_ids(sampled.output, pal)
        grid = value_classes[ids]
        record = WfcRecord(
            model="overlapping",
            ids=ids,
            names=palette_names(pal),
            palette=tuple(tuple(int(c) for c in row) if pal.ndim == 2 else int(row) for row in pal),
            classes=tuple(int(c) for c in value_classes),
            attempts=int(sampled.attempts),
            backtracks=int(sampled.backtracks),
            source=source,
        )
        walkable_names = ()
        settings = {
            "sample": source,
            "n": spec.n,
            "symmetry": spec.symmetry,
            "periodic_input": spec.periodic_input,
            "ground": spec.ground,
            **solver,
            **_constraint_settings(spec),
            "classes": [list(p) for p in spec.classes],
        }
    yield total, total, "solving"
    grid = np.ascontiguousarray(grid, dtype=np.uint8)
    return Level(
        grid=grid,
        doors=_doors(grid),
        markers=_markers(grid, spec.seed, spec, walkable_names),
        seed=spec.seed,
        generator=spec.generator,
        settings=settings,
        wfc=record,
    )
