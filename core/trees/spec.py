"""``[[trees]]``: a tree specification, its limits table, and the species that ship as data.

``TreeSpec`` holds everything that decides a tree: the L-system (axiom,
rules, iterations, constants), the turtle (angles, lengths, widths, tropism,
jitter, leaves) and the mesh (ring sides, leaf shape, LODs, billboard,
colours).  Species are TOML files in the extension's ``presets/trees``
folder (a ``[tree]`` table of ``TreeSpec`` fields plus a ``label``,
``group`` and ``description``), so a species is data, not code::

    label = "Broadleaf (oak-like)"
    group = "game"
    [tree]
    axiom = "A"
    rules = '''
    A -> F[&A]/////[&A]
    '''
    iterations = 6

>>> spec = species_spec("abop_1_24a")
>>> spec.axiom, spec.angle
('F', 25.7)
"""

import copy
import dataclasses
import functools
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._checks import check_float
from .._toml import toml_table
from ..errors import ParameterError, short
from ..files import parse_toml, read_toml
from ..spec import (
    choice,
    colour,
    custom,
    did_you_mean,
    flag,
    from_table,
    integer,
    number,
    object_name,
    text,
    to_table,
    vector,
)
from . import lsystem

__all__ = [
    "TreeSpec",
    "LIMITS",
    "SPECIES_DIR",
    "LEAF_SHAPES",
    "SEED",
    "from_dict",
    "to_dict",
    "species_names",
    "species_info",
    "species_spec",
    "dumps_spec",
    "loads_spec",
    "constants_to_text",
    "constants_from_text",
    "rule_error",
]

#: Folder of the species files (``<extension root>/presets/trees``).
SPECIES_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "presets", "trees"
)
LEAF_SHAPES = ("leaf", "card", "diamond")
SEED = (0, 2**31 - 1)
CONSTANT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")
SPECIES_NAME = re.compile(r"^[a-z0-9_]{1,48}$")
#: Largest species file read (a species is a few kilobytes).
MAX_SPECIES_BYTES = 1 << 20


def check_constants(value: Any, name: str) -> tuple[tuple[str, float], ...]:
    """Named numbers for parametric rules: a table ``name = number`` -> sorted ``((name, value), ...)``."""
    items = value.items() if isinstance(value, dict) else value
    out = []
    try:
        for cname, cvalue in items:
            if not isinstance(cname, str) or not CONSTANT_NAME.match(cname):
                raise ParameterError(f"{name}: constant name must be an identifier, got {short(cname)}")
            out.append((cname, check_float(cvalue, name=f"{name}.{cname}")))
    except (TypeError, ValueError) as err:
        if isinstance(err, ParameterError):
            raise
        raise ParameterError(f"{name} must be a table of name = number, got {short(value)}") from None
    return tuple(sorted(out))


def check_species(value: object, name: str) -> str:
    """A species name (or "" for none); whether the file exists is checked when it is loaded."""
    if not isinstance(value, str):
        raise ParameterError(f"{name} must be a species name, got {short(value)}")
    return value


