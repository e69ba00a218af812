"""Real Blender (the bpy 5.0.1 module): register the add-on once, reset the scene per test."""

import importlib

import bpy
import pytest


@pytest.fixture(scope="session")
def addon():
    """The registered add-on package (``worldseed.addon``)."""
    module = importlib.import_module("worldseed.addon")
    if not hasattr(bpy.types.Scene, "worldseed"):
        module.register()
    yield module


@pytest.fixture(autouse=True)
def empty_scene(addon):
    """Each test starts from an empty scene, as databpy's tests do."""
    bpy.ops.wm.read_homefile(use_empty=True)
    yield bpy.context.scene


@pytest.fixture
def small_recipe():
    from worldseed.core import recipe

    return recipe.loads(
        """
[world]
name = "Tile"
seed = 11
[terrain]
resolution = 33
size = 64.0
height = 10.0
scale = 40.0
octaves = 4
""",
        source="test recipe",
    )
