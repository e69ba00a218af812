"""The small tiled world "Isle" of the headless world tests (``worldseed_run.py`` runs), as recipe text.

Seed 13, two texture layers (Grass; Rock from 25 degrees), a rock scatter and an FBX per tile; each
test names what it changes.  (tests/core/_world_cases.py has the core tests' worlds.)
"""


def isle(
    *,
    tiles=(2, 2),
    resolution=33,
    size=128.0,
    height=40.0,
    falloff="",
    droplets=None,
    variants=None,
    rocks=8.0,
    export="",
):
    """Recipe text: ``falloff`` is extra ``[terrain]`` lines, ``droplets`` turns on erosion with that
    many droplets per km^2, ``variants``/``rocks`` the rock scatter's, ``export`` extra ``[export]`` lines."""
    erosion = "" if droplets is None else f"[terrain.erosion]\nenabled = true\ndroplets_per_km2 = {droplets}\n\n"
    variants = "" if variants is None else f"variants = {variants}\n"
    return f"""
[world]
name = "Isle"
seed = 13
tiles = [{tiles[0]}, {tiles[1]}]

[terrain]
resolution = {resolution}
size = {size}
height = {height}
normalize = "fixed"
{falloff}
{erosion}[[splat]]
name = "Grass"
color = [0.1, 0.3, 0.1]

[[splat]]
name = "Rock"
color = [0.4, 0.4, 0.4]
slope_range = [25.0, 90.0]

[[scatter]]
name = "Rocks"
prop = "rock"
{variants}radius = {rocks}

[export]
fbx = true
{export}
"""
