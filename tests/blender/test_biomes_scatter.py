"""Scatter by biome and by the erosion maps in real Blender: the props of a layer that names
biomes stand in those biomes of the terrain's map; the Scatter panel's layers carry the rules."""

import bpy
import numpy as np
import pytest

from worldseed.core import recipe as core_recipe
from worldseed.core.errors import ParameterError
from worldseed.operators.bridge import sections, world

RECIPE = """
[world]
name = "Biomes"
seed = 21

[terrain]
resolution = 65
size = 256.0
height = 60.0
octaves = 5
scale = 120.0
sea_level = 0.2

[biomes]
enabled = true

[[scatter]]
name = "Woods"
prop = "rock"
radius = 3.0
biomes = ["forest", "rain forest", "taiga"]
above_sea = true
"""


def _points(obj):
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def test_props_of_a_biome_layer_stand_in_its_biomes(empty_scene):
    recipe = core_recipe.loads(RECIPE, source="test")
    built = world.build_world(recipe, scene=empty_scene)
    layers = built.layers[built.terrain.name]
    allowed = [layers.biome_names.index(n) for n in ("forest", "rain forest", "taiga")]
    inside = np.isin(layers.biomes, allowed)
    assert 0.05 < inside.mean() < 0.95  # the rule has work to do on this map
    points = _points(built.scatters[0])
    assert len(points) > 50
    n, cell = recipe.terrain.resolution, recipe.terrain.cell_size
    col = points[:, 0] / cell + (n - 1) / 2
    row = points[:, 1] / cell + (n - 1) / 2
    c0, r0 = np.clip(np.floor(col).astype(int), 0, n - 2), np.clip(np.floor(row).astype(int), 0, n - 2)
    near = inside[r0, c0] | inside[r0 + 1, c0] | inside[r0, c0 + 1] | inside[r0 + 1, c0 + 1]
    assert near.all(), f"{(~near).sum()} of {len(points)} props outside the layer's biomes"


def test_the_scatter_panel_carries_biome_weights_and_map_ranges(empty_scene):
    settings = bpy.context.scene.worldseed.scatter
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    layer = settings.layers[0]
    layer.biomes = "forest, grassland = 0.25"
    layer.flow = (5000.0, 1.0e9)
    spec = sections.adapter("scatter").layer_specs(settings)[0]
    assert spec.biomes == (("forest", 1.0), ("grassland", 0.25))
    assert spec.flow == (5000.0, 1.0e9)
    layer.biomes = "forest = 3"
    with pytest.raises(ParameterError) as info:
        sections.adapter("scatter").layer_specs(settings)
    message = str(info.value)  # one line naming the layer, the biome, the value and the range
    assert "scatter layer 1" in message and "forest" in message and "3" in message and "[0, 1]" in message
    assert "\n" not in message


def test_a_sidebar_scatter_deposits_rule_without_erosion_is_one_clear_report(empty_scene):
    """A scatter layer following deposits on a terrain that does not erode would place nothing, silently:
    one report naming the layer and the key instead, and no scatter built."""
    bpy.ops.worldseed.terrain_add(resolution=33, size=128.0, height=20.0, name="Flat", octaves=3, scale=60.0)
    settings = bpy.context.scene.worldseed.scatter
    bpy.ops.worldseed.scatter_layer_add(builtin="rock")
    settings.layers[0].deposits = (0.1, 5.0)
    objects = set(bpy.data.objects)
    with pytest.raises(RuntimeError) as info:
        bpy.ops.worldseed.scatter_add()
    message = str(info.value).strip().splitlines()
    assert len(message) == 1 and "deposits" in message[0] and "terrain.erosion.enabled" in message[0], message
    assert set(bpy.data.objects) == objects
    settings.layers[0].property_unset("deposits")  # the full range: no rule
    assert bpy.ops.worldseed.scatter_add() == {"FINISHED"}