#: Every field of :class:`TreeSpec`: kind, range, label and description, written once.
LIMITS = {
    "name": object_name("Name", "Name of the tree objects (Name, Name_LOD0, Name_LOD1, ...)"),
    "species": custom(check_species, "Species", "The species file the tree starts from"),
    "seed": integer(SEED, "Seed", "Random seed: stochastic rules, jitter and leaf thinning"),
    "variants": integer((1, 100), "Variants", "Trees per species in a forest, each from its own seed"),
    "axiom": text(10_000, "Axiom", "The starting string of the L-system", min_length=1),
    "rules": text(65_536, "Rules", "Productions, one per line or separated by ';', e.g. 'F -> F[+F]F[-F]F'"),
    "iterations": integer(
        (0, 30), "Iterations", "Derivation steps: how many times every rule is applied", soft=(0, 12)
    ),
    "constants": custom(check_constants, "Constants", "Named numbers for parametric rules, 'name=value; name=value'"),
    "angle": number((-360.0, 360.0), "Angle", "Turning angle of + - & ^ \\ / (degrees)", unit="deg"),
    "step": number((0.001, 1000.0), "Step", "Length of one F", unit="m", soft=(0.001, 10.0)),
    "width": number((0.0, 100.0), "Width", "Diameter of the trunk where drawing starts", unit="m", soft=(0.0, 5.0)),
    "width_decay": number((0.01, 1.5), "Width Decay", "Width multiplier for each !"),
    "length_decay": number((0.01, 1.5), "Length Decay", 'Step multiplier for each "'),
    "order_width_ratio": number((0.01, 1.5), "Branch Width", "Width multiplier for each branch order ([)"),
    "order_length_ratio": number((0.01, 1.5), "Branch Length", "Step multiplier for each branch order ([)"),
    "tropism": vector(
        (-1e3, 1e3), "Tropism", "Direction branches bend towards (down for gravity, up for light)", size=3
    ),
    "tropism_strength": number(
        (-1.0, 1.0), "Tropism Strength", "How strongly branches bend towards the tropism direction"
    ),
    "jitter": number((0.0, 90.0), "Jitter", "Random variation of every angle (degrees)", unit="deg"),
    "leaf_size": number((0.001, 100.0), "Leaf Size", "Length of a leaf (~)", unit="m", soft=(0.001, 2.0)),
    "sides": integer((3, 32), "Ring Sides", "Sides of the bark tubes at LOD0"),
    "leaf_shape": choice(
        (
            ("leaf", "Leaf", "A pointed leaf outline (4 triangles)"),
            ("card", "Card", "A quad with 0..1 UVs, for alpha-textured leaf atlases"),
            ("diamond", "Diamond", "A rhombus (2 triangles)"),
        ),
        "Leaf Shape",
        "Outline of each leaf",
    ),
    "leaf_width": number((0.05, 2.0), "Leaf Width", "Leaf width as a fraction of its length"),
    "lods": integer((1, 3), "LODs", "Levels of detail (Name_LOD0, Name_LOD1, Name_LOD2)"),
    "billboard": flag("Billboard", "Add crossed quads as the farthest LOD"),
    "uv_scale": number((0.01, 100.0), "UV Scale", "Bark texture repeats along the branches"),
    "bark_colour": colour("Bark", "Bark colour"),
    "leaf_colour": colour("Leaves", "Leaf colour"),
}
assert LIMITS["leaf_shape"].bounds == LEAF_SHAPES


@dataclass(frozen=True)
class TreeSpec:
    """Every parameter of one tree (all optional; the defaults grow ABOP fig. 1.24 a).

    L-system: ``axiom``, ``rules`` (see :mod:`core.trees.lsystem` for the syntax),
    ``iterations``, ``constants`` (``((name, value), ...)`` usable in
    parametric expressions).  Turtle (see :func:`core.trees.turtle.interpret`):
    ``angle`` (degrees), ``step`` (metres per ``F``), ``width`` (trunk
    diameter, metres), ``width_decay`` (per ``!``), ``length_decay`` (per
    ``"``), ``order_width_ratio`` / ``order_length_ratio`` (per branch
    order), ``tropism`` (direction) and ``tropism_strength``, ``jitter``
    (degrees), ``leaf_size`` (metres, per ``~``).  Mesh: ``sides`` of the
    bark rings, ``leaf_shape``, ``leaf_width`` (width / length), ``lods``
    (1 to 3 levels), ``billboard`` (a crossed-quad far LOD), ``uv_scale``,
    ``bark_colour``, ``leaf_colour`` (linear RGB).  Output: ``name`` and
    ``seed``; ``variants`` is how many seeds a forest grows; ``species``
    names the species file the spec started from.  Ranges: :data:`LIMITS`.
    """

    name: str = "Tree"
    species: str = ""
    seed: int = 0
    variants: int = 4
    axiom: str = "F"
    rules: str = "F -> F[+F]F[-F]F"
    iterations: int = 5
    constants: tuple[tuple[str, float], ...] = ()
    angle: float = 25.7
    step: float = 0.1
    width: float = 0.05
    width_decay: float = 0.7
    length_decay: float = 1.0
    order_width_ratio: float = 1.0
    order_length_ratio: float = 1.0
    tropism: tuple[float, float, float] = (0.0, 0.0, -1.0)
    tropism_strength: float = 0.0
    jitter: float = 0.0
    leaf_size: float = 0.3
    sides: int = 6
    leaf_shape: str = "leaf"
    leaf_width: float = 0.5
    lods: int = 3
    billboard: bool = False
    uv_scale: float = 1.0
    bark_colour: tuple[float, float, float] = (0.20, 0.12, 0.07)
    leaf_colour: tuple[float, float, float] = (0.10, 0.30, 0.05)


