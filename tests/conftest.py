"""pytest set-up: the extension root as a package, without registering anything.

The repository root is the extension, so it is a package; pytest names it
after the checkout's folder when it collects core's doctests
(``pytest tests core --doctest-modules``: this file is loaded first), and as ``worldseed`` in the tests.
Both names get the package module without running the root ``__init__``
(which registers with Blender), so core and its doctests never import bpy;
Blender tests import ``worldseed.addon``, and the extension-install test runs
the real root ``__init__`` from the built zip.

A checkout folder that is no Python name (``worldseed-main``, ``ws.2``) is no
package to pytest: it imports the root ``__init__.py`` as the module
``__init__`` (given the same bare package) and core's modules as ``core.*``
(``core`` is made a real package, so their relative imports work).
"""

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _bare_package(name):
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)])
    sys.modules[name] = importlib.util.module_from_spec(spec)


def _top_level_core():
    if "core" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "core", ROOT / "core" / "__init__.py", submodule_search_locations=[str(ROOT / "core")]
    )
    sys.modules["core"] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_bare_package("worldseed")
if ROOT.name.isidentifier():
    _bare_package(ROOT.name)
else:
    _bare_package("__init__")
    _top_level_core()

# Hypothesis without wall-clock deadlines (its default is 200 ms per example, which a loaded
# machine misses: issue 21's test_curve_through_points_without_overshoot failed so); every test's
# own @settings inherits this profile.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("worldseed", deadline=None)
_hypothesis_settings.load_profile("worldseed")
