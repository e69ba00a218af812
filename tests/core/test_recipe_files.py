"""Every file a recipe names, on a bad day (issue 21): checked before it is read, and never quoted
from outside the recipe's folder.

Each path-typed key of every section (:data:`core.recipe.SECTIONS`, ``Section.paths``) and the
recipe itself are fed ``/dev/zero``, a FIFO, a folder, a huge file and a deeply nested TOML file: each
must be one line naming the key and the file, within a second (a FIFO must not hang, ``/dev/zero``
must not fill the memory).  A sample, tileset or biome table outside the recipe's folder (through
``..`` or a link, as ``/etc/passwd`` was) may fail, but its error shows nothing of its content.
"""

import os
import signal
import time

import numpy as np
import pytest

from core import recipe as core_recipe
from core.errors import ParameterError, RecipeError
from core.files import MAX_DEPTH, parse_toml, read_checked
from core.preview import png_bytes

#: Per path key: the recipe text around it (``{value}`` the file) and the suffixes it takes.
CONTEXT = {
    ("biomes", "table"): ("[terrain]\nresolution = 33\n[biomes]\nenabled = true\ntable = {value}\n", (".toml",)),
    ("splat", "texture"): ('[terrain]\nresolution = 33\n[[splat]]\nname = "a"\ntexture = {value}\n', (".png",)),
    ("level", "wfc_tileset"): (
        '[[level]]\nname = "A"\ngenerator = "wfc_tiled"\nwidth = 8\nheight = 8\nwfc_tileset = {value}\n',
        (".toml",),
    ),
    ("level", "sample"): (
        '[[level]]\nname = "A"\ngenerator = "wfc_overlapping"\nwidth = 8\nheight = 8\nsample = {value}\n',
        (".txt", ".png"),
    ),
}
#: How each key appears in an error: ``level[0].sample``.
SHOWN = {("biomes", "table"): "biomes.table", ("splat", "texture"): "splat[0].texture"}
DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"
BAD_FILES = ("zero", "fifo", "folder", "huge", "deep")


def path_keys():
    return {(section.key, key) for section in core_recipe.SECTIONS for key in section.paths}


