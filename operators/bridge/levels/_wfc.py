"""WFC levels in Blender: a sample from an image of the .blend, the artist's tile objects on the WFC cells.

The tiled model's result is a grid of tile variants (``Level.wfc.ids``); a variant is its base tile
turned ``turns`` quarter turns clockwise (seen from above, north up: Blender's top view) after an
optional left-right mirror (``core.wfc.Tileset.turns`` / ``.mirrored``).  Given a collection of
objects named after the base tiles (``"outer corner"``, ``Outer_Corner`` and ``outer corner.001``
are the same name), each WFC cell gets an instance of its base tile's object, its origin at the
cell's centre on the floor, turned by ``-turns * 90°`` about +Z, mirrored across its local YZ plane
when the variant is mirrored (a rotation by 180° about X with scale -1: the instancer's scale is
uniform).  The instances live on one point object built as the modular kit's
(:mod:`.instancing`, kind ``level_kit``), so Make Real and the FBX export work on them unchanged.
Cells whose base tile has no object keep the level mesh (their faces only) and are reported.
"""

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

import bpy
import numpy as np
import numpy.typing as npt

from ....core import levels as core_levels
from ....core import mesh as core_mesh
from ....core import preview as core_preview
from ....core.errors import ParameterError, short
from ....core.levels import LevelQuads, WfcRecord
from ....core.mesh import PolygonTopology
from .. import instancing
from ._kit import KIT_MODULES_KEY, KIT_ROLES_KEY
from ._objects import KIND_KEY, LEVEL_KIT_KIND

__all__ = [
    "MAX_SAMPLE_PIXELS",
    "wfc_presets",
    "image_sample",
    "sample_file",
    "SAMPLES_FOLDER",
    "image_named",
    "naming_image",
    "tile_key",
    "tile_modules",
    "TilePlacements",
    "tile_placements",
    "tiles_object",
    "cells_quads",
]


