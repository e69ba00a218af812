"""The Unity terrain package: the bytes of every file a terrain and its layers export as, and the
``<name>_terrain.json`` that lists them with the import settings to use.

Nothing is written here: :func:`package_files` returns ``{file name: bytes}`` and the caller
writes them (atomically, ``unity.write_bytes_atomic``).  The files:

``<name>_heightmap.raw``
    16-bit RAW, little-endian ("Windows"), Flip Vertically off: what ``unity.heightmap_raw16``
    writes of ``unity.unity_heights`` (row 0 is the Terrain's -Z edge), resampled to a Unity
    heightmap resolution when needed -- the same bytes as the plain RAW export.
``<name>_splat<k>.png``
    The alphamaps: RGBA8, linear (not sRGB), texture layers ``4k .. 4k+3`` in R, G, B, A; over
    all the files every pixel sums to exactly 255 (Unity's weights sum to 1).
``<name>_biomes.png``
    The biome map in the table's colours (RGB8), one pixel per heightmap vertex.
``<name>_flow.png``
    Water flow as 8-bit grey, one pixel per heightmap vertex: ``255 * (log10(area) - log10(lo))
    / (log10(hi) - log10(lo))`` of the upstream area in square metres, ``lo`` and ``hi`` in the
    JSON (one cell's area and the whole map's).
``<name>_texture<k>.png`` / ``.jpg``
    A copy of texture layer ``k``'s image file (PNG or JPEG by its first bytes), so the package
    holds everything it names; the JSON's ``layers[k].texture`` is this file name (relative).
``<name>_detail<k>.raw``
    A detail layer's instance counts per detail cell: 16-bit little-endian RAW, row 0 the
    Terrain's -Z edge like the heightmap (``TerrainData.SetDetailLayer`` takes ``[z, x]``).
``<name>_terrain.json``
    :func:`terrain_json`: the layers per file and channel (name, colour, texture, tile size),
    the files, the biomes, the flow encoding, the erosion ledger and the import settings
    (heightmap, alphamap and detail resolutions, the Terrain's size and position).

Orientation
-----------
Our maps have row 0 at Blender's -Y and column 0 at Blender's -X.  The exported FBX arrives in
Unity turned 180 degrees about the vertical (Blender ``(x, y, z)`` is Unity ``(-x, z, -y)``, see
:mod:`core.unity`), so Unity's ``map[z, x]`` is ours turned by 180 degrees (`unity_map`), as
the RAW heightmap is.  Images are read by Unity with pixel (0, 0) at the bottom left, and a
Terrain's control texture maps texel ``(u, v)`` to terrain-local ``(u * width, v * length)``;
so a PNG's last row is the Terrain's -Z edge and its first column the -X edge
(`unity_image`: ``ours[:, ::-1]``, top row first).  A Terrain at the JSON's ``position``
lines up with the FBX mesh.
"""

import json
import math
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_array, check_float
from .errors import ParameterError, short
from .files import open_regular
from .preview import png_bytes
from .unity import UNITY_HEIGHTMAP_RESOLUTIONS, heightmap_raw16, resample_square, unity_heights, unity_terrain_position

__all__ = [
    "ALPHAMAP_RESOLUTIONS",
    "DETAIL_PER_PATCH",
    "FORMAT",
    "heightmap_side",
    "alphamap_side",
    "texel_weights",
    "unity_map",
    "unity_image",
    "heightmap_bytes",
    "splat_png_bytes",
    "flow_png_bytes",
    "flow_range",
    "detail_raw16",
    "terrain_json",
    "json_bytes",
    "TEXTURE_FORMATS",
    "MAX_TEXTURE_BYTES",
    "texture_format",
    "read_texture",
    "package_files",
    "texture_file_name",
    "texture_file_names",
    "CHANNELS",
]

#: Control-texture (alphamap) resolutions Unity's Terrain offers: powers of two, 16 to 4096.
ALPHAMAP_RESOLUTIONS = tuple(2**k for k in range(4, 13))
#: Detail cells per detail patch (``TerrainData.SetDetailResolution``'s second argument, 8 to 128).
DETAIL_PER_PATCH = 32
#: The terrain JSON's ``format`` and ``version``.
FORMAT = ("worldseed.unity_terrain", 1)
CHANNELS = "RGBA"