def make_bad(folder, kind, suffix):
    """A bad file ``bad_<kind><suffix>`` in ``folder``; returns its name."""
    name = f"bad_{kind}{suffix}"
    path = folder / name
    if kind == "zero":
        os.symlink("/dev/zero", path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "huge":
        with open(path, "wb") as f:
            f.truncate(8 * 2**30)  # sparse: 8 GiB that take no disk
    else:
        path.write_text(DEEP)
    return name


class Hung(Exception):
    pass


def timed_error(call, seconds=5):
    """``(error, seconds taken)`` of ``call()``, which must raise a ParameterError; a hang ends after ``seconds``."""

    def alarm(signum, frame):
        raise Hung()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    start = time.perf_counter()
    try:
        call()
    except ParameterError as err:
        return err, time.perf_counter() - start
    except Hung:
        pytest.fail(f"hung for {seconds} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    pytest.fail("no error")


def test_every_path_key_of_every_section_is_covered_here():
    """A new path key must come with its context here, so the bad files below reach it."""
    assert path_keys() == set(CONTEXT)


@pytest.mark.parametrize("kind", BAD_FILES)
@pytest.mark.parametrize("key", sorted(CONTEXT))
def test_a_bad_file_at_any_path_key_is_one_line_naming_the_key_within_a_second(tmp_path, key, kind):
    template, suffixes = CONTEXT[key]
    for suffix in suffixes:
        name = make_bad(tmp_path, kind, suffix)
        recipe = tmp_path / "r.toml"
        recipe.write_text(template.format(value=f'"{name}"'))
        err, seconds = timed_error(lambda path=str(recipe): core_recipe.load(path))
        text = str(err)
        assert isinstance(err, RecipeError) and "\n" not in text and len(text) < 600, text
        shown = SHOWN.get(key, f"{key[0]}[0].{key[1]}")
        assert shown in text and name in text, text
        assert seconds < 1.0, (seconds, text)


@pytest.mark.parametrize("kind", BAD_FILES)
def test_a_bad_recipe_file_is_one_line_naming_it_within_a_second(tmp_path, kind):
    name = make_bad(tmp_path, kind, ".toml")
    err, seconds = timed_error(lambda: core_recipe.load(str(tmp_path / name)))
    text = str(err)
    assert isinstance(err, RecipeError) and "\n" not in text and name in text, text
    assert seconds < 1.0, (seconds, text)


def test_dotted_keys_and_table_headers_nest_too():
    with pytest.raises(ParameterError, match="nest too deeply"):
        parse_toml("a" + ".a" * 100 + " = 1\n", source="t.toml")
    with pytest.raises(ParameterError, match="nest too deeply"):
        parse_toml("[a" + ".a" * 100 + "]\n", source="t.toml")
    # brackets inside strings and comments are no nesting
    text = f'a = "{"[" * 100}"\nb = \'{"{" * 100}\'\n# {"[" * 100}\nc = """\n{"[" * 100}\n"""\n'
    assert parse_toml(text, source="t.toml")["a"] == "[" * 100
    ok = "a = " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n"
    assert parse_toml(ok, source="t.toml")["a"] is not None


def test_a_file_that_is_no_longer_regular_when_opened_is_refused(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text("a = 1\n")
    assert read_checked(path, name="t", limit=100) == b"a = 1\n"
    with pytest.raises(ParameterError, match=r"^t .*x\.toml has 6 bytes, more than the 5 allowed$"):
        read_checked(path, name="t", limit=5)


# ------------------------------------------------------------------------------------------------ disclosure

SECRET = "SECRET-root:x:0:0"
#: Per key and suffix: a file whose error would quote its content.
LEAKY = {
    ".txt": f"{SECRET}\n".encode(),
    ".png": f"{SECRET}".encode(),
    ".toml": f'{SECRET.replace("-", "_").replace(":", "_")} = "hunter2"\n'.encode(),
}


def _leaky_cases():
    for key, (_, suffixes) in sorted(CONTEXT.items()):
        for suffix in suffixes:
            if key != ("splat", "texture"):  # textures are confined to the folder (test_splat_paths.py)
                yield key, suffix


@pytest.mark.parametrize("how", ["link", "dotdot"])
@pytest.mark.parametrize(("key", "suffix"), list(_leaky_cases()))
def test_no_content_of_a_file_outside_the_recipes_folder_is_quoted(tmp_path, key, suffix, how):
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir(), outside.mkdir()
    (outside / f"secret{suffix}").write_bytes(LEAKY[suffix])
    if how == "link":
        os.symlink(outside / f"secret{suffix}", project / f"leak{suffix}")
        value = f"leak{suffix}"
    else:
        value = f"../outside/secret{suffix}"
    template, _ = CONTEXT[key]
    (project / "r.toml").write_text(template.format(value=f'"{value}"'))
    with pytest.raises(RecipeError) as err:
        core_recipe.load(str(project / "r.toml"))
    text = str(err.value)
    assert "SECRET" not in text and "hunter2" not in text, text
    assert SHOWN.get(key, f"{key[0]}[0].{key[1]}") in text and "outside the recipe's folder" in text, text
    # the same file beside the recipe: its error may show what is wrong with it
    (project / f"mine{suffix}").write_bytes(LEAKY[suffix])
    (project / "r.toml").write_text(template.format(value=f'"mine{suffix}"'))
    with pytest.raises(RecipeError) as err:
        core_recipe.load(str(project / "r.toml"))
    assert "outside the recipe's folder" not in str(err.value)


def test_a_png_error_never_quotes_the_files_bytes(tmp_path):
    from core.wfc import read_sample

    (tmp_path / "s.png").write_bytes(SECRET.encode())
    with pytest.raises(ParameterError) as err:
        read_sample(tmp_path / "s.png")
    assert "SECRET" not in str(err.value) and "no PNG signature" in str(err.value)


def test_shipped_presets_still_read():
    recipe = core_recipe.loads(
        "[terrain]\nresolution = 33\n[biomes]\nenabled = true\ntable = 'whittaker'\n"
        '[[level]]\nname = "A"\ngenerator = "wfc_overlapping"\nsample = "rooms"\nwidth = 8\nheight = 8\n'
    )
    assert recipe.biomes.table == "whittaker" and recipe.level[0].sample == "rooms"
    assert png_bytes(np.zeros((1, 1), np.uint8)).startswith(b"\x89PNG")
