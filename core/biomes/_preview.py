"""The biome map as a picture: each biome in its table colour, north at the top."""

import numpy as np
import numpy.typing as npt

from .._checks import check_array
from ..errors import ParameterError
from ..preview import png_bytes
from ._table import BiomeTable

__all__ = ["biome_colours", "biome_preview", "biome_png_bytes"]


def biome_colours(table: BiomeTable) -> npt.NDArray[np.uint8]:
    """(n, 3) uint8 sRGB colours of the table's biomes, in id order (``round(255 * color)``)."""
    if not isinstance(table, BiomeTable):
        raise ParameterError(f"table must be a BiomeTable (core.biomes.load_table), got {type(table).__name__}")
    return np.clip(np.round(table.colors * 255.0), 0, 255).astype(np.uint8)


def biome_preview(ids: npt.ArrayLike, table: BiomeTable) -> npt.NDArray[np.uint8]:
    """RGB uint8 (rows, cols, 3) picture of biome ids, row 0 of the map (south) at the bottom.

    Parameters
    ----------
    ids : (rows, cols) array_like of int
        Biome ids (:func:`core.biomes.classify`), each below ``len(table.names)``.
    table : BiomeTable

    Returns
    -------
    image : (rows, cols, 3) uint8 ndarray
        Rows run north to south, as pictures do (and as :func:`core.preview.shaded_relief`).
    """
    colours = biome_colours(table)
    a = check_array(ids, name="ids", ndim=2, dtype_kind="ui")
    if a.size and (int(a.min()) < 0 or int(a.max()) >= len(colours)):
        raise ParameterError(f"ids must lie in [0, {len(colours) - 1}] (the biomes of {table.name!r})")
    return colours[a[::-1]]


def biome_png_bytes(ids: npt.ArrayLike, table: BiomeTable) -> bytes:
    """:func:`biome_preview` as PNG bytes (north at the top; the Unity package's
    ``<name>_biomes.png`` is written in Unity's axes by ``core.unity_package``)."""
    return png_bytes(biome_preview(ids, table))