#: The image files a texture layer may name, by their first bytes (file extension: magic bytes):
#: PNG and JPEG, which Blender and Unity both read.
TEXTURE_FORMATS = {"png": b"\x89PNG\r\n\x1a\n", "jpg": b"\xff\xd8\xff"}

#: Largest texture file copied into the Unity package (bytes): an 8K RGBA PNG is ~100 MB at most.
MAX_TEXTURE_BYTES = 256 * 1024 * 1024


class TextureLayer(Protocol):
    """What :func:`package_files` reads of a texture layer (``core.splat.SplatSpec``)."""

    @property
    def name(self) -> str: ...
    @property
    def color(self) -> tuple[float, float, float]: ...
    @property
    def texture(self) -> str: ...
    @property
    def tile_size(self) -> float: ...


class TileHeights(Protocol):
    """What :func:`package_files` reads of a tile's heights (``core.terrain.TerrainHeights``)."""

    @property
    def values(self) -> npt.NDArray[np.float32]: ...
    @property
    def cell_size(self) -> float: ...
    @property
    def height(self) -> float: ...


class TerrainTile(Protocol):
    """What :func:`package_files` reads of a terrain tile and its layers (``core.terrain.TerrainLayers``):
    this shared module names no family."""

    @property
    def heights(self) -> TileHeights: ...
    @property
    def splats(self) -> tuple[npt.NDArray[np.uint8], ...]: ...
    @property
    def weights(self) -> npt.NDArray[np.float32] | None: ...
    @property
    def biomes(self) -> npt.NDArray[np.integer[Any]] | None: ...
    @property
    def biome_names(self) -> tuple[str, ...]: ...
    @property
    def biome_colors(self) -> npt.NDArray[np.float32] | None: ...
    @property
    def flow(self) -> npt.NDArray[np.float64] | None: ...
    @property
    def details(self) -> tuple[tuple[str, npt.NDArray[np.uint16]], ...]: ...
    @property
    def ledger(self) -> Mapping[str, float] | None: ...
    @property
    def clipped(self) -> Mapping[str, float | None]: ...


def _texture_head(
    path: str | os.PathLike[str], name: str, size: int | None, shown: str | None = None
) -> tuple[str, bytes]:
    """The first ``size`` bytes of the regular file ``path`` (``size=None``: all of it, checked
    against :data:`MAX_TEXTURE_BYTES`), and its extension in :data:`TEXTURE_FORMATS`.  Errors
    name ``shown`` (what the user wrote; default ``path``)."""
    allowed = "a PNG or JPEG image file"
    shown = short(str(path) if shown is None else shown, 300)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ParameterError(f"{name} {shown} is not a file; it must be {allowed}")
        if size is None and info.st_size > MAX_TEXTURE_BYTES:
            raise ParameterError(
                f"{name} {shown} is {info.st_size:,} bytes; a texture may be at most {MAX_TEXTURE_BYTES:,}"
            )
        f = open_regular(path)  # what was opened is checked too: a FIFO put there since cannot hang
        if f is None:
            raise ParameterError(f"{name} {shown} is not a file; it must be {allowed}")
        with f:
            data = f.read(size if size is not None else MAX_TEXTURE_BYTES + 1)
    except OSError as err:
        raise ParameterError(f"{name} {shown} cannot be read ({err.strerror}); it must be {allowed}") from None
    if size is None and len(data) > MAX_TEXTURE_BYTES:
        raise ParameterError(f"{name} {shown} is larger than {MAX_TEXTURE_BYTES:,} bytes, a texture's most")
    for ext, magic in TEXTURE_FORMATS.items():
        if data.startswith(magic):
            return ext, data
    raise ParameterError(f"{name} {shown} is not a PNG or JPEG image (by its first bytes); it must be {allowed}")


def texture_format(path: str | os.PathLike[str], *, name: str = "texture", shown: str | None = None) -> str:
    """``"png"`` or ``"jpg"``: the format of the image file ``path`` by its first bytes (not its
    name); a :class:`ParameterError` naming ``name`` and ``shown`` (the value as the user wrote
    it; default ``path``) for anything else (missing, a folder, a text file ...)."""
    return _texture_head(path, name, len(max(TEXTURE_FORMATS.values(), key=len)), shown)[0]


