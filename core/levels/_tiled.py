"""A level as a Tiled map: TMX (orthogonal, CSV), generated TSX tilesets and their PNG images.

Files (``tiled_files`` returns them as ``{file name: bytes}``, to be written side by side)::

    <name>.tmx               the map: width x height tiles of tile_pixels, row 0 = top = north
    <name>_classes.tsx/.png  one tile per cell class id (tile k = class id k), property "class_name"
                             and "class_id"
    <name>.tsx, <name>_<set>.png
                             the map's auto-tile set, "blob" (47 tiles) or "wang16" (16 tiles); tile k has
                             the property "mask" (its neighbour mask, see core.levels._autotile) and
                             "tile" (k)
    <name>_wfc.tsx/.png      Wave Function Collapse levels only: one coloured tile per WFC id (tile k =
                             id k: a tile variant, or a sample value), properties "wfc_id", "name",
                             "class_id", "class_name", and "base_name", "turns", "mirrored" (tiles) or
                             "value" (sample); see wfc_tile_properties

Layers of the map, in order:

* ``classes`` (tile layer): every cell, the class tile of its class id (gid = firstgid + id), for
  users who auto-tile with Unity's RuleTile (or read the class from the tile's properties);
* ``autotile`` (tile layer): walkable cells get the tile of their mask of walkable neighbours (outside
  the map counts as wall; blob: ``BLOB_INDEX[mask]``, wang16: the 4-bit mask), wall cells stay empty;
* ``wfc`` (tile layer, WFC levels only, after ``autotile``): every cell, the tile of its WFC id;
* ``markers`` (object group): one point object per marker, name and type = its kind, at the centre of
  its cell in pixels, with the properties ``cell_x``, ``cell_y`` (int) and ``unity_x``, ``unity_y``,
  ``unity_z`` (float: the Unity position of the cell centre at floor level, as in the level FBX and
  the JSON record).

Map properties: ``cell_size`` (metres), ``pixels_per_unit`` (``tile_pixels / cell_size``: set it as
SuperTiled2Unity's Pixels Per Unit so one Unity unit is one metre), ``origin_x/y/z``, ``generator``,
``seed``, ``tileset``, ``classes`` (``name=id`` pairs).  The map is written in Tiled's 1.8 format
(objects carry ``type``), which Tiled 1.8 and later, pytmx and SuperTiled2Unity read.  The same level
and options give the same bytes.
"""

from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

import numpy as np
import numpy.typing as npt

from .._checks import check_choice, check_float, check_int
from ..errors import ParameterError
from ..preview import png_bytes
from ._autotile import BLOB_INDEX, BLOB_MASKS, NE, NW, SE, SW, E, N, S, W, blob_masks, wang16_masks
from ._level import CLASSES, Level, WfcRecord
from ._mesh import CELL_SIZE, check_level, check_origin
from ._picture import class_palette
from ._record import cell_centres, check_level_name, unity_points

__all__ = [
    "TILESETS",
    "TILE_PIXELS",
    "TILESET_COLUMNS",
    "tiled_files",
    "tile_images",
    "wfc_tile_images",
    "wfc_tile_properties",
]

#: Auto-tile sets: 8-neighbour blob (47 tiles) or 4-neighbour (16 tiles).
TILESETS = ("blob", "wang16")
#: Allowed tile side in pixels.
TILE_PIXELS = (4, 256)
#: Tiles per row of a tileset image.
TILESET_COLUMNS = 8
_TMX_VERSION = "1.8"
_TILED_VERSION = "1.8.6"
_ATTR = {'"': "&quot;"}

_FLOOR = np.array((206, 200, 184), np.uint8)
_WALL = np.array((38, 38, 46), np.uint8)


def _q(text: str) -> str:
    return escape(str(text), _ATTR)


def _f(value: float) -> str:
    return repr(float(value))


