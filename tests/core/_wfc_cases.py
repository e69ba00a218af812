"""Shared set-up of the WFC tests: level specs and a PNG sample for the core.levels WFC tests
(test_levels_wfc*.py), hand-made waves, tilesets and independent connectivity checks for the
global-constraint tests (test_wfc_constraints*.py)."""

from pathlib import Path

import numpy as np

from core.levels import from_dict, label_regions
from core.preview import png_bytes

# ---------------------------------------------------------------- core.levels on WFC


def tiled_spec(**kw):
    return from_dict({"generator": "wfc_tiled", "wfc_tileset": "dungeon", "width": 24, "height": 16, "seed": 2, **kw})


def sample_png(path):
    """A 12 x 12 RGB sample: dark walls around light rooms, one red door cell; written as PNG."""
    img = np.zeros((12, 12, 3), np.uint8)
    img[:] = (20, 20, 30)
    img[2:6, 2:10] = (230, 220, 200)
    img[7:11, 2:10] = (230, 220, 200)
    img[6, 5] = (200, 0, 0)
    path.write_bytes(png_bytes(img))
    return img


# ---------------------------------------------------------------- global constraints

PRESETS = Path(__file__).resolve().parents[2] / "presets" / "wfc"

WALK = np.array([True, False])  # pattern 0 walkable, pattern 1 not
W, X, B = [1, 0], [0, 1], [1, 1]  # rows: surely walkable, surely not, both possible


def assert_pairs_allowed(tiles, compatible, periodic):
    assert compatible[0][tiles[:, :-1], tiles[:, 1:]].all()
    assert compatible[1][tiles[:-1], tiles[1:]].all()
    if periodic:
        assert compatible[0][tiles[:, -1], tiles[:, 0]].all()
        assert compatible[1][tiles[-1], tiles[0]].all()


def wave_of(*rows):
    return np.array(rows, bool)


def changes(result):
    if result is None:
        return None
    cells, rows = result
    return dict(zip(cells.tolist(), rows.astype(int).tolist()))


# rock and floor may sit anywhere: an unconstrained output is a random speckle of floor islands
SPECKLE = """
[[tile]]
name = "rock"
class = "wall"
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "floor"
class = "floor"
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "chest"
class = "floor"
weight = 0.1
sockets = { north = "a", east = "a", south = "a", west = "a" }
[[tile]]
name = "door"
symmetry = "T"
class = "door"
weight = 0.2
sockets = { north = "a", east = "a", south = "a", west = "a" }
"""


def regions(walkable):
    """Number of 4-connected regions, by core.levels' own labeller (not the constraint's)."""
    return label_regions(walkable)[1]


def torus_connected(walk):
    """A flood fill on the torus from one walkable cell reaches them all (independent of the constraint)."""
    h, w = walk.shape
    if not walk.any():
        return True
    start = tuple(np.argwhere(walk)[0])
    seen, stack = {start}, [start]
    while stack:
        y, x = stack.pop()
        for ny, nx in (((y + 1) % h, x), ((y - 1) % h, x), (y, (x + 1) % w), (y, (x - 1) % w)):
            if walk[ny, nx] and (ny, nx) not in seen:
                seen.add((ny, nx))
                stack.append((ny, nx))
    return len(seen) == walk.sum()


ROOMS = PRESETS / "samples" / "rooms.txt"  # walls 1 (the border), floors 0, doors 2