def from_dict(
    data: Mapping[str, Any] | None = None, *, base: TreeSpec | None = None, prefix: str = "tree."
) -> TreeSpec:
    """A validated :class:`TreeSpec` from a dict of fields (unknown keys refused).

    ``data`` may name a ``species``: the species file gives the starting values
    and the other keys override them (``base`` gives them when no species is
    named).  Errors name the key as ``<prefix><key>``.

    >>> from_dict({"species": "birch", "iterations": 2}).iterations
    2
    """
    data = dict(data or {})
    start = base
    if isinstance(data, dict) and data.get("species"):
        start = species_spec(check_species(data["species"], f"{prefix}species"))
    spec = from_table(TreeSpec, LIMITS, data, prefix=prefix, base=start)
    if "tropism" in data and not any(spec.tropism) and spec.tropism_strength:
        raise ParameterError(f"{prefix}tropism must not be [0, 0, 0] when tropism_strength is not 0")
    return spec


def to_dict(spec: TreeSpec) -> dict[str, Any]:
    """The spec as a dict of plain TOML values (``constants`` as a table)."""
    out = to_table(spec)
    out["constants"] = dict(spec.constants)
    return out


def dumps_spec(spec: TreeSpec) -> str:
    """``spec`` as TOML text (a ``[tree]`` table) that :func:`loads_spec` reads back equal."""
    return "[tree]\n" + "\n".join(toml_table(to_dict(spec))) + "\n"


def loads_spec(text: str, *, source: str = "tree") -> TreeSpec:
    """Inverse of :func:`dumps_spec`."""
    data = parse_toml(text, source=source)
    table = dict(data.get("tree", {}))
    species = table.pop("species", "")
    spec = from_dict(table, prefix=f"{source}: tree.")
    return dataclasses.replace(spec, species=species)


# -- text forms a user interface edits ------------------------------------------------------------------------


def constants_to_text(constants: Iterable[tuple[str, float]]) -> str:
    """``(("a", 1.0), ("b", 2.5))`` -> ``"a=1; b=2.5"``."""
    return "; ".join(f"{k}={v:.9g}" for k, v in constants)


def constants_from_text(text: str) -> dict[str, float]:
    """Inverse of :func:`constants_to_text` (newlines also separate); returns a dict.

    >>> constants_from_text("r = 1.5; d=2")
    {'r': 1.5, 'd': 2.0}
    """
    out = {}
    for part in filter(None, (p.strip() for p in text.replace("\n", ";").split(";"))):
        name, eq, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise ParameterError(f"constants must be 'name=value; name=value', got {short(part)}") from None
        if not eq:
            raise ParameterError(f"constants must be 'name=value; name=value', got {short(part)}")
    return out


