"""Real Blender (the bpy module, 5.0.1 or an LTS line in `make test-compat`): register the add-on once,
reset the scene per test, and end the test process where the bpy module of 4.2 and 4.5 cannot."""

import atexit
import importlib

import bpy
import pytest

SESSIONS = []


def pytest_sessionfinish(session):
    """Keep the session for its final status (pytest_sessionstart would miss it: this file loads during
    collection in ``pytest tests core``)."""
    SESSIONS.append(session)


def _exit_with_the_session_status():
    """End the process with pytest's status through ``worldseed_run.exit_process``.

    bpy 4.2 segfaults and bpy 4.5 hangs for ever in C++ static destructors after
    Python has finalized, once a class was registered (see ``exit_process``).
    This runs first of Python's exit handlers (registered after bpy's, they run
    last in first out), when pytest has printed everything and returned its status.
    """
    if not SESSIONS or bpy.app.binary_path:
        return
    atexit.unregister(_exit_with_the_session_status)
    importlib.import_module("worldseed.worldseed_run").exit_process(int(SESSIONS[-1].exitstatus))


atexit.register(_exit_with_the_session_status)


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
