"""Specs of generator families: one limits table each, one way to check, read and write them.

A family's spec is a frozen dataclass (``TerrainSpec``, ``TreeSpec``,
``LayerSpec`` ...) whose fields are described by one ``LIMITS`` table,
``{field: Limit}``.  That table is the only place a range is written:

* :func:`from_table` validates a recipe table into a spec (unknown keys are
  refused with a "did you mean" hint from :func:`check_keys`, every error names
  the key, the value and what is allowed);
* :func:`to_table` writes a spec back as plain TOML values;
* :func:`from_attrs` reads a spec from any object that holds the fields as
  attributes -- a Blender property group, an operator -- without importing
  anything of Blender;
* the Blender side generates its properties (ranges, labels, descriptions,
  units) from the same entries.

>>> LIMITS = {"octaves": integer((1, 16), "Octaves", "Noise layers"),
...           "scale": number((0.01, 1e6), "Feature Size", "Largest features", unit="m")}
>>> check_value(12, LIMITS["octaves"], name="terrain.octaves")
12
>>> try:
...     check_value(40, LIMITS["octaves"], name="terrain.octaves")
... except ParameterError as err:
...     print(err)
terrain.octaves must be an integer in [1, 16], got 40
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ._checks import Bounds, check_bool, check_choice, check_float, check_int, check_object_name
from .errors import ParameterError, short

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "Limit",
    "KINDS",
    "NAME_PATTERN",
    "integer",
    "number",
    "choice",
    "flag",
    "text",
    "object_name",
    "span",
    "vector",
    "colour",
    "custom",
    "check_value",
    "check_keys",
    "closest",
    "did_you_mean",
    "from_table",
    "to_table",
    "from_attrs",
    "float32_decimal",
]

#: What a limit may describe.
KINDS = ("int", "float", "choice", "bool", "text", "name", "range", "vector", "colour", "custom")
#: Names of generated objects: 1 to 48 letters, digits, spaces, '-' or '_'.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\- ]{1,48}$")
#: A spec class (a dataclass) that :func:`from_table` and :func:`from_attrs` build.
SpecT = TypeVar("SpecT", bound="DataclassInstance")


@dataclass(frozen=True)
class Limit:
    """What one spec field allows, and how a user interface presents it.

    Attributes
    ----------
    kind : str
        One of ``KINDS``: ``int`` / ``float`` within ``bounds``; ``choice`` among ``bounds``;
        ``bool``; ``text`` of ``bounds = (min_len, max_len)`` characters; ``name`` (an object
        name); ``range`` a ``(low, high)`` pair within ``bounds``; ``vector`` ``size`` numbers
        within ``bounds``; ``colour`` linear RGB in [0, 1]; ``custom`` checked by ``check``.
    bounds : tuple
        See ``kind``.
    label, description : str
        Short name and one-line explanation (the sidebar shows them).
    unit : str
        ``"m"`` (metres), ``"deg"`` (degrees) or ``""``.
    size : int
        Components of a ``vector``.
    soft : tuple
        ``(soft_min, soft_max)`` for sliders, or ``()``.
    items : tuple
        For a ``choice``: ``(id, label, description)`` per choice.
    check : callable or None
        For ``custom``: ``check(value, name) -> value``.
    """

    kind: str
    bounds: tuple[Any, ...] = ()
    label: str = ""
    description: str = ""
    unit: str = ""
    size: int = 0
    soft: tuple[float, ...] = ()
    items: tuple[tuple[str, str, str], ...] = ()
    check: Callable[[Any, str], Any] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")


def integer(bounds: Iterable[float], label: str, description: str, **ui: Any) -> Limit:
    """An ``int`` field within ``bounds``."""
    return Limit("int", tuple(bounds), label, description, **ui)


def number(bounds: Iterable[float], label: str, description: str, **ui: Any) -> Limit:
    """A ``float`` field within ``bounds``."""
    return Limit("float", tuple(bounds), label, description, **ui)


def choice(items: Iterable[str | tuple[str, str, str]], label: str, description: str) -> Limit:
    """A ``choice`` among ``items``: ids, or ``(id, label, description)`` triples."""
    triples = tuple(i if isinstance(i, tuple) else (i, i.replace("_", " ").title(), i) for i in items)
    return Limit("choice", tuple(t[0] for t in triples), label, description, items=triples)


def flag(label: str, description: str) -> Limit:
    """A ``bool`` field."""
    return Limit("bool", (), label, description)


def text(max_length: int, label: str, description: str, *, min_length: int = 0) -> Limit:
    """A ``text`` field of ``min_length`` to ``max_length`` characters."""
    return Limit("text", (min_length, max_length), label, description)


def object_name(label: str, description: str) -> Limit:
    """A ``name`` field: 1 to 48 letters, digits, spaces, '-' or '_'."""
    return Limit("name", (1, 48), label, description)


def span(bounds: Iterable[float], label: str, description: str, **ui: Any) -> Limit:
    """A ``range`` field: ``(low, high)`` with both ends within ``bounds`` and ``low <= high``."""
    return Limit("range", tuple(bounds), label, description, size=2, **ui)


def vector(bounds: Iterable[float], label: str, description: str, *, size: int, **ui: Any) -> Limit:
    """A ``vector`` of ``size`` numbers within ``bounds``."""
    return Limit("vector", tuple(bounds), label, description, size=size, **ui)


def colour(label: str, description: str) -> Limit:
    """A linear RGB ``colour``, each channel in [0, 1]."""
    return Limit("colour", (0.0, 1.0), label, description, size=3)


def custom(check: Callable[[Any, str], Any], label: str, description: str) -> Limit:
    """A field checked by ``check(value, name) -> value`` (lists of points, tables ...)."""
    return Limit("custom", (), label, description, check=check)


def _numbers(value: Any, *, name: str, size: int, bounds: Bounds, what: str) -> tuple[float, ...]:
    try:
        items = tuple(value)
    except TypeError:
        items = None
    if items is None or len(items) != size or isinstance(value, str):
        raise ParameterError(f"{name} must be {what}, got {short(value)}")
    return tuple(check_float(v, name=f"{name}[{i}]", bounds=bounds) for i, v in enumerate(items))


def check_value(value: Any, limit: Limit, *, name: str) -> Any:
    """``value`` checked against ``limit`` (errors name ``name``), in its canonical type."""
    kind, bounds = limit.kind, limit.bounds
    if kind == "int":
        return check_int(value, name=name, bounds=bounds)
    if kind == "float":
        return check_float(value, name=name, bounds=bounds)
    if kind == "choice":
        if isinstance(value, str) and value not in bounds:
            raise ParameterError(
                f"{name} must be one of {', '.join(map(repr, bounds))}, got {short(value)}{did_you_mean(value, bounds)}"
            )
        return check_choice(value, name=name, choices=bounds)
    if kind == "bool":
        return check_bool(value, name=name)
    if kind == "name":
        return check_object_name(value, name=name, pattern=NAME_PATTERN)
    if kind == "text":
        lo, hi = bounds
        if isinstance(value, str) and len(value.strip() if lo else value) < lo:
            raise ParameterError(
                f"{name} must not be empty"
                if lo == 1
                else f"{name} must be at least {lo:,} characters long, got {len(value):,}"
            )
        if not isinstance(value, str) or len(value) > hi:
            got = f"text of length {len(value):,}" if isinstance(value, str) else short(value)
            raise ParameterError(f"{name} must be text of at most {hi:,} characters, got {got}")
        return value
    if kind == "range":
        low, high = _numbers(value, name=name, size=2, bounds=bounds, what="a pair [low, high]")
        if high < low:
            raise ParameterError(f"{name} must have low <= high, got [{low:g}, {high:g}]")
        return (low, high)
    if kind == "vector":
        what = (
            "a pair of numbers [x, y]"
            if limit.size == 2
            else f"{limit.size} numbers [{', '.join('xyzw'[: limit.size])}]"
        )
        return _numbers(value, name=name, size=limit.size, bounds=bounds, what=what)
    if kind == "colour":
        return _numbers(value, name=name, size=3, bounds=bounds, what="[r, g, b] with values in [0, 1]")
    assert limit.check is not None, f"{name}: a custom limit without its check"
    return limit.check(value, name)


def closest(word: object, allowed: Iterable[object]) -> str | None:
    """The entry of ``allowed`` closest to ``word`` in spelling, or None."""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], 1)
    return close[0] if close else None


def did_you_mean(word: object, allowed: Iterable[object]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``allowed``, or ``""``.

    >>> did_you_mean("terain", ["world", "terrain"])
    " (did you mean 'terrain'?)"
    """
    close = closest(word, allowed)
    return f" (did you mean {close!r}?)" if close else ""


