"""Unity terrain data: 16-bit RAW heightmaps, resampling to Unity's resolutions, atomic writes.

Orientation
-----------
Unity's Terrain stores heights as ``heights[y, x]`` (``TerrainData.SetHeights``),
with ``x`` along the terrain's local +X and ``y`` along its local +Z.  Its
"Import Raw" dialog reads the file row by row into ``heights[row, :]``, or into
``heights[side - 1 - row, :]`` when *Flip Vertically* is ticked.

Our heightmaps use the same layout: row 0 is the smallest Blender Y, column 0
the smallest Blender X.  With ``flip_vertically=False`` (the default) file
row 0 is our row 0, so, with Flip Vertically **off** in Unity's dialog:

* our row 0 (Blender -Y) becomes the terrain's -Z ("south") edge, and
* our column 0 (Blender -X) its -X ("west") edge.

Seen from above, the map in Unity looks like it did in Blender's top view
(Blender +Y and Unity +Z both point up the screen).  ``flip_vertically=True``
writes the rows last-to-first, as image files and GIS rasters do; tick Flip
Vertically in Unity's dialog to read such a file the same way round.

Our FBX exports use Unity's usual convention for Blender models (axis -Z
forward, Y up, so a model's front, Blender -Y, faces Unity's +Z). Unity then
mirrors X on import, so a Blender point ``(x, y, z)`` arrives at Unity
``(-x, z, -y)`` (:func:`unity_position`): the exported world is turned 180
degrees about the vertical. To line a Unity Terrain up with the exported mesh,
:func:`unity_heights` turns the heightmap the same way before it is written,
and :func:`unity_terrain_position` says where the Terrain goes.

Byte order: Unity's "Windows" is little-endian and "Mac" big-endian.  Depth:
choose "Bit 16".  Width and height are the file's side (one of
`UNITY_HEIGHTMAP_RESOLUTIONS`).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._checks import check_array, check_bool, check_choice, check_int
from .errors import ParameterError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = [
    "unity_position",
    "unity_heights",
    "unity_terrain_position",
    "UNITY_HEIGHTMAP_RESOLUTIONS",
    "BYTE_ORDERS",
    "heightmap_raw16",
    "read_raw16",
    "resample_square",
    "write_bytes_atomic",
]

#: Heightmap resolutions Unity's ``TerrainData.heightmapResolution`` accepts (2**n + 1).
UNITY_HEIGHTMAP_RESOLUTIONS = (33, 65, 129, 257, 513, 1025, 2049, 4097)
#: RAW byte orders: 'little' (Unity's "Windows") and 'big' (Unity's "Mac").
BYTE_ORDERS = ("little", "big")

_RAW_DTYPES = {"little": np.dtype("<u2"), "big": np.dtype(">u2")}


def _check_side(side: int, *, name: str) -> int:
    if side not in UNITY_HEIGHTMAP_RESOLUTIONS:
        listed = ", ".join(str(s) for s in UNITY_HEIGHTMAP_RESOLUTIONS)
        raise ParameterError(f"{name} must be one of Unity's heightmap resolutions {listed}, got {side}")
    return side


def unity_position(blender_xyz: npt.ArrayLike) -> npt.NDArray[Any]:
    """Where Blender positions land in Unity after a Worldseed FBX export: ``(-x, z, -y)``.

    Parameters
    ----------
    blender_xyz : (..., 3) array_like of float

    >>> unity_position([10.0, 20.0, 3.0]).tolist()
    [-10.0, 3.0, -20.0]
    """
    p = check_array(blender_xyz, name="blender_xyz")
    if p.shape[-1:] != (3,):
        raise ParameterError(f"blender_xyz must have 3 values per point, got shape {p.shape}")
    return np.stack([-p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


def unity_heights(heights01: npt.ArrayLike) -> npt.NDArray[Any]:
    """A heightmap in our layout (row 0 = Blender -Y) turned to match the exported mesh in Unity.

    Blender +X arrives as Unity -X and Blender +Y as Unity -Z, so Unity's
    ``heights[z, x]`` is ours turned by 180 degrees.

    >>> unity_heights(np.array([[0.0, 1.0], [2.0, 3.0]])).tolist()
    [[3.0, 2.0], [1.0, 0.0]]
    """
    h = check_array(heights01, name="heights01", ndim=2)
    return np.ascontiguousarray(h[::-1, ::-1])


def unity_terrain_position(
    size: float, *, blender_centre: Sequence[float] = (0.0, 0.0, 0.0)
) -> npt.NDArray[np.float64]:
    """Unity position of a Terrain of ``size`` metres that lines up with a mesh centred at ``blender_centre``.

    A Unity Terrain grows from its position along +X and +Z, so it goes half
    a size before the mesh's centre on both axes.

    >>> unity_terrain_position(512.0).tolist()
    [-256.0, 0.0, -256.0]
    """
    cx, cy, cz = unity_position(blender_centre).tolist()
    return np.array([cx - size / 2.0, cy, cz - size / 2.0])


def heightmap_raw16(heights01: npt.ArrayLike, *, byte_order: str = "little", flip_vertically: bool = False) -> bytes:
    """Encode a square heightmap as a 16-bit RAW file for Unity's Terrain "Import Raw".

    Parameters
    ----------
    heights01 : (side, side) array_like of float
        Heights in [0, 1] (values outside are clipped), ``side`` one of
        ``UNITY_HEIGHTMAP_RESOLUTIONS``; use `resample_square` for other sizes.
        Row 0 is the terrain's -Z (south) edge, see the module notes.
    byte_order : {'little', 'big'}, optional
        'little' matches Unity's "Windows" byte order, 'big' its "Mac".
    flip_vertically : bool, optional
        Write the last row first; then tick *Flip Vertically* in Unity.

    Returns
    -------
    data : bytes
        ``side * side * 2`` bytes, row-major, each sample
        ``round(clip(h, 0, 1) * 65535)`` as an unsigned 16-bit integer.

    Notes
    -----
    Unity's importer divides by 65536, not 65535, so a height of 1 arrives as
    0.99998; the difference (1.5e-5 of the terrain height) is below what a
    terrain can show.

    Examples
    --------
    >>> h = np.zeros((33, 33), np.float32); h[0, 0] = 1.0
    >>> data = heightmap_raw16(h)
    >>> len(data), data[:4]
    (2178, b'\\xff\\xff\\x00\\x00')
    >>> heightmap_raw16(h, byte_order="big")[:2] == heightmap_raw16(h)[:2][::-1]
    True
    """
    h = check_array(heights01, name="heights01", ndim=2)
    if h.shape[0] != h.shape[1]:
        raise ParameterError(f"heights01 must be square, got shape {h.shape}")
    _check_side(h.shape[0], name="heights01 side")
    check_choice(byte_order, name="byte_order", choices=BYTE_ORDERS)
    flip_vertically = check_bool(flip_vertically, name="flip_vertically")
    if h.dtype not in (np.float32, np.float64):
        h = h.astype(np.float32)
    scaled = np.clip(h, 0, 1)
    scaled *= 65535
    np.rint(scaled, out=scaled)
    if flip_vertically:
        scaled = scaled[::-1]
    return scaled.astype(_RAW_DTYPES[byte_order]).tobytes()


def read_raw16(
    data: ReadableBuffer, *, side: int, byte_order: str = "little", flip_vertically: bool = False
) -> npt.NDArray[np.float32]:
    """Decode a 16-bit RAW heightmap, the inverse of `heightmap_raw16`.

    Parameters
    ----------
    data : bytes-like
        ``side * side * 2`` bytes.
    side : int
        One of ``UNITY_HEIGHTMAP_RESOLUTIONS``.
    byte_order : {'little', 'big'}, optional
        As written.
    flip_vertically : bool, optional
        True if the file was written with ``flip_vertically=True``.

    Returns
    -------
    heights : (side, side) float32 ndarray in [0, 1]
        ``value / 65535``; encoding it again gives the same bytes.

    Examples
    --------
    >>> h = read_raw16(b"\\xff\\xff" + bytes(33 * 33 * 2 - 2), side=33)
    >>> h.shape, float(h[0, 0]), float(h[0, 1])
    ((33, 33), 1.0, 0.0)
    """
    side = check_int(side, name="side", bounds=(1, None))
    _check_side(side, name="side")
    check_choice(byte_order, name="byte_order", choices=BYTE_ORDERS)
    flip_vertically = check_bool(flip_vertically, name="flip_vertically")
    try:
        view = memoryview(data)
    except TypeError:
        raise ParameterError(f"data must be bytes-like, got {type(data).__name__}") from None
    if view.nbytes != side * side * 2:
        raise ParameterError(
            f"data must hold side * side * 2 = {side * side * 2:,} bytes for side {side}, got {view.nbytes:,}"
        )
    values = np.frombuffer(view.cast("B"), dtype=_RAW_DTYPES[byte_order]).reshape(side, side)
    if flip_vertically:
        values = values[::-1]
    heights = values.astype(np.float32)
    heights /= np.float32(65535)
    return heights


def resample_square(heights: npt.ArrayLike, *, side: int) -> npt.NDArray[np.float32]:
    """Bilinearly resample a heightmap to a ``side x side`` Unity resolution.

    Parameters
    ----------
    heights : (rows, cols) array_like of float
        Heights, ``rows, cols >= 2``.  A non-square map is stretched to the
        square; set Unity's Terrain Size (width vs. length) to keep its aspect.
    side : int
        Target side, one of ``UNITY_HEIGHTMAP_RESOLUTIONS``.

    Returns
    -------
    out : (side, side) float32 ndarray
        Corner-aligned: sample ``i`` lies at input position
        ``i * (n - 1) / (side - 1)``, so the four corners (and the whole
        border line) are kept exactly, and an input already ``side x side``
        comes back unchanged.  Bilinear weights never leave the input's range.

    Notes
    -----
    There is no low-pass filter: shrinking by more than 2x skips detail
    between samples (smooth the map first if it is very noisy).

    Examples
    --------
    >>> out = resample_square(np.array([[0.0, 1.0], [1.0, 2.0]]), side=33)
    >>> out.shape, float(out[0, 0]), float(out[16, 16]), float(out[-1, -1])
    ((33, 33), 0.0, 1.0, 2.0)
    """
    h = check_array(heights, name="heights", ndim=2)
    if min(h.shape) < 2:
        raise ParameterError(f"heights must have at least 2 rows and 2 columns, got shape {h.shape}")
    side = check_int(side, name="side", bounds=(1, None))
    _check_side(side, name="side")
    h = h.astype(np.float32, copy=False)

    def weights(n: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        pos = np.linspace(0.0, n - 1, side)
        i0 = np.minimum(np.floor(pos).astype(np.intp), n - 2)
        return i0, (pos - i0).astype(np.float32)

    r0, tr = weights(h.shape[0])
    tmp = h[r0] * (1 - tr)[:, None]  # along rows: (side, cols)
    tmp += h[r0 + 1] * tr[:, None]
    c0, tc = weights(h.shape[1])
    out = tmp[:, c0] * (1 - tc)[None, :]  # along columns: (side, side)
    out += tmp[:, c0 + 1] * tc[None, :]
    return out


def _fsync_dir(folder: str) -> None:
    """Best effort: make the rename itself durable (POSIX only)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes_atomic(path: str | os.PathLike[str], data: ReadableBuffer | Iterable[ReadableBuffer]) -> int:
    """Write a file so that it is either fully replaced or left as it was.

    The data goes to a hidden temporary file in the same folder, is flushed to
    disk, and only then renamed over ``path`` with ``os.replace`` (atomic on
    POSIX and Windows).  If anything fails before the rename, the temporary
    file is removed, the exception propagates, and an existing ``path`` is
    untouched.

    Parameters
    ----------
    path : str or os.PathLike
        Destination file; its folder must exist.
    data : bytes-like or iterable of bytes-like
        The whole content, or chunks written in order (so large files can be
        streamed, e.g. one row at a time).

    Returns
    -------
    n_bytes : int
        Bytes written.

    Raises
    ------
    OSError
        With ``filename`` the destination ``path`` (a full disk's error names the file).

    Notes
    -----
    A replaced file keeps its permission bits; a new file gets the usual
    ``0o666`` minus the process umask, as ``open(path, "wb")`` would.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "terrain.raw"
    ...     write_bytes_atomic(target, b"\\x00\\x01"), target.read_bytes()
    (2, b'\\x00\\x01')
    """
    if isinstance(data, str):
        raise ParameterError("data must be bytes-like or an iterable of bytes-like chunks, got str")
    try:
        path = os.fspath(path)
    except TypeError:
        raise ParameterError(f"path must be a str or os.PathLike, got {type(path).__name__}") from None
    folder, name = os.path.split(os.path.abspath(path))
    chunks: Iterable[ReadableBuffer]
    try:
        chunks = (memoryview(data),)  # type: ignore[arg-type]  # one buffer, or (TypeError) an iterable of them
    except TypeError:
        chunks = data  # type: ignore[assignment]

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as for a new file
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"could not create a temporary file next to {path}")

    written = 0
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                written += f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError) and err.errno is not None:  # name the file (a full disk names none)
            raise OSError(err.errno, err.strerror, path) from None
        raise
    _fsync_dir(folder)
    return written
