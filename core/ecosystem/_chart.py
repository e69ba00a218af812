"""The population chart: lines per species drawn in numpy (no plotting library), as RGB8.

One panel per series set (the plants over years, the animals over steps), stacked; each panel has a
frame, light grid lines at quarters and one line per species in a colour of :data:`COLOURS`, and a
legend of colour swatches in its top-left corner (the names are in the JSON, in the same order).
Every pixel is set by ``+ - * /`` and rounding, so the picture is the same bytes on any machine.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["chart_image", "COLOURS", "WIDTH", "PANEL_HEIGHT"]

WIDTH = 640
PANEL_HEIGHT = 240
_MARGIN = 12
#: Line colours, in species order (repeating): Tableau 10.
COLOURS = np.array(
    [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ],
    np.uint8,
)


def _segments(
    img: npt.NDArray[np.uint8],
    xs: npt.NDArray[np.float64],
    ys: npt.NDArray[np.float64],
    colour: npt.NDArray[np.uint8],
    thick: int = 2,
) -> None:
    """Draw the polyline through pixel centres ``(xs, ys)`` (float arrays) into ``img``."""
    if len(xs) == 1:
        xs, ys = np.repeat(xs, 2), np.repeat(ys, 2)
    x0, y0, x1, y1 = xs[:-1], ys[:-1], xs[1:], ys[1:]
    steps = np.maximum(np.ceil(np.maximum(np.abs(x1 - x0), np.abs(y1 - y0))), 1).astype(np.int64) + 1
    seg = np.repeat(np.arange(len(x0)), steps)
    t = (np.arange(int(steps.sum())) - np.repeat(np.cumsum(steps) - steps, steps)) / np.repeat(steps - 1, steps)
    px = np.rint(x0[seg] + (x1[seg] - x0[seg]) * t).astype(np.int64)
    py = np.rint(y0[seg] + (y1[seg] - y0[seg]) * t).astype(np.int64)
    h, w = img.shape[:2]
    for dy in range(thick):
        for dx in range(thick):
            qx, qy = np.clip(px + dx, 0, w - 1), np.clip(py + dy, 0, h - 1)
            img[qy, qx] = colour


def _panel(series: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """One panel (PANEL_HEIGHT, WIDTH, 3) of ``series`` ((T, S) numbers: S lines over T points)."""
    img = np.full((PANEL_HEIGHT, WIDTH, 3), 255, np.uint8)
    left, right = _MARGIN, WIDTH - _MARGIN - 1
    top, bottom = _MARGIN + 10, PANEL_HEIGHT - _MARGIN - 1
    for q in range(1, 4):  # grid lines at quarters
        y = bottom - (bottom - top) * q // 4
        img[y, left:right] = 225
        x = left + (right - left) * q // 4
        img[top:bottom, x] = 225
    img[top, left : right + 1] = img[bottom, left : right + 1] = 90
    img[top : bottom + 1, left] = img[top : bottom + 1, right] = 90
    values = np.asarray(series, np.float64)
    if values.ndim != 2 or not values.size:
        return img
    t, s = values.shape
    peak = float(values.max())
    scale = (bottom - top - 2) / peak if peak > 0 else 0.0
    xs = left + 1 + (right - left - 2) * (np.arange(t) / max(t - 1, 1))
    for k in range(s):
        ys = bottom - 1 - values[:, k] * scale
        _segments(img, xs, ys, COLOURS[k % len(COLOURS)])
        sx = left + 4 + 14 * k  # legend swatch
        img[_MARGIN - 6 : _MARGIN + 4, sx : sx + 10] = COLOURS[k % len(COLOURS)]
    return img


def chart_image(*series: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Panels stacked top to bottom, one per ``(T, S)`` array: ``(n * PANEL_HEIGHT, WIDTH, 3)`` uint8.

    >>> chart_image(np.array([[1, 2], [3, 1], [2, 2]])).shape
    (240, 640, 3)
    """
    return np.concatenate([_panel(s) for s in series], axis=0)