def check_keys(keys: Iterable[Any], allowed: Iterable[Any], *, where: str) -> None:
    """Refuse keys not in ``allowed``, naming them, the closest allowed ones and the whole list.

    >>> try:
    ...     check_keys(["octaves", "octave"], ["octaves", "scale"], where="[terrain]")
    ... except ParameterError as err:
    ...     print(err)
    unknown key(s) ['octave'] in [terrain] (did you mean 'octave' -> 'octaves'?); allowed: ['octaves', 'scale']
    """
    allowed = list(allowed)
    unknown = sorted(set(keys) - set(allowed), key=str)
    if not unknown:
        return
    hints = [f"{short(u, 40)} -> {m!r}" for u in unknown for m in [closest(u, allowed)] if m]
    hint = f" (did you mean {', '.join(hints)}?)" if hints else ""
    shown = [u if len(str(u)) <= 40 else str(u)[:37] + "..." for u in unknown[:20]]
    raise ParameterError(f"unknown key(s) {shown} in {where}{hint}; allowed: {sorted(allowed)}")


def from_table(
    cls: type[SpecT], limits: Mapping[str, Limit], table: object, *, prefix: str, base: SpecT | None = None
) -> SpecT:
    """A validated ``cls`` from a dict of field values (the others from ``base`` or the defaults).

    ``prefix`` starts every error's key name, e.g. ``"terrain."`` or ``"scatter[2]."``.
    """
    where = prefix.rstrip(".") or cls.__name__
    if where.isidentifier():
        where = f"[{where}]"  # a whole section: "[terrain]"; an entry keeps its index: "scatter[2]"
    if not isinstance(table, dict):
        raise ParameterError(f"{where} must be a table of keys, got {short(table)}")
    check_keys(table, [f.name for f in dataclasses.fields(cls)], where=where)
    values = {key: check_value(value, limits[key], name=f"{prefix}{key}") for key, value in table.items()}
    return dataclasses.replace(base if base is not None else cls(), **values)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def to_table(spec: DataclassInstance) -> dict[str, Any]:
    """The spec as a dict of plain TOML values (tuples become lists)."""
    return {f.name: _plain(getattr(spec, f.name)) for f in dataclasses.fields(spec)}