def _region_bits(tp: int) -> npt.NDArray[np.int64]:
    """(tp, tp) int: the neighbour bit each pixel of a tile shows (a 3 x 3 partition; 256 = the centre)."""
    band = max(1, tp // 4)
    part = np.where(np.arange(tp) < band, 0, np.where(np.arange(tp) >= tp - band, 2, 1))
    bits = np.array([[NW, N, NE], [W, 256, E], [SW, S, SE]])
    return bits[part[:, None], part[None, :]]


def tile_images(masks: npt.NDArray[np.integer[Any]], *, tile_pixels: int, wang: bool = False) -> npt.NDArray[np.uint8]:
    """(n, tp, tp, 3) uint8: auto-tiles drawn from their masks: floor colour over the centre and every
    set neighbour's band (edges and corners), wall colour elsewhere.  ``wang``: masks are N=1 E=2 S=4 W=8.
    """
    tp = tile_pixels
    region = _region_bits(tp)
    masks = np.asarray(masks, dtype=np.int64)
    if wang:  # 4-bit masks to 8-neighbour bits, corners drawn where both their edges are set
        m8 = (masks & 1) * N | ((masks >> 1) & 1) * E | ((masks >> 2) & 1) * S | ((masks >> 3) & 1) * W
        corners: int | npt.NDArray[np.int64] = 0
        for corner, a, b in ((NE, N, E), (SE, S, E), (SW, S, W), (NW, N, W)):
            corners = corners | np.where(((m8 & a) != 0) & ((m8 & b) != 0), corner, 0)
        masks = m8 | corners
    floor = ((masks[:, None, None] | 256) & region[None]) != 0
    return np.where(floor[..., None], _FLOOR, _WALL).astype(np.uint8)


def _sheet(tiles: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], int]:
    """Tiles (n, tp, tp, 3) laid out TILESET_COLUMNS a row (unused cells black); returns (image, columns)."""
    n, tp = tiles.shape[0], tiles.shape[1]
    cols = min(TILESET_COLUMNS, n)
    rows = -(-n // cols)
    sheet = np.zeros((rows * tp, cols * tp, 3), np.uint8)
    for k in range(n):
        r, c = divmod(k, cols)
        sheet[r * tp : (r + 1) * tp, c * tp : (c + 1) * tp] = tiles[k]
    return sheet, cols


def _tsx(
    name: str,
    image_file: str,
    sheet: npt.NDArray[np.uint8],
    columns: int,
    count: int,
    tp: int,
    properties: Sequence[Sequence[tuple[str, str, str]]],
) -> bytes:
    """TSX text of one tileset: its image and each tile's properties [(name, type, value), ...]."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<tileset version="{_TMX_VERSION}" tiledversion="{_TILED_VERSION}" name="{_q(name)}" '
        f'tilewidth="{tp}" tileheight="{tp}" tilecount="{count}" columns="{columns}">',
        f' <image source="{_q(image_file)}" width="{sheet.shape[1]}" height="{sheet.shape[0]}"/>',
    ]
    for k, props in enumerate(properties):
        lines.append(f' <tile id="{k}">')
        lines.append("  <properties>")
        for pname, ptype, value in props:
            lines.append(f'   <property name="{_q(pname)}" type="{ptype}" value="{_q(value)}"/>')
        lines.append("  </properties>")
        lines.append(" </tile>")
    lines.append("</tileset>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _csv(gids: npt.NDArray[np.integer[Any]]) -> str:
    """Tiled's CSV text of a (rows, cols) array of gids >= 0: rows joined by ",\\n", no trailing comma.

    Vectorised: every cell becomes its digits (left-aligned, zero-padded with NUL bytes) and its
    separator, and the NUL bytes are dropped.

    >>> _csv(np.array([[0, 12], [7, 105]]))
    '0,12,\\n7,105'
    """
    rows, cols = gids.shape
    if gids.size == 0:
        return ""
    top = int(gids.max())
    width = len(str(top))
    digits = np.zeros((top + 1, width + 2), np.uint8)
    for g in range(top + 1):
        text = str(g).encode("ascii")
        digits[g, : len(text)] = np.frombuffer(text, np.uint8)
    out = digits[gids.ravel()].reshape(rows, cols, width + 2)
    out[:, :, width] = ord(",")
    out[:, -1, width + 1] = ord("\n")
    out[-1, -1, width:] = 0
    flat = out.ravel()
    return flat[flat != 0].tobytes().decode("ascii")


def _hues(count: int) -> npt.NDArray[np.uint8]:
    """(count, 3) uint8 distinct colours (golden-ratio hues, full saturation, value 0.85)."""
    h = (np.arange(count) * 0.618033988749895) % 1.0
    k = (np.array([5.0, 3.0, 1.0])[None, :] + h[:, None] * 6.0) % 6.0
    rgb = 0.85 - 0.85 * 0.75 * np.clip(np.minimum(k, 4.0 - k), 0.0, 1.0)
    return np.round(rgb * 255).astype(np.uint8)


def wfc_tile_images(wfc: WfcRecord, *, tile_pixels: int) -> npt.NDArray[np.uint8]:
    """(n, tp, tp, 3) uint8: one tile per WFC id (``wfc`` a :class:`~._level.WfcRecord`).

    Overlapping: the sample colour of an image sample, or a distinct colour per value. Tiled: a colour
    per base tile, with a dark mark along the west half of the base tile's north edge, mirrored and
    turned as the variant is (variant = turn(mirror(base))), so every variant looks different.
    """
    tp = tile_pixels
    n = len(wfc.names)
    if wfc.model == "overlapping":
        pal = np.asarray(wfc.palette)
        colours = pal[:, :3].astype(np.uint8) if pal.ndim == 2 else _hues(n)
        tiles = np.empty((n, tp, tp, 3), np.uint8)
        tiles[:] = colours[:, None, None, :]
        return tiles
    bases = list(dict.fromkeys(wfc.base_names)) if wfc.base_names else list(wfc.names)
    colours = _hues(len(bases))
    band = max(1, tp // 6)
    tiles = np.empty((n, tp, tp, 3), np.uint8)
    for k in range(n):
        base = wfc.base_names[k] if wfc.base_names else wfc.names[k]
        colour = colours[bases.index(base)]
        tile = np.empty((tp, tp, 3), np.uint8)
        tile[:] = colour
        tile[:band, : max(1, tp // 2)] = (colour.astype(np.int64) * 3 // 10).astype(np.uint8)
        if wfc.mirrored and wfc.mirrored[k]:
            tile = tile[:, ::-1]
        turns = int(wfc.turns[k]) if wfc.turns else 0
        tiles[k] = np.rot90(tile, -turns)
    return tiles


def wfc_tile_properties(wfc: WfcRecord) -> list[list[tuple[str, str, str]]]:
    """Per WFC id, the TSX properties ``[(name, type, value), ...]``: ``wfc_id``, ``name``, ``class_id``,
    ``class_name``; tiled also ``base_name``, ``turns``, ``mirrored``; overlapping ``value``."""
    names = {v: k for k, v in CLASSES.items()}
    out = []
    for k, label in enumerate(wfc.names):
        cls = int(wfc.classes[k]) if k < len(wfc.classes) else 1
        props = [
            ("wfc_id", "int", str(k)),
            ("name", "string", str(label)),
            ("class_id", "int", str(cls)),
            ("class_name", "string", names.get(cls, f"class_{cls}")),
        ]
        if wfc.model == "overlapping":
            props.append(("value", "string", str(label)))
        else:
            if wfc.base_names:
                props.append(("base_name", "string", str(wfc.base_names[k])))
            if wfc.turns:
                props.append(("turns", "int", str(int(wfc.turns[k]))))
            if wfc.mirrored:
                props.append(("mirrored", "bool", "true" if wfc.mirrored[k] else "false"))
        out.append(props)
    return out


def tiled_files(
    level: Level,
    *,
    name: str,
    tileset: str = "blob",
    cell_size: float = 2.0,
    origin: Sequence[float] = (0.0, 0.0, 0.0),
    tile_pixels: int = 32,
) -> dict[str, bytes]:
    """The level as a Tiled map with its generated tilesets: ``{file name: bytes}``.

    Parameters
    ----------
    level : Level
    name : str
        Base name of the files (1 to 48 letters, digits, spaces, '-' or '_': never a path).
    tileset : {'blob', 'wang16'}, optional
        The auto-tile set of the ``autotile`` layer (a WFC level given another name, its WFC
        tileset's, gets "blob").
    cell_size : float, optional
        Metres per cell (a map property, and the Unity positions of the markers).
    origin : (3,) sequence of float, optional
        Blender position of the level's south-west floor corner.
    tile_pixels : int, optional
        Side of a tile in pixels, within :data:`TILE_PIXELS`.

    Returns
    -------
    files : dict of str -> bytes
        ``<name>.tmx``, ``<name>_classes.tsx``, ``<name>_classes.png``, ``<name>.tsx`` (the auto-tiles)
        and ``<name>_<tileset>.png``, in that order (see the module docstring); a WFC level (``level.wfc``)
        then ``<name>_wfc.tsx`` and ``<name>_wfc.png``.

    Examples
    --------
    >>> import numpy as np
    >>> from core.levels import Level
    >>> files = tiled_files(Level(grid=np.ones((2, 3), np.uint8)), name="Crypt")
    >>> list(files)
    ['Crypt.tmx', 'Crypt_classes.tsx', 'Crypt_classes.png', 'Crypt.tsx', 'Crypt_blob.png']
    """
    check_level(level)
    name = check_level_name(name)
    wfc = getattr(level, "wfc", None)
    if wfc is not None and tileset not in TILESETS:
        tileset = "blob"  # a WFC level's spec names its WFC tileset there (see core.levels.autotile_set)
    tileset = check_choice(tileset, name="tileset", choices=TILESETS)
    cs = check_float(cell_size, name="cell_size", bounds=CELL_SIZE)
    origin = check_origin(origin)
    tp = check_int(tile_pixels, name="tile_pixels", bounds=TILE_PIXELS)
    grid = level.grid
    height, width = grid.shape
    for m in level.markers:
        if not (0 <= int(m.x) < width and 0 <= int(m.y) < height):
            raise ParameterError(f"level.markers has {m!r} outside the {width} x {height} grid")

    # class tileset: one tile per id up to the largest used or named
    n_class = max([int(grid.max()) if grid.size else 0, *level.classes.values()]) + 1
    lut = class_palette(level.classes)
    names = {int(v): str(k) for k, v in level.classes.items()}
    class_tiles = np.empty((n_class, tp, tp, 3), np.uint8)
    class_tiles[:] = lut[:n_class, None, None, :]
    edge = (lut[:n_class].astype(np.int64) * 7 // 10).astype(np.uint8)
    for sl in (np.s_[:, 0, :], np.s_[:, -1, :], np.s_[:, :, 0], np.s_[:, :, -1]):
        class_tiles[sl] = edge[:, None, :]
    class_props = [
        [("class_name", "string", names.get(k, f"class_{k}")), ("class_id", "int", str(k))] for k in range(n_class)
    ]

    if wfc is not None and tuple(wfc.ids.shape) != grid.shape:
        raise ParameterError(f"level.wfc.ids must be {width} x {height} like the grid, got {wfc.ids.shape}")

    walk = grid != level.classes["wall"]
    if tileset == "blob":
        auto_masks = BLOB_MASKS.astype(np.int64)
        auto_tiles = tile_images(auto_masks, tile_pixels=tp)
        cell_tile = BLOB_INDEX[blob_masks(walk)]
    else:
        auto_masks = np.arange(16, dtype=np.int64)
        auto_tiles = tile_images(auto_masks, tile_pixels=tp, wang=True)
        cell_tile = wang16_masks(walk)
    auto_props = [[("mask", "int", str(int(m))), ("tile", "int", str(k))] for k, m in enumerate(auto_masks)]

    files = {}
    tmx_name = f"{name}.tmx"
    sets = []
    first = 1
    kinds = [("classes", class_tiles, class_props), (tileset, auto_tiles, auto_props)]
    if wfc is not None:
        kinds.append(("wfc", wfc_tile_images(wfc, tile_pixels=tp), wfc_tile_properties(wfc)))
    for label, tiles, props in kinds:
        sheet, columns = _sheet(tiles)
        # the auto-tiles are the map's own tileset, <name>.tsx; the class tiles <name>_classes.tsx
        tsx = f"{name}.tsx" if label == tileset else f"{name}_{label}.tsx"
        png = f"{name}_{label}.png"
        tsx_data = _tsx(f"{name} {label}", png, sheet, columns, len(tiles), tp, props)
        sets.append((first, tsx, tsx_data, png, png_bytes(sheet)))
        first += len(tiles)

    class_gids = grid.astype(np.int64) + sets[0][0]
    auto_gids = np.where(walk, cell_tile.astype(np.int64) + sets[1][0], 0)
    layers = [(1, "classes", class_gids), (2, "autotile", auto_gids)]
    if wfc is not None:
        ids = np.asarray(wfc.ids, dtype=np.int64)
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= len(wfc.names)):
            raise ParameterError(f"level.wfc.ids must index its {len(wfc.names)} names")
        layers.append((4, "wfc", ids + sets[2][0]))

    centres = cell_centres(
        [int(m.x) for m in level.markers], [int(m.y) for m in level.markers], height=height, cell_size=cs, origin=origin
    )
    unity = unity_points(centres)
    classes_text = ",".join(f"{k}={int(v)}" for k, v in sorted(level.classes.items(), key=lambda kv: kv[1]))
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<map version="{_TMX_VERSION}" tiledversion="{_TILED_VERSION}" orientation="orthogonal" '
        f'renderorder="right-down" width="{width}" height="{height}" tilewidth="{tp}" tileheight="{tp}" '
        f'infinite="0" nextlayerid="{4 if wfc is None else 5}" nextobjectid="{len(level.markers) + 1}">',
        " <properties>",
        f'  <property name="cell_size" type="float" value="{_f(cs)}"/>',
        f'  <property name="classes" value="{_q(classes_text)}"/>',
        f'  <property name="generator" value="{_q(level.generator)}"/>',
        f'  <property name="origin_x" type="float" value="{_f(origin[0])}"/>',
        f'  <property name="origin_y" type="float" value="{_f(origin[1])}"/>',
        f'  <property name="origin_z" type="float" value="{_f(origin[2])}"/>',
        f'  <property name="pixels_per_unit" type="float" value="{_f(tp / cs)}"/>',
        f'  <property name="seed" type="int" value="{int(level.seed)}"/>',
        f'  <property name="tileset" value="{_q(tileset)}"/>',
        " </properties>",
    ]
    for firstgid, tsx, *_ in sets:
        lines.append(f' <tileset firstgid="{firstgid}" source="{_q(tsx)}"/>')
    for layer_id, layer_name, gids in layers:
        lines.append(f' <layer id="{layer_id}" name="{layer_name}" width="{width}" height="{height}">')
        lines.append('  <data encoding="csv">')
        lines.append(_csv(gids))
        lines.append("</data>")
        lines.append(" </layer>")
    lines.append(' <objectgroup id="3" name="markers">')
    for k, m in enumerate(level.markers):
        x, y = int(m.x), int(m.y)
        ux, uy, uz = (float(v) for v in unity[k])
        lines += [
            f'  <object id="{k + 1}" name="{_q(m.kind)}" type="{_q(m.kind)}" '
            f'x="{_f((x + 0.5) * tp)}" y="{_f((y + 0.5) * tp)}">',
            "   <properties>",
            f'    <property name="cell_x" type="int" value="{x}"/>',
            f'    <property name="cell_y" type="int" value="{y}"/>',
            f'    <property name="unity_x" type="float" value="{_f(ux)}"/>',
            f'    <property name="unity_y" type="float" value="{_f(uy)}"/>',
            f'    <property name="unity_z" type="float" value="{_f(uz)}"/>',
            "   </properties>",
            "   <point/>",
            "  </object>",
        ]
    lines.append(" </objectgroup>")
    lines.append("</map>")
    files[tmx_name] = ("\n".join(lines) + "\n").encode("utf-8")
    for _, tsx, tsx_data, png, png_data in sets:
        files[tsx] = tsx_data
        files[png] = png_data
    return files