@functools.lru_cache(maxsize=32)
def rule_error(axiom: str, rules: str, constants_text: str) -> str:
    """Why these rules do not parse (a message), or "" when they do.

    >>> rule_error("F", "F -> F[+F]F", "")
    ''
    >>> rule_error("F", "F -> F[+F", "")
    "line 1: unbalanced '[' in the successor: 1 '[' left open (each needs its ']') -- in 'F -> F[+F'"
    """
    try:
        lsystem.parse(axiom, rules, constants=constants_from_text(constants_text))
    except ParameterError as err:
        return str(err)
    return ""


# -- species files ---------------------------------------------------------------------------------------------


def _species_path(name: str) -> str:
    return os.path.join(SPECIES_DIR, f"{name}.toml")


def species_names() -> list[str]:
    """Identifiers of the shipped species (file names without ``.toml``), game species first."""
    if not os.path.isdir(SPECIES_DIR):
        return []
    names = sorted(f[:-5] for f in os.listdir(SPECIES_DIR) if f.endswith(".toml"))

    def group(name: str) -> str:
        try:
            return species_info(name)["group"]
        except ParameterError:  # unreadable: listed last; loading it gives the error
            return "~"

    return sorted(names, key=lambda n: (group(n) != "game", group(n) == "~", n))


def _unknown_species(name: object) -> ParameterError:
    known = (
        [f[:-5] for f in sorted(os.listdir(SPECIES_DIR)) if f.endswith(".toml")] if os.path.isdir(SPECIES_DIR) else []
    )
    return ParameterError(
        f"species {short(name)} not found{did_you_mean(name, known)}; known species: {', '.join(known)}"
    )


#: A species file's ``(stamp, data, spec or None)``.
_Entry = tuple[tuple[int, int, int], dict[str, Any], TreeSpec | None]
#: Parsed species files, ``{path: (stamp, data, spec)}``: a file is read again only when its stamp
#: (modification time, size, inode) changes; ``spec`` is its :class:`TreeSpec` once asked for.
_SPECIES: dict[str, _Entry] = {}


def _species_entry(name: str) -> _Entry:
    """``(stamp, data, spec or None)`` of species ``name``: its file checked (a regular file of at
    most :data:`MAX_SPECIES_BYTES`) every time, parsed only when it changed since the last read.

    A recipe names species by identifier, a scatter layer's prop too, and each check of one lists
    every species with its group: without the cache a demo run parsed the species files 917 times.
    """
    path = _species_path(name) if isinstance(name, str) and SPECIES_NAME.match(name) else None
    try:
        info = os.stat(path) if path is not None else None
    except OSError:
        info = None
    if path is None or info is None or not stat.S_ISREG(info.st_mode):
        raise _unknown_species(name)
    if info.st_size > MAX_SPECIES_BYTES:
        raise ParameterError(
            f"species file {path!r} is {info.st_size:,} bytes; at most {MAX_SPECIES_BYTES:,} (is it a species?)"
        )
    stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
    entry = _SPECIES.get(path)
    if entry is not None and entry[0] == stamp:
        return entry
    # read_checked re-checks what it opened (fstat): a FIFO swapped in after the stat is refused, not read
    data = read_toml(path, name="species file", limit=MAX_SPECIES_BYTES, source=f"species file {name}.toml")
    entry = (stamp, data, None)
    _SPECIES[path] = entry
    return entry


def species_info(name: str) -> dict[str, str]:
    """``{"label", "group", "description"}`` of a species file."""
    data = _species_entry(name)[1]
    return {
        "label": data.get("label", name.replace("_", " ").title()),
        "group": data.get("group", "game"),
        "description": data.get("description", ""),
    }


def species_spec(name: str) -> TreeSpec:
    """The :class:`TreeSpec` a species file describes (``species`` set to its identifier)."""
    stamp, data, spec = _species_entry(name)
    if spec is None:
        table = copy.deepcopy(dict(data.get("tree", {})))
        table.pop("species", None)
        spec = dataclasses.replace(from_dict(table, prefix=f"species {name}: tree."), species=name)
        _SPECIES[_species_path(name)] = (stamp, data, spec)  # a frozen spec: shared by every caller
    return spec
