"""The WFC settings that are tables (the ``[[level]]`` keys ``classes``, ``connect_points``, ``fixed`` and
``counts``), each read into a frozen, sorted tuple a spec can hold; checked against the tileset or
sample later (:func:`core.levels.check_spec`), and handed to the models as :class:`Connected`
points, :class:`Counts` bounds and painted cells."""

from ..errors import ParameterError, short
from ._tileset import CLASS_NAMES

__all__ = [
    "MAX_POINTS",
    "MAX_COUNT",
    "check_classes",
    "check_connect_points",
    "check_fixed",
    "check_counts",
]

#: Most ``connect_points`` (and ``fixed`` cells) a level may name.
MAX_POINTS = 4096
#: Largest bound of ``counts`` (cells of the largest level).
MAX_COUNT = 4096 * 4096


def _class_key(key: object, name: str) -> str:
    """A sample value as the canonical text of ``classes``: ``"12"`` (an integer), ``"#rrggbb"`` or
    ``"#rrggbbaa"`` (a colour of an RGB or RGBA image)."""
    if isinstance(key, bool):
        key = None
    elif isinstance(key, int):
        return str(key)
    elif isinstance(key, str):
        k = key.strip().lower()
        if k.lstrip("-").isascii() and k.lstrip("-").isdigit() and len(k) <= 12:  # not '²', which int() refuses
            return str(int(k))
        hexa = k[1:] if k.startswith("#") else k
        if len(hexa) in (6, 8) and all(c in "0123456789abcdef" for c in hexa):
            return "#" + hexa
    raise ParameterError(
        f"{name} keys must be sample values: an integer (a grid sample) or '#rrggbb' ('#rrggbbaa') of an image sample, "
        f"got {short(key)}"
    )


def check_classes(value: object, *, name: str = "classes") -> tuple[tuple[str, str], ...]:
    """``classes`` as a sorted tuple of ``(value, class)`` text pairs, from a table or a list of pairs.

    >>> check_classes({0: "wall", "#FF0000": "door"})
    (('#ff0000', 'door'), ('0', 'wall'))
    >>> try:
    ...     check_classes([["1", "lava"]], name="level.classes")
    ... except ParameterError as err:
    ...     print(err)
    level.classes['1'] must be one of 'wall', 'floor', 'corridor', 'door', got 'lava'
    """
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)):
        pairs = []
        for k, item in enumerate(value):
            if not isinstance(item, (list, tuple)) or len(item) != 2:
                raise ParameterError(f"{name}[{k}] must be a pair [value, class], got {short(item)}")
            pairs.append(tuple(item))
    else:
        raise ParameterError(
            f"{name} must be a table {{value = class}} or a list of [value, class] pairs, got {short(value)}"
        )
    if len(pairs) > 4096:
        raise ParameterError(f"{name} may map at most 4,096 sample values, got {len(pairs):,}")
    out = {}
    for key, cls in pairs:
        key = _class_key(key, name)
        if cls not in CLASS_NAMES:
            raise ParameterError(
                f"{name}[{key!r}] must be one of {', '.join(map(repr, CLASS_NAMES))}, got {short(cls)}"
            )
        if key in out:
            raise ParameterError(f"{name} maps sample value {key!r} twice")
        out[key] = cls
    return tuple(sorted(out.items()))


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(f"{name} must be an integer in [0, {MAX_COUNT:,}], got {short(value)}")
    if not 0 <= value <= MAX_COUNT:
        raise ParameterError(f"{name} must be in [0, {MAX_COUNT:,}], got {value:,}")
    return value


def check_connect_points(value: object, *, name: str = "connect_points") -> tuple[tuple[int, int], ...]:
    """``connect_points`` as a tuple of ``(x, y)`` integer pairs (x the column, y the row, row 0 north),
    from a list of ``[x, y]`` pairs; whether they lie on the grid is checked with the level's size
    (:func:`core.levels.check_spec`).

    >>> check_connect_points([[3, 4], (20, 10)])
    ((3, 4), (20, 10))
    >>> try:
    ...     check_connect_points([[3, 4, 5]], name="level.connect_points")
    ... except ParameterError as err:
    ...     print(err)
    level.connect_points[0] must be a cell [x, y] (two integers), got [3, 4, 5]
    """
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
        raise ParameterError(f"{name} must be a list of cells [x, y], got {short(value)}")
    if len(value) > MAX_POINTS:
        raise ParameterError(f"{name} may name at most {MAX_POINTS:,} cells, got {len(value):,}")
    out = []
    for k, item in enumerate(value):
        ok = isinstance(item, (list, tuple)) and len(item) == 2
        if not ok or any(isinstance(c, bool) or not isinstance(c, int) for c in item):
            raise ParameterError(f"{name}[{k}] must be a cell [x, y] (two integers), got {short(item)}")
        x, y = item
        if x < 0 or y < 0 or x >= 4096 or y >= 4096:
            raise ParameterError(f"{name}[{k}] [{x}, {y}] must have x and y in [0, 4095] (cells of the level grid)")
        out.append((int(x), int(y)))
    return tuple(out)


