"""A 513 x 513 terrain with erosion, biomes and five texture layers, from a recipe to a finished Blender
object, against core working out the same heights and layers alone.

    .venv/bin/python bench/bench_erosion_blender.py

Ours: ``operators.bridge.terrain.build_terrain`` (noise, the layers on a worker thread with their
progress relayed, two LOD meshes on the eroded heights, the splat material with its packed images).
Anchor, in the same run: ``core.terrain.terrain_heights`` + ``core.terrain.terrain_layers`` alone
(no Blender).  Printed: both times, their ratio (the Blender side's cost on top of core's work), and
the longest the main thread went between two progress steps while the modal build ran (how long
Blender's UI would wait for the next timer event; Esc is read between steps).  Interleaved rounds,
the load printed; both sides must make the same eroded heights and the same packed splats.
"""

import importlib
import time

import _loader  # noqa: F401
import bpy
import numpy as np
from _loader import interleaved

from worldseed.core import recipe as core_recipe
from worldseed.core import terrain as core_terrain

RECIPE = """
[world]
name = "Bench"
seed = 3
[terrain]
resolution = 513
size = 1024.0
height = 160.0
scale = 400.0
octaves = 6
sea_level = 0.12
lods = 2
[terrain.erosion]
enabled = true
droplets_per_km2 = 200000.0
[biomes]
enabled = true
[[splat]]
name = "Grass"
[[splat]]
name = "Sand"
height_range = [0.0, 22.0]
[[splat]]
name = "Rock"
slope_range = [32.0, 90.0]
[[splat]]
name = "Snow"
biomes = ["snow", "tundra"]
[[splat]]
name = "Silt"
deposits = 1.0
"""
RUNS = 3


def main():
    importlib.import_module("worldseed.addon").register()
    from worldseed.operators.bridge import materials, terrain_layers
    from worldseed.operators.bridge import terrain as build

    recipe = core_recipe.loads(RECIPE, source="bench")

    def ours():
        return build.build_terrain(recipe, collection=bpy.context.scene.collection)

    def core_alone():
        heights = core_terrain.terrain_heights(recipe.terrain, seed=recipe.world.seed)
        return core_terrain.terrain_layers(
            heights, terrain_spec=recipe.terrain, biomes_spec=recipe.biomes, splats=recipe.splat, seed=3, flow=True
        )

    def clear():
        bpy.ops.wm.read_homefile(use_empty=True)
        terrain_layers.forget()

    def kept_ours(root):
        lod0 = next(c for c in root.children if c.name.endswith("_LOD0"))
        co = np.empty(len(lod0.data.vertices) * 3, np.float32)
        lod0.data.attributes["position"].data.foreach_get("vector", co)
        mat = lod0.data.materials[0]
        images = [materials.splat_pixels(n.image) for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"]
        return co[2::3].copy(), images

    def kept_core(layers):
        return layers.heights.metres.ravel(), list(layers.splats)

    race = interleaved(RUNS, ours, core_alone, setup=[clear, clear], keep=[kept_ours, kept_core])
    (z_ours, img_ours), (z_core, img_core) = race.results
    assert np.array_equal(z_ours, z_core), "the mesh is not on core's eroded heights"
    assert len(img_ours) == len(img_core) == 2 and all(np.array_equal(a, b) for a, b in zip(img_ours, img_core))

    # the modal build: the longest the main thread is busy between two steps
    clear()
    steps = build.terrain_steps(recipe, collection=bpy.context.scene.collection)
    gaps, labels, last = [], [], time.perf_counter()
    while True:
        try:
            _, _, label = next(steps)
        except StopIteration:
            break
        now = time.perf_counter()
        gaps.append((now - last, label))
        labels.append(label)
        last = now
    worst = max(gaps)
    ours_s, core_s = race.seconds
    print(
        f"{recipe.terrain.resolution}^2, {core_terrain.erosion_droplets(recipe.terrain):,} droplets, 5 layers "
        f"({race.load_text()}):"
    )
    print(f"  Blender build (worker + meshes + splat material): {ours_s:.2f} s")
    print(f"  core alone (heights + layers):                     {core_s:.2f} s")
    print(f"  ratio Blender / core: {ours_s / core_s:.2f}x")
    print(
        f"  modal build: {len(gaps)} steps, {labels.count('erosion')} of them erosion; "
        f"longest main-thread step {1000 * worst[0]:.0f} ms ({worst[1]})"
    )


if __name__ == "__main__":
    main()