def wfc_presets() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(tileset stems, sample stems)`` of the WFC presets that make levels (``core.levels.preset_names``
    with ``levels=True``: the 2-D tilesets, the samples listed for levels): what the Levels panel offers."""
    return (
        tuple(core_levels.preset_names("wfc_tileset", levels=True)),
        tuple(core_levels.preset_names("sample", levels=True)),
    )


#: Largest image (pixels) read as an overlapping sample: samples are small pictures (the reference
#: implementation's are 8 to 64 pixels a side); a photo would make millions of patterns.
MAX_SAMPLE_PIXELS = 256 * 256


def image_sample(image: bpy.types.Image | None) -> npt.NDArray[np.uint8]:
    """An image datablock's pixels as a WFC sample: (h, w, 3) uint8 RGB, or (h, w, 4) RGBA for an
    image with an alpha channel (as the PNG file it came from reads), row 0 at the top.

    Blender keeps pixels bottom row first as floats in 0..1: for 8-bit images the stored bytes / 255
    (not colour-managed), so the bytes of a PNG come back as they were written; float images hold
    linear values, turned into the sRGB bytes their colours show (the hex of Blender's colour picker).
    """
    if image is None:
        raise ParameterError("level.sample_image: choose an image (or a sample file)")
    w, h = (int(v) for v in image.size)
    if w * h == 0 or not image.has_data and not _load(image):
        raise ParameterError(f"level.sample_image {image.name!r} has no pixels (is its file missing?)")
    if w * h > MAX_SAMPLE_PIXELS:
        raise ParameterError(
            f"level.sample_image {image.name!r} is {w} x {h} pixels; a sample has at most "
            f"{MAX_SAMPLE_PIXELS:,} pixels (e.g. 256 x 256): draw a small picture of the pattern"
        )
    channels = int(image.channels)
    px = np.empty(w * h * channels, np.float32)
    image.pixels.foreach_get(px)  # type: ignore[attr-defined]  # a float array, typed as a float
    px = px.reshape(h, w, channels)[::-1]
    if channels < 3:
        px = np.repeat(px[..., :1], 3, axis=2)
    keep = 4 if channels == 4 and int(image.depth) in (32, 128) else 3  # RGBA bytes or floats
    px = np.clip(px[..., :keep], 0.0, 1.0)
    colour_space = image.colorspace_settings.name  # type: ignore[union-attr]  # an image always has them
    if image.is_float and colour_space not in ("Non-Color", "Raw"):
        rgb = px[..., :3]
        px[..., :3] = np.where(rgb <= 0.0031308, rgb * 12.92, 1.055 * np.power(rgb, 1 / 2.4) - 0.055)
    return np.round(px * 255.0).astype(np.uint8)


def sample_file(image: bpy.types.Image) -> str:
    """The absolute path of a PNG file holding ``image``'s pixels (:func:`image_sample`): what a WFC
    (sample) level's ``sample`` names when its sample is an image of the .blend.  The file lives in a
    folder named after a hash of the pixels in the session's temporary folder, named after the
    image (the level's record shows it); made when missing, so a level saved in the .blend finds
    its sample again in a later session."""
    rgb = image_sample(image)
    digest = hashlib.sha256(np.ascontiguousarray(rgb).tobytes() + repr(rgb.shape).encode()).hexdigest()[:16]
    stem = re.sub(r"[^A-Za-z0-9_\-]+", "_", image.name).strip("_")[:48] or "sample"
    folder = os.path.join(bpy.app.tempdir or tempfile.gettempdir(), SAMPLES_FOLDER, digest)
    path = os.path.join(folder, f"{stem}.png")
    if not os.path.isfile(path):
        os.makedirs(folder, exist_ok=True)
        part = f"{path}.{os.getpid()}.part"
        with open(part, "wb") as f:
            f.write(core_preview.png_bytes(rgb))
        os.replace(part, path)
    return path


#: The folder (in the session's temporary folder) of the PNG files holding images' pixels.
SAMPLES_FOLDER = "worldseed_wfc_samples"

# a quoted path into SAMPLES_FOLDER, as core's messages show it (perhaps cut short: "... (95 characters)")
_SAMPLE_PATH = re.compile(
    r"""(['"])[^'"]*"""
    + SAMPLES_FOLDER
    + r"""[^'"]*?(?:\1|\.\.\. \(\d[\d,]* characters\))"""
    + r"|\S*"
    + SAMPLES_FOLDER
    + r"\S*?\.png"
)


def image_named(text: str, name: str, path: str | None = None) -> str:
    """``text`` with the temporary PNG of an image's pixels (:func:`sample_file`; ``path`` when known,
    also cut short as core's messages cut long values) shown as ``image '<name>'``: an artist knows the
    image of the .blend, not a file in a temporary folder.

    >>> image_named("level.sample '/tmp/b/worldseed_wfc_samples/ab12/Noise.png' gives 9 patterns", "Noise")
    "level.sample image 'Noise' gives 9 patterns"
    """
    shown = f"image {name!r}"
    if path:
        for form in (short(path), repr(path), path):
            text = text.replace(form, shown)
    return _SAMPLE_PATH.sub(lambda _: shown, text)


@contextlib.contextmanager
def naming_image(image: bpy.types.Image | None) -> Iterator[None]:
    """Errors (:class:`ParameterError`) raised inside name ``image`` (an image of the .blend, or None)
    instead of the temporary PNG of its pixels (:func:`image_named`)."""
    try:
        yield
    except ParameterError as err:
        if image is not None and err.args and isinstance(err.args[0], str):
            try:
                path = sample_file(image)
            except (ParameterError, OSError):
                path = None
            err.args = (image_named(err.args[0], image.name, path), *err.args[1:])
        raise


def _load(image: bpy.types.Image) -> bool:
    try:
        image.pixels[0]  # type: ignore[index]  # (a float array, typed as a float) loads the image's buffer
    except (IndexError, RuntimeError):
        return False
    return image.has_data


def tile_key(name: str) -> str:
    """``"Outer Corner.001"`` -> ``"outer_corner"``: tile names compared without case, separators or
    Blender's ``.001``.

    >>> tile_key("Outer Corner.001"), tile_key("outer-corner"), tile_key("T junction")
    ('outer_corner', 'outer_corner', 't_junction')
    """
    base = re.sub(r"\.\d{3,}$", "", name)
    return re.sub(r"[\s_\-]+", "_", base.strip()).lower()


def tile_modules(
    collection: bpy.types.Collection | None, names: Sequence[str]
) -> tuple[dict[str, bpy.types.Object], list[str]]:
    """``({base tile name: object}, [missing names])``: the objects of ``collection`` named after the
    base tiles ``names`` (see :func:`tile_key`; top-level mesh or empty objects, the first by name)."""
    if collection is None:
        raise ParameterError("tile_objects: choose a collection of objects named after the tiles")
    wanted = {tile_key(n): n for n in names}
    found = {}
    for obj in sorted(collection.all_objects, key=lambda o: o.name):
        key = tile_key(obj.name)
        if key in wanted and wanted[key] not in found and obj.parent is None and obj.type in ("MESH", "EMPTY"):
            found[wanted[key]] = obj
    return found, [n for n in names if n not in found]


class TilePlacements:
    """One row per placed WFC cell: ``cells`` (N, 2) (x, y), ``positions`` (N, 3) cell centres on the
    floor (from the level's south-west corner), ``rotations`` (N, 4) quaternions ``w, x, y, z``,
    ``scales`` (N,) (+1, or -1 for a mirrored variant), ``tiles`` (N,) index into ``names`` (the base tiles)."""

    def __init__(
        self,
        cells: npt.NDArray[np.int64],
        positions: npt.NDArray[np.float64],
        rotations: npt.NDArray[np.float32],
        scales: npt.NDArray[np.float32],
        tiles: npt.NDArray[np.int32],
        names: list[str],
    ) -> None:
        self.cells, self.positions, self.rotations = cells, positions, rotations
        self.scales, self.tiles, self.names = scales, tiles, names

    def __len__(self) -> int:
        return len(self.cells)


def tile_placements(record: WfcRecord, *, cell_size: float) -> TilePlacements:
    """Where and how each cell's base tile stands: :class:`TilePlacements` of every cell of a tiled
    :class:`core.levels.WfcRecord` (``ids`` (height, width) variant indices; per variant its
    ``base_names``, ``turns`` clockwise and ``mirrored``)."""
    ids = np.asarray(record.ids, np.int64)
    height, width = ids.shape
    names = list(dict.fromkeys(record.base_names))  # base tiles in tileset order
    base_of = np.array([names.index(t) for t in record.base_names], np.int32)
    ys, xs = np.divmod(np.arange(ids.size), width)
    flat = ids.ravel()
    positions = np.zeros((ids.size, 3))
    positions[:, 0] = (xs + 0.5) * cell_size
    positions[:, 1] = (height - ys - 0.5) * cell_size
    yaw = -np.asarray(record.turns, np.float64)[flat] * (np.pi / 2)  # clockwise seen from above
    mirrored = np.asarray(record.mirrored, bool)[flat]
    rot = instancing.yaw_quaternions(yaw)
    # a mirrored variant: turn(mirror_x) = turn . (-1) . rot_x(180°); q_z * q_x(180°) = (0, cos, sin, 0)
    half = yaw[mirrored] * 0.5
    rot[mirrored] = np.stack([np.zeros_like(half), np.cos(half), np.sin(half), np.zeros_like(half)], 1)
    scales = np.where(mirrored, -1.0, 1.0).astype(np.float32)
    cells = np.stack([xs, ys], 1)
    return TilePlacements(cells, positions, rot, scales, base_of[flat], names)


def _module_geometry(module: bpy.types.Object) -> bpy.types.Object:
    if module.type == "MESH":
        return module
    meshes = sorted((c for c in module.children if c.type == "MESH"), key=lambda o: o.name)
    return meshes[0] if meshes else module


def tiles_object(
    placed: TilePlacements, modules: Mapping[str, bpy.types.Object], name: str, made: list[bpy.types.Object]
) -> bpy.types.Object | None:
    """The point object (kind ``level_kit``) instancing ``modules`` ({base tile name: object}) on the
    placements whose tile has a module; ``None`` when no placed tile has one."""
    have = [t for t in placed.names if t in modules]
    index = np.full(len(placed.names), -1, np.int32)
    index[[placed.names.index(t) for t in have]] = np.arange(len(have))
    which = index[placed.tiles]
    keep = which >= 0
    if not keep.any():
        return None
    me = bpy.data.meshes.new(f"{name}_Tiles")
    obj = bpy.data.objects.new(f"{name}_Tiles", me)
    made.append(obj)
    obj[KIND_KEY] = LEVEL_KIT_KIND
    obj[KIT_ROLES_KEY] = [t.replace(" ", "_") for t in have]  # Make Real names: <Level>_<tile>_00042
    obj[KIT_MODULES_KEY] = [modules[t].name for t in have]
    tree = instancing.instancer_tree(f"Worldseed Tiles ({name})", [_module_geometry(modules[t]) for t in have])
    try:
        cast(bpy.types.NodesModifier, obj.modifiers.new("Worldseed Tiles", "NODES")).node_group = tree
        instancing.write_points(me, placed.positions[keep], placed.rotations[keep], placed.scales[keep], which[keep])
    except BaseException:
        bpy.data.node_groups.remove(tree)
        raise
    return obj


def cells_quads(
    quads: LevelQuads, cells: npt.NDArray[np.bool_], *, cell_size: float, height: int
) -> tuple[npt.NDArray[np.float32], PolygonTopology, npt.NDArray[np.float32], npt.NDArray[Any]]:
    """The part of a level mesh (``core.levels.LevelQuads``) that belongs to the cells where ``cells``
    ((height, width) bool) is set: each quad belongs to the cell just behind its centre (against
    its normal: a wall face to its wall cell, a floor to its own); returns ``(vertices, topology,
    corner_uvs, materials)`` for :func:`.mesh.mesh_from_topology`."""
    q = np.asarray(quads.quads)
    centre = quads.vertices[q].mean(axis=1) - quads.normals[q[:, 0]] * (0.25 * cell_size)
    x = np.clip(np.floor(centre[:, 0] / cell_size).astype(np.int64), 0, cells.shape[1] - 1)
    y = np.clip(height - 1 - np.floor(centre[:, 1] / cell_size).astype(np.int64), 0, cells.shape[0] - 1)
    keep = cells[y, x]
    kept = q[keep]
    used, inverse = np.unique(kept.ravel(), return_inverse=True)
    new = inverse.reshape(-1, 4).astype(np.int32)
    topology = core_mesh.polygon_topology(new)
    corner_uvs = quads.uvs[kept].reshape(-1, 2)
    return quads.vertices[used], topology, corner_uvs, np.asarray(quads.materials)[keep]