def read_texture(path: str | os.PathLike[str], *, name: str = "texture") -> tuple[str, bytes]:
    """``(ext, bytes)`` of the texture file ``path`` (checked as :func:`texture_format`; at most
    :data:`MAX_TEXTURE_BYTES`), for a copy in the Unity package."""
    return _texture_head(path, name, None)


def heightmap_side(n: int) -> int:
    """The Unity heightmap resolution a map of ``n`` vertices a side is written at: the smallest
    ``UNITY_HEIGHTMAP_RESOLUTIONS`` entry >= n (4097 at most).

    >>> heightmap_side(257), heightmap_side(300), heightmap_side(9000)
    (257, 513, 4097)
    """
    return min((s for s in UNITY_HEIGHTMAP_RESOLUTIONS if s >= n), default=max(UNITY_HEIGHTMAP_RESOLUTIONS))


def alphamap_side(n: int) -> int:
    """The alphamap resolution for a heightmap of ``n`` vertices a side: ``heightmap_side(n) - 1``
    (one texel per heightmap cell), within 16 .. 4096.

    >>> alphamap_side(257), alphamap_side(17), alphamap_side(4097)
    (256, 32, 4096)
    """
    return min(max(heightmap_side(n) - 1, ALPHAMAP_RESOLUTIONS[0]), ALPHAMAP_RESOLUTIONS[-1])


