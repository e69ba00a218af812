"""Where a WFC level's tileset and sample come from: preset names (``presets/wfc/``) or files relative
to the recipe, checked to be regular readable files of a sane size, and loaded with their errors
named after the level's key (see :mod:`._wfc` for the rules)."""

import os
import re
import stat
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import wfc as core_wfc
from ..errors import ParameterError, short
from ..files import MAX_FILE_BYTES, content_hidden
from ..spec import did_you_mean
from ..wfc import Tileset
from ._fields import LevelSpec

__all__ = [
    "PRESETS",
    "SAMPLE_PRESETS",
    "DEFAULT_SAMPLE",
    "LEVEL_SAMPLES",
    "preset_names",
    "resolve_file",
    "absolute_paths",
    "wfc_model",
    "prefixed",
    "load_tileset_of",
    "load_sample_of",
]

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: Folder of the WFC tileset presets (``<extension root>/presets/wfc``).
PRESETS = os.path.join(_ROOT, "presets", "wfc")
#: Folder of the sample presets of the overlapping model.
SAMPLE_PRESETS = os.path.join(PRESETS, "samples")
#: The sample a WFC (sample) level takes when it names none.
DEFAULT_SAMPLE = "caves"
#: The sample presets that make a level with their default classes and ``connected``: one walkable region of a
#: fair share of the cells (tests/core/test_levels_wfc_defaults.py holds them to it).  The other samples (dots,
#: flowers, hills, rooms, town) are WFC samples whose default classes make islands or a sliver of floor: a level
#: takes them by name with its own ``classes``.
LEVEL_SAMPLES = ("caves",)
_STEM = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_SUFFIXES = {"wfc_tileset": (".toml",), "sample": (".txt", ".png")}
_FOLDERS = {"wfc_tileset": PRESETS, "sample": SAMPLE_PRESETS}


def preset_names(key: str, *, levels: bool = False) -> list[str]:
    """Sorted stems of the presets of ``key`` (``"wfc_tileset"`` or ``"sample"``); ``levels``: only those that
    make a level with the defaults (the 2-D tilesets -- no 3-D ``up``/``down`` sockets -- and
    :data:`LEVEL_SAMPLES`), what the Levels panel lists.

    >>> "dungeon" in preset_names("wfc_tileset"), "rooms" in preset_names("sample")
    (True, True)
    >>> "blocks3d" in preset_names("wfc_tileset", levels=True), preset_names("sample", levels=True)
    (False, ['caves'])
    """
    folder, suffixes = _FOLDERS[key], _SUFFIXES[key]
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    stems = sorted({os.path.splitext(n)[0] for n in names if os.path.splitext(n)[1].lower() in suffixes})
    if not levels:
        return stems
    if key == "sample":
        return [s for s in stems if s in LEVEL_SAMPLES]
    return [s for s in stems if not any(core_wfc.load_tileset(os.path.join(folder, f"{s}.toml")).up or ())]


def _is_stem(value: str) -> bool:
    return bool(_STEM.match(value))


