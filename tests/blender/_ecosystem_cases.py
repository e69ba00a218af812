"""Shared cases of the ecosystem's Blender tests: a small recipe with plants, animals, a trail texture
layer and a scatter, and readers of its files."""

import csv
import io
import json
import struct
import zlib

import numpy as np

SIDE = 33
#: A 64 m terrain with biomes, a texture layer on the trails, a birch wood and deer, rocks scattered after.
RECIPE = f"""
[world]
name = "Vale"
seed = 3
[terrain]
resolution = {SIDE}
size = 64.0
height = 20.0
[biomes]
enabled = true
[[splat]]
name = "Grass"
[[splat]]
name = "Trail"
trail = 1.0
[ecosystem]
years = 15
steps = 120
burn_in = 20
seed = 2
trampled = 0.6
[[ecosystem.species]]
name = "Birch"
tree = "broadleaf"
initial_density = 80.0
dispersal = 6.0
[[ecosystem.animals]]
name = "Deer"
count = 15
[[scatter]]
prop = "rock"
radius = 2.5
[export]
fbx = true
placements = true
heightmap_raw = true
"""


def write_recipe(folder, text=RECIPE):
    path = folder / "eco.toml"
    path.write_text(text)
    return str(path)


def plants_csv(path):
    """The rows of a plants CSV (header checked by the caller) as dicts."""
    with open(path, newline="") as f:
        return list(csv.DictReader(io.StringIO(f.read())))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def png_grey16(data):
    """The samples of a 16-bit grey PNG as Worldseed writes it (filter 0 rows), ``(rows, cols)`` uint16."""
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (depth, colour) == (16, 0), (depth, colour)
    pos, body = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        if data[pos + 4 : pos + 8] == b"IDAT":
            body += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(body), np.uint8).reshape(height, 1 + 2 * width)
    assert not raw[:, 0].any()  # filter 0 rows
    return raw[:, 1:].copy().view(">u2").astype(np.uint16)


#: A 2 x 1 tiled world of 64 m tiles with a pine wood (plants per tile) and the FBX (the prop library).
TILED = f"""
[world]
name = "Wold"
seed = 5
tiles = [2, 1]
[terrain]
resolution = {SIDE}
size = 64.0
height = 20.0
normalize = "fixed"
[ecosystem]
years = 10
seed = 1
[[ecosystem.species]]
name = "Pine"
tree = "conifer"
initial_density = 100.0
dispersal = 5.0
max_radius = 2.0
[export]
fbx = true
"""
#: TILED with animals roaming the whole world and a rock scatter keeping off their trampled trails
TILED_ANIMALS = TILED.replace("years = 10\n", "years = 10\nsteps = 80\nburn_in = 10\ntrampled = 0.3\n").replace(
    "[export]",
    """[[ecosystem.animals]]
name = "Deer"
eats = "plants"
count = 30
[[ecosystem.animals]]
name = "Wolf"
eats = ["Deer"]
count = 3
[[scatter]]
name = "Rocks"
prop = "rock"
radius = 3.0
[export]""",
)