def texel_weights(weights: npt.ArrayLike, *, side: int) -> npt.NDArray[np.float32]:
    """Layer weights at the vertices ``(L, rows, cols)`` resampled to the centres of a
    ``side x side`` alphamap's texels: ``(L, side, side)`` float32, summing to 1 per texel.

    Texel ``i`` covers ``[i / side, (i + 1) / side]`` of the terrain; its weight is the bilinear
    blend of the vertex weights at its centre (with ``side == cols - 1``: the mean of its cell's
    four corners).  A blend of weights that sum to 1 sums to 1; the sum is restored exactly
    against float rounding.

    >>> w = np.zeros((2, 3, 3), np.float32); w[0] = 1.0; w[:, 0, 0] = (0.0, 1.0)
    >>> texel_weights(w, side=2)[1].tolist()
    [[0.25, 0.0], [0.0, 0.0]]
    """
    w = check_array(weights, name="weights", ndim=3).astype(np.float32, copy=False)
    layers, rows, cols = w.shape
    if rows < 2 or cols < 2 or layers < 1:
        raise ParameterError(f"weights must be (layers >= 1, rows >= 2, cols >= 2), got shape {w.shape}")

    def axis(n: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        pos = (np.arange(side) + 0.5) * ((n - 1) / side)
        i0 = np.minimum(np.floor(pos).astype(np.intp), n - 2)
        return i0, (pos - i0).astype(np.float32)

    if rows == cols == side + 1:  # one texel a cell: the mean of its four corners
        out = w[:, :-1, :-1] + w[:, 1:, :-1]
        out += w[:, :-1, 1:]
        out += w[:, 1:, 1:]
        out *= np.float32(0.25)
    else:
        out = w
        for n in (rows, cols):  # along the rows, then (transposed) along the columns: whole rows at a time
            i0, t = axis(n)
            lo = np.take(out, i0, axis=1)
            lo *= (1 - t)[None, :, None]
            hi = np.take(out, i0 + 1, axis=1)
            hi *= t[None, :, None]
            lo += hi
            out = np.ascontiguousarray(lo.transpose(0, 2, 1))
    total = out.sum(axis=0)
    total[total <= 0] = 1.0
    out /= total
    return out


def unity_map(grid: npt.ArrayLike) -> npt.NDArray[Any]:
    """A map in our layout (row 0 at Blender -Y) as Unity's ``map[z, x]`` of the exported terrain:
    turned by 180 degrees (as `unity.unity_heights`).

    >>> unity_map(np.array([[0, 1], [2, 3]])).tolist()
    [[3, 2], [1, 0]]
    """
    return np.ascontiguousarray(np.asarray(grid)[::-1, ::-1])


def unity_image(image: npt.ArrayLike) -> npt.NDArray[Any]:
    """A map in our layout as the rows of an image file for Unity (top row first; Unity reads the
    last row as the Terrain's -Z edge): ``image[:, ::-1]``.  Its own inverse.

    >>> unity_image(np.array([[0, 1], [2, 3]])).tolist()
    [[1, 0], [3, 2]]
    """
    return np.ascontiguousarray(np.asarray(image)[:, ::-1])


def heightmap_bytes(values01: npt.ArrayLike) -> tuple[bytes, int]:
    """The ``<name>_heightmap.raw`` bytes of heights in [0, 1] in our layout (resampled to
    `heightmap_side` when needed), as the plain RAW export writes them; and that side."""
    values = check_array(values01, name="values01", ndim=2)
    n = values.shape[0]
    side = heightmap_side(n)
    if side != n or values.shape[1] != n:
        values = resample_square(values, side=side)
    return heightmap_raw16(unity_heights(values), byte_order="little"), side


def splat_png_bytes(packed: Iterable[npt.NDArray[np.uint8]]) -> list[bytes]:
    """PNG bytes of packed splat images (``(h, w, 4)`` uint8 each, our layout), in Unity's orientation."""
    out = []
    for k, image in enumerate(packed):
        img = np.asarray(image)
        if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 4:
            raise ParameterError(f"packed[{k}] must be a (rows, cols, 4) uint8 image, got {img.dtype} {img.shape}")
        out.append(png_bytes(unity_image(img)))
    return out


def flow_range(shape: tuple[int, ...], cell_size: float) -> tuple[float, float]:
    """``(lo, hi)`` square metres of the flow PNG's scale: one cell's area and the whole map's."""
    cell_area = float(cell_size) * float(cell_size)  # not ** 2: a Python float's ** is the C library's pow
    return cell_area, cell_area * shape[0] * shape[1]


def flow_png_bytes(flow: npt.ArrayLike, *, cell_size: float) -> bytes:
    """The ``<name>_flow.png`` bytes: the upstream area (m^2, our layout) on a log scale (module notes)."""
    f = check_array(flow, name="flow", ndim=2)
    cell_size = check_float(cell_size, name="cell_size", bounds=(0.0, None), open_low=True)
    lo, hi = flow_range(f.shape, cell_size)
    # log10 from core.exact: numpy's and the C library's differ between machines
    log_lo, log_hi = exact.log10(lo), exact.log10(hi)
    scaled = (exact.log10(np.maximum(f, lo)) - log_lo) / max(log_hi - log_lo, 1e-12)
    grey = np.clip(np.rint(scaled * 255.0), 0, 255).astype(np.uint8)
    return png_bytes(unity_image(grey))


def detail_raw16(counts: npt.ArrayLike) -> bytes:
    """A detail layer's ``(r, r)`` instance counts (our layout) as 16-bit little-endian RAW bytes,
    row 0 the Terrain's -Z edge."""
    c = np.asarray(counts)
    if c.ndim != 2 or c.dtype.kind not in "iu" or (c.size and (c.min() < 0 or c.max() > 65535)):
        raise ParameterError(f"counts must be a 2-D integer array in [0, 65535], got {c.dtype} {c.shape}")
    return unity_map(c).astype("<u2").tobytes()


def _plain(value: object) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def terrain_json(
    name: str,
    *,
    size: float,
    height: float,
    heightmap_side: int,
    resampled_from: int | None = None,
    alphamap_side: int | None = None,
    layers: Sequence[Mapping[str, Any]] = (),
    biomes: Mapping[str, Any] | None = None,
    flow: Mapping[str, float] | None = None,
    erosion: Mapping[str, Any] | None = None,
    details: Sequence[Mapping[str, Any]] = (),
    detail_side: int | None = None,
    placements: str | None = None,
    blender_centre: Sequence[float] = (0.0, 0.0, 0.0),
) -> dict[str, Any]:
    """The content of ``<name>_terrain.json`` as a dict of plain JSON values.

    ``layers``: the texture layers in order, each a dict with ``name``, ``color`` (linear RGB),
    ``texture`` (the copy's file name beside the JSON, or ``""`` / None) and ``tile_size`` (metres); layer ``i`` goes to
    ``<name>_splat<i // 4>.png``'s channel ``"RGBA"[i % 4]``.  ``biomes``: ``{"names", "colors"}``
    or None; ``flow``: ``{"lo", "hi"}`` (`flow_range`) or None; ``erosion``: ``{"ledger", ...}`` or
    None; ``details``: dicts with ``name`` (and anything else to list), written as
    ``<name>_detail<k>.raw``; ``placements``: the placement file's name (tree instances), or None.
    """
    position = unity_terrain_position(size, blender_centre=blender_centre).tolist()
    splat_files = [f"{name}_splat{k}.png" for k in range(-(-len(layers) // 4))]
    out = {
        "format": FORMAT[0],
        "version": FORMAT[1],
        "name": name,
        "import_settings": {
            "terrain_size": {"width": size, "height": height, "length": size},
            "terrain_position": position,
            "heightmap_resolution": heightmap_side,
            "alphamap_resolution": alphamap_side if layers else None,
            "detail_resolution": detail_side if details else None,
            "detail_resolution_per_patch": DETAIL_PER_PATCH if details else None,
        },
        "heightmap": {
            "file": f"{name}_heightmap.raw",
            "depth": "Bit16",
            "byte_order": "Windows",
            "width": heightmap_side,
            "height": heightmap_side,
            "flip_vertically": False,
            "resampled_from": resampled_from,
        },
        "splats": {
            "files": splat_files,
            "color_space": "linear",
            "channels": CHANNELS,
            "sum": 255,
            "orientation": "texel (u, v), v up as Unity reads textures, covers terrain-local "
            "(u * width, v * length): the PNG's last row is the Terrain's -Z edge",
        },
        "layers": [
            {
                "index": i,
                "name": layer["name"],
                "file": splat_files[i // 4],
                "channel": CHANNELS[i % 4],
                "color": list(layer["color"]),
                "texture": layer.get("texture") or None,
                "tile_size": [layer["tile_size"], layer["tile_size"]],
            }
            for i, layer in enumerate(layers)
        ],
        "biomes": None
        if biomes is None
        else {
            "file": f"{name}_biomes.png",
            "names": list(biomes["names"]),
            "colors": [list(c) for c in biomes["colors"]],
            "orientation": "as the splats; one pixel per heightmap vertex of the terrain before resampling",
        },
        "flow": None
        if flow is None
        else {
            "file": f"{name}_flow.png",
            "encoding": "grey = 255 * (log10(area) - log10(lo)) / (log10(hi) - log10(lo)), area = upstream m^2",
            "lo": flow["lo"],
            "hi": flow["hi"],
            "orientation": "as the splats; one pixel per heightmap vertex of the terrain before resampling",
        },
        "erosion": None if erosion is None else erosion,
        "trees": None if placements is None else {"file": placements},
        "details": [
            {
                **detail,
                "file": f"{name}_detail{k}.raw",
                "format": "uint16 little-endian counts per detail cell, row 0 = the Terrain's -Z edge "
                "(TerrainData.SetDetailLayer's [z, x])",
                "resolution": detail_side,
            }
            for k, detail in enumerate(details)
        ],
        "note": "Import the RAW with the heightmap settings (Terrain Settings > Import Raw), set the "
        "Terrain's size and the resolutions above, put it at terrain_position (world space): it lines up "
        "with the FBX mesh. The splat PNGs are the control textures (linear, no sRGB, no compression).",
    }
    return _plain(out)


def texture_file_name(name: str, k: int, ext: str) -> str:
    """The name of layer ``k``'s texture copied into the package: ``<name>_texture<k>.<ext>``
    (``ext`` ``"png"`` or ``"jpg"``, the file's format by its first bytes).

    >>> texture_file_name("world", 2, "jpg")
    'world_texture2.jpg'
    """
    return f"{name}_texture{k}.{ext}"


def texture_file_names(name: str, splats: Iterable[TextureLayer]) -> list[str]:
    """The texture copies a package of ``splats`` (``[[splat]]`` specs) holds, in layer order."""
    return [
        texture_file_name(name, k, texture_format(s.texture, name=f"splat[{k}].texture"))
        for k, s in enumerate(splats)
        if s.texture
    ]


def json_bytes(content: object) -> bytes:
    """UTF-8 JSON bytes (indented, ending in a newline) of a dict of plain values."""
    return (json.dumps(content, indent=2) + "\n").encode("utf-8")


def package_files(
    name: str,
    layers: TerrainTile,
    *,
    size: float,
    splats: Sequence[TextureLayer] = (),
    biome_colors: npt.ArrayLike | None = None,
    details: Iterable[tuple[str, npt.NDArray[np.uint16]]] | None = None,
    placements: str | None = None,
    blender_centre: Sequence[float] = (0.0, 0.0, 0.0),
) -> dict[str, bytes]:
    """Every file of the Unity terrain package of ``layers`` (a ``core.terrain.TerrainLayers``):
    ``{file name: bytes}``, ``<name>_terrain.json`` last.

    ``size`` is the terrain's side in metres; ``splats`` the ``[[splat]]`` specs the layers were
    made with (name, color, texture, tile_size; each texture file is read and copied as
    ``<name>_texture<k>.<ext>``, :func:`texture_file_name`); ``biome_colors`` the table's colours (defaults
    to the layers' own); ``details`` the detail layers ``((name, counts), ...)``
    (``core.scatter.detail_layers``; default: the layers' own); ``placements`` the name of the
    placement file written beside (tree instances), listed in the JSON.  Files a terrain's layers do not
    have (no splats, no biomes, no flow, no details) are left out, and the JSON says ``null`` /
    ``[]`` for them.
    """
    heights = layers.heights
    files = {}
    raw, side = heightmap_bytes(heights.values)
    files[f"{name}_heightmap.raw"] = raw
    n = heights.values.shape[0]
    layer_rows: list[dict[str, Any]] = []
    if layers.splats:
        assert layers.weights is not None, "texture layers come with their weights"
        if len(splats) != len(layers.weights):
            raise ParameterError(f"splats has {len(splats)} specs; the layers were made with {len(layers.weights)}")
        for k, data in enumerate(splat_png_bytes(layers.splats)):
            files[f"{name}_splat{k}.png"] = data
        layer_rows = []
        for k, s in enumerate(splats):  # each texture copied beside the JSON, which names the copy
            texture = None
            if s.texture:
                ext, data = read_texture(s.texture, name=f"splat[{k}].texture")
                texture = texture_file_name(name, k, ext)
                files[texture] = data
            layer_rows.append({"name": s.name, "color": s.color, "texture": texture, "tile_size": s.tile_size})
    biomes = None
    if layers.biomes is not None:
        colors = layers.biome_colors if biome_colors is None else biome_colors
        rgb = np.asarray(colors, np.float32)[layers.biomes]
        files[f"{name}_biomes.png"] = png_bytes(unity_image(np.clip(np.rint(rgb * 255.0), 0, 255).astype(np.uint8)))
        biomes = {"names": layers.biome_names, "colors": np.asarray(colors, np.float64).round(6)}
    flow = None
    if layers.flow is not None:
        files[f"{name}_flow.png"] = flow_png_bytes(layers.flow, cell_size=heights.cell_size)
        lo, hi = flow_range(layers.flow.shape, heights.cell_size)
        flow = {"lo": lo, "hi": hi}
    detail_maps = tuple(layers.details if details is None else details)
    detail_rows = []
    for k, (detail_name, counts) in enumerate(detail_maps):
        files[f"{name}_detail{k}.raw"] = detail_raw16(counts)
        detail_rows.append({"name": detail_name})
    erosion = None
    if layers.ledger is not None:
        erosion = {"ledger": dict(layers.ledger), "clipped": dict(layers.clipped)}
    content = terrain_json(
        name,
        size=size,
        height=heights.height,
        heightmap_side=side,
        resampled_from=None if side == n else n,
        alphamap_side=layers.splats[0].shape[0] if layers.splats else None,
        layers=layer_rows,
        biomes=biomes,
        flow=flow,
        erosion=erosion,
        details=detail_rows,
        detail_side=detail_maps[0][1].shape[0] if detail_maps else None,
        placements=placements,
        blender_centre=blender_centre,
    )
    files[f"{name}_terrain.json"] = json_bytes(content)
    return files
