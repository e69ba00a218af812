"""Splat images: layer weights packed four to an RGBA8 image, every pixel summing to exactly 255."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import check_array
from ..errors import ParameterError
from ..preview import png_bytes
from ._limits import MAX_LAYERS

__all__ = ["pack_splats", "unpack_splats", "splat_png_bytes", "CHANNELS", "PACK_ROWS"]

#: Channels of one splat image, in layer order.
CHANNELS = ("R", "G", "B", "A")
#: Rows packed at a time (bounds the temporaries: 8 layers x 256 x 4097 x 8 bytes = 67 MB in float64).
PACK_ROWS = 256


def _round_rows(w: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.uint8]:
    """Largest-remainder rounding of (L, r, c) weights to integers summing to 255 per pixel."""
    total = w.sum(axis=0)
    empty = total <= 0.0
    if empty.any():
        w = w.copy()
        w[0][empty] = 1.0  # nothing claimed: the ground layer takes it all
        total = np.where(empty, total.dtype.type(1.0), total)
    scaled = w / total
    scaled *= 255.0
    whole = np.floor(scaled)
    frac = scaled - whole
    short_by = 255 - whole.sum(axis=0)  # integer-valued, 0 .. L - 1
    layers = w.shape[0]
    for i in range(layers):
        # rank of layer i: layers with a larger remainder, or an equal one and a lower index, go first
        rank = np.zeros(frac.shape[1:], dtype=np.uint8)
        fi = frac[i]
        for k in range(layers):
            if k < i:
                rank += frac[k] >= fi
            elif k > i:
                rank += frac[k] > fi
        whole[i] += rank < short_by
    return whole.astype(np.uint8)


def pack_splats(weights: npt.ArrayLike) -> list[npt.NDArray[np.uint8]]:
    """Pack layer weights into RGBA8 splat images whose channels sum to exactly 255 per pixel.

    Parameters
    ----------
    weights : (L, rows, cols) array_like of float
        Non-negative weights of ``L`` (1 to ``MAX_LAYERS``) layers, e.g.
        :func:`core.splat.splat_weights`. Each pixel is normalised by its sum first (a pixel with
        all weights 0 goes wholly to layer 0).

    Returns
    -------
    images : list of (rows, cols, 4) uint8 ndarray
        ``ceil(L / 4)`` images: layer ``k`` is channel ``k % 4`` (R, G, B, A) of image ``k // 4``;
        the channels past the last layer are 0. Row 0 is the terrain's row 0 (the smallest Y). Values are linear
        (no sRGB curve): Unity's alphamaps and Blender's Non-Color images read them as they are.

    Notes
    -----
    Largest-remainder (Hamilton) rounding of ``255 w / sum(w)``: every layer gets the floor of its
    share, and the pixel's missing units go one each to the layers with the largest remainders,
    ties to the lower layer index. So the sum over ALL channels of ALL images is 255 at every
    pixel, each value is within 1 of its exact share, and the result is the same on any machine.

    Examples
    --------
    >>> w = np.array([[[1 / 3]], [[1 / 3]], [[1 / 3]], [[0.0]], [[0.0]]])
    >>> [img[0, 0].tolist() for img in pack_splats(w)]
    [[85, 85, 85, 0], [0, 0, 0, 0]]
    >>> [img[0, 0].tolist() for img in pack_splats(np.array([[[0.5]], [[0.5]], [[0.0]]]))]
    [[128, 127, 0, 0]]
    """
    w = check_array(weights, name="weights", ndim=3)
    layers, rows, cols = w.shape
    if not 1 <= layers <= MAX_LAYERS:
        raise ParameterError(f"weights must hold 1 to {MAX_LAYERS} layers, got {layers}")
    if w.size and float(w.min()) < 0.0:
        raise ParameterError(f"weights must not be negative, got a minimum of {float(w.min()):g}")
    # float32 weights (splat_weights') are rounded in float32, others in float64; the sums are exact
    # either way (whole numbers), only which remainder is largest could differ in the last bit.
    work = np.float32 if w.dtype == np.float32 and (not w.size or float(w.max()) < 1.0e30) else np.float64
    planes = np.zeros((-(-layers // 4) * 4, rows, cols), dtype=np.uint8)  # image * 4 + channel = layer
    for r0 in range(0, rows, PACK_ROWS):
        r1 = min(rows, r0 + PACK_ROWS)
        planes[:layers, r0:r1] = _round_rows(w[:, r0:r1].astype(work))
    planes = planes.reshape(-1, 4, rows, cols)
    return [np.ascontiguousarray(p.transpose(1, 2, 0)) for p in planes]


def unpack_splats(images: Sequence[npt.ArrayLike], layers: int) -> npt.NDArray[np.float32]:
    """The (layers, rows, cols) float32 weights in [0, 1] that splat images hold (value / 255).

    >>> w = np.random.default_rng(1).random((5, 3, 4))
    >>> back = unpack_splats(pack_splats(w), 5)
    >>> bool(np.abs(back - w / w.sum(axis=0)).max() <= 1 / 255)
    True
    """
    stack = np.stack([check_array(im, name="images", ndim=3, dtype_kind="u") for im in images])
    if stack.shape[-1] != 4 or not 1 <= layers <= 4 * stack.shape[0]:
        raise ParameterError(f"images must be (rows, cols, 4) and hold {layers} layers, got {stack.shape}")
    return (stack.transpose(0, 3, 1, 2).reshape(-1, *stack.shape[1:3])[:layers] / np.float32(255.0)).astype(np.float32)


def splat_png_bytes(image: npt.ArrayLike) -> bytes:
    """One splat image as RGBA PNG bytes to look at: the terrain's row 0 (the smallest Y, south) at
    the bottom, north at the top, as :func:`core.preview.shaded_relief` draws maps.

    8 bits per channel, no colour profile (linear values). The Unity package's
    ``<name>_splat<k>.png`` files are written in Unity's axes by ``core.unity_package``.
    """
    img = check_array(image, name="image", ndim=3, dtype_kind="u")
    if img.dtype != np.uint8 or img.shape[2] != 4:
        raise ParameterError(f"image must be a (rows, cols, 4) uint8 splat image, got {img.dtype} {img.shape}")
    return png_bytes(np.ascontiguousarray(img[::-1]))
