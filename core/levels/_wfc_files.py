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
from ..spec import did_you_mean
from ..wfc import Tileset
from ._fields import AUTOTILE_SETS, LevelSpec

__all__ = [
    "PRESETS",
    "SAMPLE_PRESETS",
    "MAX_FILE_BYTES",
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
#: Largest tileset or sample file read.
MAX_FILE_BYTES = 16 * 2**20
_STEM = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_SUFFIXES = {"tileset": (".toml",), "sample": (".txt", ".png")}
_FOLDERS = {"tileset": PRESETS, "sample": SAMPLE_PRESETS}


def preset_names(key: str) -> list[str]:
    """Sorted stems of the presets of ``key`` (``"tileset"`` or ``"sample"``).

    >>> "dungeon" in preset_names("tileset"), "rooms" in preset_names("sample")
    (True, True)
    """
    folder, suffixes = _FOLDERS[key], _SUFFIXES[key]
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted({os.path.splitext(n)[0] for n in names if os.path.splitext(n)[1].lower() in suffixes})


def _is_stem(value: str) -> bool:
    return bool(_STEM.match(value))


def resolve_file(value: str, *, key: str, base: str | None = None, prefix: str = "level.") -> tuple[str, str]:
    """``(path, source)`` of the tileset or sample ``value`` names: its file, checked readable, and its
    name for records (the preset name or the file's name).

    ``key`` is ``"tileset"`` or ``"sample"``.  See the module docstring for the rules.

    >>> path, source = resolve_file("dungeon", key="tileset")
    >>> os.path.basename(path), source
    ('dungeon.toml', 'dungeon')
    >>> try:
    ...     resolve_file("nowhere.toml", key="tileset", base="/nonexistent")
    ... except ParameterError as err:
    ...     print(err)
    level.tileset 'nowhere.toml': no file /nonexistent/nowhere.toml
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
    """``{key: absolute path}`` for the ``tileset`` / ``sample`` of ``spec`` that are relative file paths
    (not presets), resolved against ``base``; what :func:`~._generate.from_dict` stores when it is
    given the recipe's folder, so the spec means the same file from anywhere."""
    out = {}
    for key in ("tileset", "sample"):
        value = getattr(spec, key)
        if key == "tileset" and value in AUTOTILE_SETS:
            continue
        if not value or _is_stem(value) or os.path.isabs(value) or "\x00" in value:
            continue
        out[key] = os.path.normpath(os.path.join(base, value))
    return out


def wfc_model(spec: LevelSpec, *, prefix: str = "level.") -> str:
    """``"tiled"`` or ``"overlapping"``: the model a WFC ``spec`` uses (its tileset and sample checked
    against each other)."""
    tileset = spec.tileset not in AUTOTILE_SETS
    sample = bool(spec.sample)
    g = spec.generator
    if g == "wfc_tiled":
        if not tileset:
            raise ParameterError(
                f"{prefix}tileset must name a WFC tileset for generator 'wfc_tiled' (a .toml file or a preset: "
                f"{', '.join(preset_names('tileset')) or 'none'}), got {spec.tileset!r}"
            )
        return "tiled"
    if tileset and sample:
        raise ParameterError(
            f"{prefix}tileset {short(spec.tileset)} and {prefix}sample {short(spec.sample)} are both given: "
            f"generator {g!r} takes a sample (and tileset 'blob' or 'wang16' for the Tiled map's auto-tiles)"
            if g == "wfc_overlapping"
            else f"{prefix}tileset {short(spec.tileset)} and {prefix}sample {short(spec.sample)} are both given: "
            "give one (the tileset for tiles, the sample for the overlapping model)"
        )
    if sample:
        return "overlapping"
    if g == "wfc" and tileset:
        return "tiled"
    raise ParameterError(
        f"{prefix}sample must name a sample for generator {g!r} (a .txt or .png file or a preset: "
        f"{', '.join(preset_names('sample')) or 'none'})"
        if g == "wfc_overlapping"
        else f"generator 'wfc' needs {prefix}tileset (a WFC tileset) or {prefix}sample"
    )


def prefixed(err: ParameterError, prefix: str, key: str) -> str:
    """``err``'s text under ``<prefix><key>`` unless it names a setting already."""
    text = str(err)
    return text if text.startswith(prefix) else f"{prefix}{key}: {text}"


def load_tileset_of(spec: LevelSpec, base: str | None, prefix: str) -> tuple[Tileset, str]:
    """``(Tileset, source)`` of ``spec.tileset``; errors name ``<prefix>tileset``."""
    path, source = resolve_file(spec.tileset, key="tileset", base=base, prefix=prefix)
    try:
        return core_wfc.load_tileset(path), source
    except ParameterError as err:
        raise ParameterError(prefixed(err, prefix, "tileset")) from None


def load_sample_of(spec: LevelSpec, base: str | None, prefix: str) -> tuple[npt.NDArray[np.integer[Any]], str]:
    """``(sample array, source)`` of ``spec.sample``; errors name ``<prefix>sample``."""
    path, source = resolve_file(spec.sample, key="sample", base=base, prefix=prefix)
    try:
        return core_wfc.read_sample(path), source
    except ParameterError as err:
        raise ParameterError(prefixed(err, prefix, "sample")) from None