def resolve_file(value: str, *, key: str, base: str | None = None, prefix: str = "level.") -> tuple[str, str]:
    """``(path, source)`` of the tileset or sample ``value`` names: its file, checked readable, and its
    name for records (the preset name or the file's name).

    ``key`` is ``"wfc_tileset"`` or ``"sample"``.  See the module docstring for the rules.

    >>> path, source = resolve_file("dungeon", key="wfc_tileset")
    >>> os.path.basename(path), source
    ('dungeon.toml', 'dungeon')
    >>> try:
    ...     resolve_file("nowhere.toml", key="wfc_tileset", base="/nonexistent")
    ... except ParameterError as err:
    ...     print(err)
    level.wfc_tileset 'nowhere.toml': no file /nonexistent/nowhere.toml
    >>> try:
    ...     resolve_file("flowerz", key="sample")
    ... except ParameterError as err:
    ...     print(str(err).split(" (presets")[0])
    level.sample 'flowerz' is no preset (did you mean 'flowers'?)
    """
    name = f"{prefix}{key}"
    suffixes = _SUFFIXES[key]
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{name} must name a file or a preset, got {short(value)}")
    if _is_stem(value):
        folder = _FOLDERS[key]
        for suffix in suffixes:
            path = os.path.join(folder, value + suffix)
            if os.path.isfile(path):
                return path, value
        presets = preset_names(key)
        raise ParameterError(
            f"{name} {value!r} is no preset{did_you_mean(value, presets)} (presets: {', '.join(presets) or 'none'}); "
            f"a file needs its suffix ({', '.join(suffixes)})"
        )
    if "\x00" in value:
        raise ParameterError(f"{name} must be a file path, got {short(value)}")
    suffix = os.path.splitext(value)[1].lower()
    if suffix not in suffixes:
        raise ParameterError(f"{name} {short(value)} must be a {' or '.join(suffixes)} file, or a preset name")
    path = value if os.path.isabs(value) else os.path.join(base if base is not None else os.getcwd(), value)
    path = os.path.normpath(path)
    try:
        info = os.stat(path)
    except OSError as err:
        if isinstance(err, FileNotFoundError):
            raise ParameterError(f"{name} {value!r}: no file {path}") from None
        raise ParameterError(f"{name} {value!r}: {path} cannot be read: {err.strerror or err}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ParameterError(f"{name} {value!r}: {path} is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ParameterError(
            f"{name} {value!r}: {path} has {info.st_size:,} bytes, more than the {MAX_FILE_BYTES:,} a {key} may have"
        )
    if not os.access(path, os.R_OK):
        raise ParameterError(f"{name} {value!r}: {path} cannot be read (permission denied)")
    return path, os.path.basename(path)


def absolute_paths(spec: LevelSpec, base: str) -> dict[str, Any]:
    """``{key: absolute path}`` for the ``wfc_tileset`` / ``sample`` of ``spec`` that are relative file paths
    (not presets), resolved against ``base``; what :func:`~.spec.from_dict` stores when it is
    given the recipe's folder, so the spec means the same file from anywhere."""
    out = {}
    for key in ("wfc_tileset", "sample"):
        value = getattr(spec, key)
        if not value or _is_stem(value) or os.path.isabs(value) or "\x00" in value:
            continue
        out[key] = os.path.normpath(os.path.join(base, value))
    return out


def wfc_model(spec: LevelSpec) -> str:
    """``"tiled"`` or ``"overlapping"``: the model a WFC ``spec`` uses -- ``wfc_tiled`` the tiled model on
    ``wfc_tileset``, ``wfc_overlapping`` the overlapping model on ``sample``, ``wfc`` the overlapping model
    when ``sample`` is given, else the tiled model.

    >>> from core.levels import LevelSpec
    >>> wfc_model(LevelSpec(generator="wfc")), wfc_model(LevelSpec(generator="wfc", sample="rooms"))
    ('tiled', 'overlapping')
    """
    g = spec.generator
    if g == "wfc_tiled" or (g == "wfc" and not spec.sample):
        return "tiled"
    return "overlapping"


def prefixed(err: ParameterError, prefix: str, key: str) -> str:
    """``err``'s text under ``<prefix><key>`` unless it names a setting already."""
    text = str(err)
    return text if text.startswith(prefix) else f"{prefix}{key}: {text}"


def load_tileset_of(spec: LevelSpec, base: str | None, prefix: str) -> tuple[Tileset, str]:
    """``(Tileset, source)`` of ``spec.wfc_tileset``; errors name ``<prefix>wfc_tileset`` (and quote
    nothing of a file outside the recipe's folder ``base``)."""
    path, source = resolve_file(spec.wfc_tileset, key="wfc_tileset", base=base, prefix=prefix)
    try:
        with content_hidden(path, folder=base, name=f"{prefix}wfc_tileset {short(spec.wfc_tileset)}", what="tileset"):
            return core_wfc.load_tileset(path), source
    except ParameterError as err:
        raise ParameterError(prefixed(err, prefix, "wfc_tileset")) from None


def load_sample_of(spec: LevelSpec, base: str | None, prefix: str) -> tuple[npt.NDArray[np.integer[Any]], str]:
    """``(sample array, source)`` of ``spec.sample`` (empty: :data:`DEFAULT_SAMPLE`); errors name
    ``<prefix>sample`` (and quote nothing of a file outside the recipe's folder ``base``)."""
    path, source = resolve_file(spec.sample or DEFAULT_SAMPLE, key="sample", base=base, prefix=prefix)
    try:
        with content_hidden(
            path, folder=base, name=f"{prefix}sample {short(spec.sample or DEFAULT_SAMPLE)}", what="sample"
        ):
            return core_wfc.read_sample(path), source
    except ParameterError as err:
        raise ParameterError(prefixed(err, prefix, "sample")) from None