def check_fixed(value: object, *, name: str = "fixed") -> tuple[tuple[int, int, str], ...]:
    """``fixed`` as a tuple of ``(x, y, tile)`` painted cells (``tile`` a text: a tile or variant name,
    or a sample value as ``classes`` writes it), from a list of ``[x, y, tile]``; a cell named twice is
    refused; whether the cells lie on the grid and the names exist is checked with the level
    (:func:`core.levels.check_spec`).

    >>> check_fixed([[0, 0, "rock"], (5, 2, 12), [3, 3, "#FF0000"]])
    ((0, 0, 'rock'), (5, 2, '12'), (3, 3, '#ff0000'))
    >>> try:
    ...     check_fixed([[1, 1, "rock"], [1, 1, "floor"]], name="level.fixed")
    ... except ParameterError as err:
    ...     print(err)
    level.fixed[1] paints cell [1, 1] again
    """
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
        raise ParameterError(f"{name} must be a list of painted cells [x, y, tile], got {short(value)}")
    if len(value) > MAX_POINTS:
        raise ParameterError(f"{name} may paint at most {MAX_POINTS:,} cells, got {len(value):,}")
    out, seen = [], set()
    for k, item in enumerate(value):
        ok = isinstance(item, (list, tuple)) and len(item) == 3
        if not ok or any(isinstance(c, bool) or not isinstance(c, int) for c in item[:2]):
            raise ParameterError(f"{name}[{k}] must be a painted cell [x, y, tile] (x, y integers), got {short(item)}")
        x, y, tile = item
        if x < 0 or y < 0 or x >= 4096 or y >= 4096:
            raise ParameterError(f"{name}[{k}] [{x}, {y}] must have x and y in [0, 4095] (cells of the level grid)")
        if (x, y) in seen:
            raise ParameterError(f"{name}[{k}] paints cell [{x}, {y}] again")
        seen.add((x, y))
        out.append((int(x), int(y), _count_name(tile, f"{name}[{k}]")))
    return tuple(out)


def _count_name(key: object, name: str) -> str:
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)
    if isinstance(key, str) and key.strip() and len(key.strip()) <= 256:
        key = key.strip()
        hexa = key[1:]
        if key.startswith("#") and len(hexa) in (6, 8) and all(c in "0123456789abcdefABCDEF" for c in hexa):
            return key.lower()  # a colour of an image sample, as classes writes it
        return key
    raise ParameterError(f"{name} keys must be tile names or sample values (12, '#rrggbb'), got {short(key)}")


def _bounds(bounds: object, name: str) -> tuple[int, int]:
    if isinstance(bounds, (list, tuple)) and len(bounds) in (1, 2):
        low = _count(bounds[0], f"{name} min")
        high = bounds[1] if len(bounds) == 2 else -1
        if high != -1:
            high = _count(high, f"{name} max (-1: no bound)")
            if high < low:
                raise ParameterError(f"{name} must have min <= max, got [{low}, {high}]")
        return low, high
    raise ParameterError(f"{name} must be [min, max] or [min] (max -1 or left out: no bound), got {short(bounds)}")


def check_counts(value: object, *, name: str = "counts") -> tuple[tuple[str, int, int], ...]:
    """``counts`` as a sorted tuple of ``(name, min, max)`` (``max`` -1: no bound), from a table
    ``{name: [min, max]}`` (or ``[min]``) or a list of ``[name, min, max]`` / ``[name, min]``.

    Names are tile names (WFC tiles) or sample values (WFC sample; integers become their text);
    which of them the tileset or the sample has is checked with the level (:func:`core.levels.check_spec`).

    >>> check_counts({"door": [1, 4], "bridge": [2], 7: [0, -1], "#C80000": [1, 1]})
    (('#c80000', 1, 1), ('7', 0, -1), ('bridge', 2, -1), ('door', 1, 4))
    >>> try:
    ...     check_counts({"door": [5, 2]}, name="level.counts")
    ... except ParameterError as err:
    ...     print(err)
    level.counts['door'] must have min <= max, got [5, 2]
    """
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = []
        for k, item in enumerate(value):
            if not isinstance(item, (list, tuple)) or len(item) not in (2, 3):
                raise ParameterError(f"{name}[{k}] must be [name, min, max] or [name, min], got {short(item)}")
            items.append((item[0], list(item[1:])))
    else:
        raise ParameterError(
            f"{name} must be a table {{name = [min, max]}} or a list of [name, min, max], got {short(value)}"
        )
    if len(items) > 4096:
        raise ParameterError(f"{name} may bound at most 4,096 tiles or values, got {len(items):,}")
    out = {}
    for key, bounds in items:
        key = _count_name(key, name)
        if key in out:
            raise ParameterError(f"{name} bounds {key!r} twice")
        out[key] = _bounds(bounds, f"{name}[{key!r}]")
    return tuple((key, low, high) for key, (low, high) in sorted(out.items()))
