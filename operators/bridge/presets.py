"""Terrain presets: recipe files (TOML), built in or saved by the user.

A preset is a recipe, usually with just a ``[terrain]`` section; the keys it
leaves out take the recipe defaults. Built-in presets ship in the extension's
``presets/terrain`` folder; user presets live in the extension's user folder
(``bpy.utils.extension_path_user``), which survives updates, or in Blender's
user config folder when the add-on is not installed as an extension.
"""

import os
import re

import bpy

from ...core import recipe as core_recipe
from ...core.errors import RecipeError, short
from ...core.recipe import Recipe

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILTIN_DIR = os.path.join(_ROOT, "presets", "terrain")
_PACKAGE = __package__.rsplit(".", 2)[0]  # the extension root: bl_ext.<repo>.worldseed
_NAME_OK = re.compile(r"^[A-Za-z0-9 _\-]{1,48}$")


def user_dir(create: bool = False) -> str:
    """Folder of the user's terrain presets."""
    try:
        return bpy.utils.extension_path_user(_PACKAGE, path=os.path.join("presets", "terrain"), create=create)
    except ValueError:  # not installed as an extension (development checkout)
        path = os.path.join(bpy.utils.user_resource("CONFIG"), "worldseed", "presets", "terrain")
        if create:
            os.makedirs(path, exist_ok=True)
        return path


def file_name(name: str) -> str:
    """``"Alpine Mountains"`` -> ``"alpine_mountains.toml"``."""
    return name.strip().lower().replace(" ", "_").replace("-", "_") + ".toml"


def display_name(path: str) -> str:
    """``".../alpine_mountains.toml"`` -> ``"Alpine Mountains"``."""
    return os.path.splitext(os.path.basename(path))[0].replace("_", " ").title()


def _listing(folder: str) -> list[str]:
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".toml"))


def builtin_presets() -> list[str]:
    """Paths of the built-in presets, sorted by name."""
    return _listing(BUILTIN_DIR)


def user_presets() -> list[str]:
    """Paths of the user's presets, sorted by name."""
    return _listing(user_dir())


def find(name: str) -> str:
    """Path of the preset called ``name`` (user presets shadow built-in ones)."""
    for path in user_presets() + builtin_presets():
        if display_name(path) == name or os.path.basename(path) == file_name(name):
            return path
    known = ", ".join(display_name(p) for p in builtin_presets() + user_presets())
    raise RecipeError(f"preset {short(name)} not found; known presets: {known}")


def load(name: str) -> Recipe:
    """The recipe of the preset called ``name``."""
    return core_recipe.load(find(name))


def check_name(name: object) -> str:
    """A preset name: 1 to 48 letters, digits, spaces, '-' or '_' (so its file stays in the presets folder)."""
    if not isinstance(name, str) or not name.strip() or not _NAME_OK.match(name.strip()):
        raise RecipeError(f"preset name must be 1 to 48 letters, digits, spaces, '-' or '_', got {short(name)}")
    return name.strip()


def save(name: str, recipe: Recipe) -> str:
    """Save ``recipe``'s terrain section as the user preset ``name``; returns its path."""
    name = check_name(name)
    builtin = {os.path.basename(p) for p in builtin_presets()}
    if file_name(name) in builtin:
        raise RecipeError(f"preset name {short(name)} is taken by a built-in preset; choose another name")
    text = core_recipe.dumps(core_recipe.Recipe(terrain=recipe.terrain))
    path = os.path.join(user_dir(create=True), file_name(name))
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def remove(name: str) -> None:
    """Delete the user preset ``name`` (built-in presets cannot be removed)."""
    path = os.path.join(user_dir(), file_name(check_name(name)))
    if not os.path.isfile(path):
        raise RecipeError(f"user preset {short(name)} not found (built-in presets cannot be removed)")
    os.remove(path)
