"""Make the repository (the extension root) importable as the package ``worldseed``.

The package module is created without running the root ``__init__`` so that
``tests/core`` never imports bpy; Blender tests import ``worldseed.addon``
(which is all the root ``__init__`` does), and the extension-install test runs
the real root ``__init__`` from the built zip.
"""
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _install_package_alias():
    if "worldseed" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "worldseed", ROOT / "__init__.py", submodule_search_locations=[str(ROOT)])
    sys.modules["worldseed"] = importlib.util.module_from_spec(spec)


_install_package_alias()
