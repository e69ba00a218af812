"""Write docs/recipe.md, the recipe-key reference, from the code: ``core.recipe.SECTIONS`` and each section's
limits table (every key, its type, range, unit, default and description).

    python tools/recipe_reference.py            # write docs/recipe.md
    python tools/recipe_reference.py --check    # exit 1 when docs/recipe.md is not what the code says

``tests/core/test_recipe_reference.py`` fails when the page is stale or a key has no description.
"""

import argparse
import dataclasses
import importlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "recipe.md"

#: How each kind of limit reads in the Type column.
TYPES = {
    "int": "integer",
    "float": "number",
    "choice": "choice",
    "bool": "true / false",
    "text": "text",
    "name": "name",
    "range": "[low, high]",
    "vector": "list of numbers",
    "colour": "colour [r, g, b]",
    "custom": "see description",
}
UNITS = {"m": "m", "deg": "°", "": ""}


def _core():
    """``core.recipe``: the package already imported (tests), else the checkout's ``core``."""
    if "core.recipe" not in sys.modules:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("core.recipe")


def toml(value):
    """A default as a recipe writes it.

    >>> toml((0.5, 1)), toml("blob"), toml(True), toml(()), toml(1e-06)
    ('[0.5, 1]', '"blob"', 'true', '[]', '1e-06')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + " }" if value else "{}"
    return repr(value)


def _number(value):
    """``4,096``, ``0.05``, ``100,000``, ``-10,000,000``, ``1e+12``."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e10:
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def allowed(limit):
    """The Range column: bounds, lengths, choices."""
    kind, bounds = limit.kind, limit.bounds
    if kind in ("int", "float", "range", "vector") and bounds:
        lo, hi = bounds
        size = f"{limit.size} numbers, each " if kind == "vector" else "each end " if kind == "range" else ""
        return f"{size}{_number(lo)} to {_number(hi)}"
    if kind == "choice":
        return ", ".join(f"`{c}`" for c in bounds)
    if kind == "text":
        lo, hi = bounds
        return f"{lo} to {hi:,} characters"
    if kind == "name":
        return "1 to 48 letters, digits, spaces, `-`, `_`"
    if kind == "colour":
        return "each 0 to 1 (linear)"
    return ""


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def key_rows(limits, default, *, prefix="", owners=None):
    """Table rows of every key of ``limits``; a key whose default is a spec of its own (``[terrain.erosion]``) is
    its own table, returned separately as ``(header, limits, default)``."""
    rows, subtables = [], []
    for key, limit in limits.items():
        value = getattr(default, key)
        if dataclasses.is_dataclass(value):
            spec = sys.modules[type(value).__module__]
            subtables.append((f"{prefix}{key}", spec.LIMITS, value))
            continue
        cells = [f"`{key}`", TYPES[limit.kind], allowed(limit), UNITS.get(limit.unit, limit.unit)]
        cells += [f"`{toml(value)}`", limit.description]
        if owners is not None:
            cells.insert(1, owners(key))
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return rows, subtables


def _table(rows, *, owners=False):
    head = ["Key", "Type", "Range", "Unit", "Default", "Description"]
    if owners:
        head.insert(1, "Generators")
    return ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|", *rows]


def _summary(cls):
    """The first paragraph of a spec's docstring as Markdown, without the section name it starts with."""
    text = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    text = re.sub(r"^``\[+[\w.]+\]+``: ", "", text)
    text = re.sub(r" ?(Ranges: :data:`LIMITS`\.|\(every field optional; ranges in :data:`LIMITS`\))", "", text)
    text = re.sub(r":\w+:`~?\.?([^`]+)`", r"`\1`", text).replace("``", "`")
    return text[:1].upper() + text[1:]


def section_text(section):
    """One section of the page: its header, what it is, and a table of its keys."""
    package = section.package or section.key
    spec = importlib.import_module(f"core.{package}.spec")
    lines = [f"## `{section.header}` — {section.label}", "", _summary(section.spec), ""]
    if section.many:
        lines += [f"Up to {section.max_entries} `{section.header}` tables; each key is optional.", ""]
    else:
        lines += ["Every key is optional.", ""]
    lines += [
        f"Read by `core.{package}.from_dict` and written by `core.{package}.to_dict`, from `core.{package}.LIMITS`.",
        "",
    ]
    keys = getattr(spec, "GENERATOR_KEYS", None)
    owners = None
    if keys is not None:
        common = set(spec.COMMON_KEYS)

        def owners(key):
            if key in common:
                return "all"
            return ", ".join(f"`{g}`" for g, own in keys.items() if key in own)

        lines += [
            "A key of another generator than the table's own is refused, naming the generators it belongs to.",
            "",
        ]
    rows, subtables = key_rows(section.limits, section.spec(), owners=owners)
    lines += _table(rows, owners=owners is not None)
    for header, limits, default in subtables:
        sub_rows, _ = key_rows(limits, default)
        lines += ["", f"### `[{section.key}.{header}]`", "", _summary(type(default)), ""]
        lines += _table(sub_rows)
    for key, (cls, limits) in getattr(spec, "LIST_TABLES", {}).items():
        sub_rows, _ = key_rows(limits, cls())
        lines += ["", f"### `[[{section.key}.{key}]]`", "", _summary(cls), ""]
        lines += ["Any number of these tables (within the limits above); each key is optional.", ""]
        lines += _table(sub_rows)
    old = getattr(spec, "OLD_KEYS", {})
    if old:
        lines += ["", "Keys of older recipes, still read:", ""]
        lines += [f"- `{key}`: {meaning}" for key, meaning in old.items()]
    return lines


def render():
    """The whole page, as the code says it."""
    recipe = _core()
    lines = [
        "# Recipe reference",
        "",
        "<!-- Generated by tools/recipe_reference.py from core.recipe.SECTIONS and the limits tables: do not edit.",
        "     tests/core/test_recipe_reference.py fails when this page is stale. -->",
        "",
        "A recipe is a TOML file of the sections below, in the order a world is built; every section and every",
        "key is optional and takes the default shown. Unknown sections and keys are refused (with a did-you-mean",
        "hint), and every error names the key, the value and what is allowed. File paths in a recipe are",
        "relative to the recipe's folder.",
        "",
        "| Section | What | Built |",
        "|---|---|---|",
    ]
    for section in recipe.SECTIONS:
        built = (
            "on its own"
            if section.build
            else "configures the world"
            if section.key in ("world", "export")
            else ("with the terrain")
        )
        anchor = f"{section.header} — {section.label}".lower()
        anchor = "".join(c for c in anchor if c.isalnum() or c in " -_").replace(" ", "-")
        lines.append(f"| [`{section.header}`](#{anchor}) | {section.label} | {built} |")
    for section in recipe.SECTIONS:
        lines += ["", *section_text(section)]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/recipe.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is stale: run python tools/recipe_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.parent.mkdir(exist_ok=True)
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
