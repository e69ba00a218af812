"""The forest at every snapshot year of a plant run, without the run or its habitat: what a year slider
needs, compact enough to keep in a saved file (:class:`ForestSnapshots`, :func:`forest_snapshots`,
:func:`snapshots_bytes` / :func:`read_snapshots`).

A :class:`~core.ecosystem.PlantRun` holds the life table of every plant that stood at a year's end
and, per snapshot year, the sizes of the plants alive then (as 16-bit shares of the species'
maximum); :func:`core.ecosystem.forest_at` turns those into instances on the ground, sampling the
terrain under each trunk.  The snapshots keep exactly what that needs and no more: per life row its
identity (the turn about the vertical is keyed by it), species, position, ground height, birth and
death years; per snapshot year the 16-bit sizes; and the last year's plants at full precision (as
``forest_at`` shows the end of the run).  :meth:`ForestSnapshots.forest` then gives, for every year,
what ``forest_at`` gives -- the positions to float32 (as a mesh holds them), the rest exactly.

Size: 30 bytes per life row, 2 per plant and snapshot (a plant's radius and height are the same
share of its species' maxima: one share, its change from the plant's previous snapshot) and 36 per
plant at the end, before zlib (byte planes apart: the high bytes of nearby positions, the birth
years and the small changes compress).  Measured on the temperate preset over 512 m x 512 m of hills
for 150 years with a snapshot every year (37,695 plants at the end, 539,965 life rows, 3.78 million
plant-snapshots; 29.2 MB held by the run): 15.5 MB (``bench/bench_forest_snapshots.py`` prints it).
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import exact
from ..errors import ParameterError
from . import _random as rnd
from ._files import ground_heights
from ._habitat import Habitat
from ._plants import PlantRun

__all__ = ["ForestSnapshots", "forest_snapshots", "snapshots_bytes", "read_snapshots", "plant_rotations", "FORMAT"]

#: The format name at the head of :func:`snapshots_bytes`.
FORMAT = "worldseed.forest_snapshots"
VERSION = 1
_MAGIC = b"WSFS"
#: The arrays in the file, in order: (name, dtype, length key of the header).
_ARRAYS = (
    ("uid", "<u8", "rows"),
    ("kind", "<i2", "rows"),
    ("x", "<f4", "rows"),
    ("y", "<f4", "rows"),
    ("z", "<f4", "rows"),
    ("born", "<i4", "rows"),
    ("died", "<i4", "rows"),
    ("sizes", "<u2", "sizes"),
    ("height_at", "<u4", "heights"),
    ("height_share", "<u2", "heights"),
    ("final_rows", "<i4", "final"),
    ("final_x", "<f4", "final"),
    ("final_y", "<f4", "final"),
    ("final_z", "<f4", "final"),
    ("final_radius", "<f8", "final"),
    ("final_height", "<f8", "final"),
)


def plant_rotations(uid: npt.NDArray[np.uint64], seed: int) -> npt.NDArray[np.float64]:
    """``(N, 4)`` quaternions ``(w, x, y, z)``: each plant's turn about the vertical, keyed by its
    identity (a plant keeps its turn from year to year)."""
    turn = rnd.uniform(np.asarray(uid, np.uint64), rnd.stream_key(seed, rnd.BIRTH, 1), 0) * math.pi  # half the yaw
    s, c = exact.sincos(turn)
    zeros = np.zeros(len(uid))
    return np.column_stack([c, zeros, zeros, s]) if len(uid) else np.zeros((0, 4))


@dataclass(frozen=True, eq=False)
class ForestSnapshots:
    """A plant run's forest at each snapshot year (see the module's notes).

    ``rows`` arrays (the run's life table): ``uid``, ``kind``, ``x``, ``y``, ``z`` (the ground under
    the trunk, metres, float32), ``born``, ``died``; ``counts`` the plants per snapshot year and
    ``sizes`` ``(sum counts, 2)`` uint16 their radius and height shares; the end of the run:
    ``final_rows`` (life rows), ``final_x/y/z`` float32, ``final_radius/height`` float64."""

    years: int
    snapshot_years: tuple[int, ...]
    max_radius: npt.NDArray[np.float64]
    max_height: npt.NDArray[np.float64]
    arrays: dict[str, npt.NDArray[Any]]
    counts: tuple[int, ...]

    def forest(self, year: int | None = None, *, seed: int = 0) -> dict[str, Any]:
        """The plants standing at the end of ``year`` (a snapshot year; None: the end of the run), as
        :func:`core.ecosystem.forest_at` gives them: ``positions`` (N, 3), ``rotations`` (N, 4),
        ``kind``, ``radius``, ``height``."""
        a = self.arrays
        if year is None or year == self.years:
            rows = a["final_rows"].astype(np.int64)
            x, y, z = a["final_x"], a["final_y"], a["final_z"]
            radius, height = a["final_radius"].astype(np.float64), a["final_height"].astype(np.float64)
            kind = a["kind"][rows].astype(np.int64)
        else:
            if year not in self.snapshot_years:
                years = list(self.snapshot_years)
                raise ParameterError(f"year must be one of the snapshot years {years}, got {year!r}")
            k = self.snapshot_years.index(year)
            start = sum(self.counts[:k])
            sizes = a["sizes"][start : start + self.counts[k]]
            rows = np.flatnonzero((a["born"] <= year) & (a["died"] > year))
            x, y, z = a["x"][rows], a["y"][rows], a["z"][rows]
            kind = a["kind"][rows].astype(np.int64)
            radius = sizes[:, 0].astype(np.float64) / 65535.0 * self.max_radius[kind]
            height = sizes[:, 1].astype(np.float64) / 65535.0 * self.max_height[kind]
        positions = np.column_stack([x, y, z]).astype(np.float64) if len(rows) else np.zeros((0, 3))
        return {
            "positions": positions,
            "rotations": plant_rotations(a["uid"][rows], seed),
            "kind": kind,
            "radius": radius,
            "height": height,
        }


def forest_snapshots(run: PlantRun, hab: Habitat, *, every: int = 1) -> ForestSnapshots:
    """The :class:`ForestSnapshots` of ``run`` on its habitat ``hab`` (the ground under every trunk).

    ``every``: keep only the snapshot years that are multiples of it (and the last year), and the
    plants standing in one of them -- fewer bytes for a long run (the years kept are exactly as
    the run gives them)."""
    if not isinstance(every, int) or every < 1:
        raise ParameterError(f"every must be a whole number of years >= 1, got {every!r}")
    life = run.life
    keep_years = [k for k, y in enumerate(run.snapshot_years) if y % every == 0 or y == run.years]
    born, died = np.asarray(life["born"], np.int32), np.asarray(life["died"], np.int32)
    kept_years = tuple(run.snapshot_years[k] for k in keep_years)
    standing = np.zeros(len(born), bool)
    for year in kept_years:
        standing |= (born <= year) & (died > year)
    uid_all = np.asarray(life["uid"], np.uint64)
    order = np.argsort(uid_all, kind="stable")
    n_all = len(uid_all)
    at = np.searchsorted(uid_all[order], run.uid) if n_all else np.zeros(0, np.int64)
    final_all = order[np.minimum(at, max(n_all - 1, 0))] if n_all else np.zeros(0, np.int64)
    if len(run.uid) and not np.array_equal(uid_all[final_all], run.uid):
        raise ParameterError("the plant run's last plants are not all in its life table")
    standing[final_all] = True
    rows = np.flatnonzero(standing)
    new_index = np.cumsum(standing) - 1
    x, y = np.asarray(life["x"], np.float32)[rows], np.asarray(life["y"], np.float32)[rows]
    z = ground_heights(hab, x.astype(np.float64), y.astype(np.float64)) if len(rows) else np.zeros(0)
    final_z = ground_heights(hab, run.x, run.y) if len(run.x) else np.zeros(0)
    sizes = [np.column_stack(run.snapshot_sizes[k]) for k in keep_years]
    arrays: dict[str, npt.NDArray[Any]] = {
        "uid": uid_all[rows],
        "kind": np.asarray(life["kind"], np.int16)[rows],
        "x": x,
        "y": y,
        "z": np.asarray(z, np.float32),
        "born": born[rows],
        "died": died[rows],
        "sizes": np.concatenate(sizes).astype(np.uint16) if sizes else np.zeros((0, 2), np.uint16),
        "final_rows": np.asarray(new_index[final_all], np.int32),
        "final_x": np.asarray(run.x, np.float32),
        "final_y": np.asarray(run.y, np.float32),
        "final_z": np.asarray(final_z, np.float32),
        "final_radius": np.asarray(run.radius, np.float64),
        "final_height": np.asarray(run.height, np.float64),
    }
    return ForestSnapshots(
        years=run.years,
        snapshot_years=kept_years,
        max_radius=np.asarray(run.max_radius, np.float64),
        max_height=np.asarray(run.max_height, np.float64),
        arrays=arrays,
        counts=tuple(len(s) for s in sizes),
    )


def _alive_rows(born: npt.NDArray[np.int32], died: npt.NDArray[np.int32], years: tuple[int, ...]) -> npt.NDArray[Any]:
    """The life rows of every snapshot year, snapshot after snapshot (the rows of ``sizes``)."""
    parts = [np.flatnonzero((born <= y) & (died > y)) for y in years]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _plant_major(snap: ForestSnapshots) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The order that puts ``sizes`` plant after plant (a plant's snapshots together, in years) and
    where a new plant starts in it."""
    a = snap.arrays
    rows = _alive_rows(a["born"], a["died"], snap.snapshot_years)
    order = np.argsort(rows, kind="stable")  # snapshot-major in, so a plant's years stay in order
    ordered = rows[order]
    first = np.ones(len(ordered), bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return order, first


def _shuffled(values: npt.NDArray[Any], dtype: str) -> bytes:
    """Little-endian bytes, byte plane after byte plane (the high bytes of nearby values compress)."""
    raw = np.ascontiguousarray(values, dtype).view(np.uint8).reshape(-1, np.dtype(dtype).itemsize)
    return np.ascontiguousarray(raw.T).tobytes()


def _unshuffled(body: bytes, dtype: str, count: int, pos: int) -> npt.NDArray[Any]:
    size = np.dtype(dtype).itemsize
    planes = np.frombuffer(body, np.uint8, count * size, pos).reshape(size, count)
    return np.ascontiguousarray(planes.T).view(dtype).reshape(count).astype(np.dtype(dtype).newbyteorder("="))


def snapshots_bytes(snap: ForestSnapshots, *, level: int = 6) -> bytes:
    """The snapshots as bytes: ``WSFS``, a header's length (uint32 LE), the header (JSON: format,
    version, years, snapshot years and counts, the species' maxima, the arrays' lengths), then the
    arrays (little-endian, in a fixed order, byte plane after byte plane) compressed with zlib; the
    sizes plant after plant, each plant's first size and then its changes (mod 2^16), which are small."""
    a = snap.arrays
    header = {
        "format": FORMAT,
        "version": VERSION,
        "years": snap.years,
        "snapshot_years": list(snap.snapshot_years),
        "counts": list(snap.counts),
        "max_radius": snap.max_radius.tolist(),
        "max_height": snap.max_height.tolist(),
        "rows": len(a["uid"]),
        "final": len(a["final_rows"]),
    }
    order, first = _plant_major(snap)
    sizes = a["sizes"][order].astype(np.int64)
    # a plant's radius and height are the same share of its species' maxima (both grow alike): the
    # radius shares, and the height shares only where their rounding differs
    differ = np.flatnonzero(sizes[:, 1] != sizes[:, 0])
    header["heights"] = len(differ)
    share = sizes[:, 0]
    steps = share.copy()
    steps[1:] -= np.where(first[1:], 0, share[:-1])
    parts = {
        **a,
        "sizes": (steps & 0xFFFF).astype(np.uint16),
        "height_at": differ.astype(np.uint32),
        "height_share": sizes[differ, 1].astype(np.uint16),
    }
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    body = b"".join(_shuffled(parts[name], dtype) for name, dtype, _ in _ARRAYS)
    return _MAGIC + struct.pack("<I", len(head)) + head + zlib.compress(body, level)


def read_snapshots(data: bytes, *, name: str = "snapshots") -> ForestSnapshots:
    """The :class:`ForestSnapshots` of :func:`snapshots_bytes`' bytes (refused, naming ``name`` and
    what is wrong, when they are not such bytes)."""

    def bad(what: str) -> ParameterError:
        return ParameterError(f"{name}: {what} (not the forest snapshots of a Worldseed simulation)")

    data = bytes(data)
    if data[:4] != _MAGIC or len(data) < 8:
        raise bad("no snapshot header")
    (length,) = struct.unpack("<I", data[4:8])
    try:
        header = json.loads(data[8 : 8 + length].decode("utf-8"))
        if not isinstance(header, dict):
            raise TypeError("header")
        if header.get("format") != FORMAT or header.get("version") != VERSION:
            raise LookupError(f"format {header.get('format')!r} version {header.get('version')!r}")
        counts = tuple(int(c) for c in header["counts"])
        lengths = {
            "rows": int(header["rows"]),
            "final": int(header["final"]),
            "sizes": sum(counts),
            "heights": int(header["heights"]),
        }
        body = zlib.decompress(data[8 + length :])
    except LookupError as err:  # KeyError: a field missing
        raise bad(str(err) if type(err) is LookupError else f"no field {err}") from None
    except (ValueError, TypeError, zlib.error) as err:
        raise bad(f"unreadable ({type(err).__name__})") from None
    expected = sum(lengths[key] * np.dtype(dtype).itemsize for _, dtype, key in _ARRAYS)
    if len(body) != expected:
        raise bad(f"{len(body):,} bytes of arrays where the header says {expected:,}")
    arrays: dict[str, npt.NDArray[Any]] = {}
    pos = 0
    for key, dtype, size in _ARRAYS:
        count = lengths[size]
        arrays[key] = _unshuffled(body, dtype, count, pos)
        pos += count * np.dtype(dtype).itemsize
    years = int(header["years"])
    snapshot_years = tuple(int(y) for y in header["snapshot_years"])
    if len(snapshot_years) != len(counts):
        raise bad("snapshot years and counts differ in number")
    if len(_alive_rows(arrays["born"], arrays["died"], snapshot_years)) != sum(counts):
        raise bad("the snapshot counts do not match the life table")
    rows = lengths["rows"]
    species = len(header["max_radius"])
    kinds = arrays["kind"]
    if len(header["max_height"]) != species or (rows and not (0 <= kinds.min() and kinds.max() < species)):
        raise bad(f"a plant of a species outside the {species} kept")
    if len(arrays["final_rows"]) and not (0 <= arrays["final_rows"].min() and arrays["final_rows"].max() < rows):
        raise bad("a last-year plant outside the life table")
    snap = ForestSnapshots(
        years=years,
        snapshot_years=snapshot_years,
        max_radius=np.asarray(header["max_radius"], np.float64),
        max_height=np.asarray(header["max_height"], np.float64),
        arrays=arrays,
        counts=counts,
    )
    # the sizes back: each plant's running sum of its changes (mod 2^16), then snapshot after snapshot
    order, first = _plant_major(snap)
    steps = arrays.pop("sizes").astype(np.int64)
    total = np.cumsum(steps)
    starts = np.flatnonzero(first)
    before = np.where(starts > 0, total[np.maximum(starts - 1, 0)], 0)
    plant = np.cumsum(first) - 1
    share = (total - before[plant]) & 0xFFFF
    at = arrays.pop("height_at").astype(np.int64)
    if len(at) and at.max() >= len(share):
        raise bad("a height share outside the snapshots")
    pair = np.column_stack([share, share])
    pair[at, 1] = arrays.pop("height_share")
    sizes = np.empty_like(pair)
    sizes[order] = pair
    arrays["sizes"] = sizes.astype(np.uint16)
    return snap