def float32_decimal(value: float | np.floating[Any]) -> float:
    """The shortest decimal that rounds to the same float32 as ``value``.

    A user interface stores floats as float32: 0.35 comes back as
    0.3499999940395355.  Reading it through this gives 0.35 again, so the
    sidebar and a recipe that says 0.35 build the same bytes.

    >>> float32_decimal(0.3499999940395355)
    0.35
    """
    return float(np.format_float_positional(np.float32(value), unique=True, trim="0"))


def _attr_value(value: Any, limit: Limit | None) -> Any:
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, float):
        return float32_decimal(value)
    if isinstance(value, int):
        return value
    if limit is not None and limit.kind in ("range", "vector", "colour"):
        return tuple(float32_decimal(v) for v in value)
    return value


def from_attrs(
    cls: type[SpecT],
    limits: Mapping[str, Limit],
    obj: object,
    *,
    prefix: str,
    fields: Iterable[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    base: SpecT | None = None,
) -> SpecT:
    """A validated ``cls`` from the attributes of ``obj`` named after its fields.

    ``fields`` (default: every field in ``limits`` that ``obj`` has) are read;
    float32 values come back as the decimals they stand for
    (:func:`float32_decimal`).  ``overrides`` replaces values before checking.
    """
    names = fields if fields is not None else [k for k in limits if hasattr(obj, k)]
    table = {name: _attr_value(getattr(obj, name), limits.get(name)) for name in names}
    table.update(overrides or {})
    return from_table(cls, limits, table, prefix=prefix, base=base)
