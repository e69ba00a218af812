"""pytest set-up: the extension root as a package, without registering anything.

The repository root is the extension, so it is a package; pytest names it
after the checkout's folder when it collects core's doctests
(``pytest tests core --doctest-modules``: this file is loaded first), and as ``worldseed`` in the tests.
Both names get the package module without running the root ``__init__``
(which registers with Blender), so core and its doctests never import bpy;
Blender tests import ``worldseed.addon``, and the extension-install test runs
the real root ``__init__`` from the built zip.
"""
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _bare_package(name):
    if name in sys.modules or not name.isidentifier():
        return
    spec = importlib.util.spec_from_file_location(name, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)])
    sys.modules[name] = importlib.util.module_from_spec(spec)


_bare_package("worldseed")
_bare_package(ROOT.name)
