"""Tilesets of the simple tiled model: TOML files of tiles, symmetry classes and adjacency.

A tileset file lists ``[[tile]]`` tables (``name``, ``symmetry``, ``weight``, ``class``, optional
``sockets``) and optional ``[[neighbor]]`` rules (``left``, ``right``)::

    name = "pipes"

    [[tile]]
    name = "corner"
    symmetry = "L"
    weight = 1.0
    class = "corridor"
    sockets = { north = "p", east = "p", south = "0", west = "0" }

    [[neighbor]]          # "line 1" may stand to the right (east) of "corner"
    left = "corner"
    right = "line 1"

**Symmetry classes** (as in the reference WFC's SimpleTiledModel) say which of the eight
rotations/mirrors of a tile are distinct: ``X`` 1 variant (fully symmetric), ``I`` 2 (a straight
line), ``\\`` 2 (a diagonal), ``L`` 4 (a corner, symmetric about a diagonal), ``T`` 4 (symmetric
under the left-right mirror), ``F`` 8 (no symmetry). Variant ``k`` of a tile is the base turned ``k``
quarter turns clockwise (as seen with rows going down); for ``F``, variants 4-7 are the left-right
mirror turned ``k - 4`` times. Names are ``"corner 0"`` .. ``"corner 3"`` (a one-variant tile keeps its
plain name); a rule may write ``"corner"`` for variant 0.

**Neighbour rules** are closed under the eight symmetries of the square: ``left = A, right = B``
allows B east of A, and so every rotated/mirrored copy of that pair.

**Sockets** name the profile of each side, read clockwise around the tile (for the north side west
to east, for the east side north to south, ...). Two sides meet when one profile is the other
reversed, so a palindrome such as ``"p"`` or ``"rcr"`` meets itself, and ``"rwf"`` (east side: rock,
wall, floor) meets a west side ``"fwr"``. Mirroring a tile reverses its profiles. The sockets of a
tile must have the symmetry its class declares (an ``X`` tile the same palindrome on all four
sides, a ``T`` tile east and west mirror images, ...). Rules and sockets add up.

**Classes** say what a tile is for a level: ``class = "wall" | "floor" | "corridor" | "door"``
(default ``"floor"``), stored per variant in :attr:`Tileset.classes` with the numbers of the level
classes of ``core.levels`` (wall 0, floor 1, corridor 2, door 3; see :data:`CLASS_NAMES`);
:attr:`Tileset.walkable` is every class but wall.

**Up and down sockets** (``sockets = { ..., up = "s", down = "f" }``) are for the 3-D model
(:func:`core.wfc.tiled3d`): a tile's ``up`` socket meets the ``down`` socket of the tile above it
when the two strings are equal (plain labels, not profiles: they are never reversed). A socket
may also be a list of labels (``down = ["s", "t"]``): two sockets meet when they share a label. The rotated
and mirrored variants of a tile turn its four side sockets and keep its up and down sockets. A
sockets table may hold only ``up`` and ``down`` (the sides then come from neighbour rules); ``up``
and ``down`` go together. The 2-D model ignores them. Two top-level keys, ``ground`` and ``sky``
(a tile name or a list of them), name the tiles the 3-D model puts on its bottom and top layers
(every variant of them; no other tile goes there). A top-level ``edge`` (a socket profile, e.g.
``edge = "oo"``) says what lies beyond a bounded grid: the tiles on its border must turn a side
that meets that profile outwards (see :meth:`Tileset.meets`; the 3-D model applies it).

**Placing tile objects** (in Blender, +x east, +y north, +z up; the grid's row + 1 is south, -y):
variant ``i`` is the artist's object of base tile :attr:`Tileset.base_names` ``[i]``, first
mirrored left-right (x -> -x, an object scale of (-1, 1, 1)) when :attr:`Tileset.mirrored` ``[i]``,
then turned :attr:`Tileset.rotations` ``[i]`` quarter turns counter-clockwise seen from above (a Z
rotation of ``rotations[i] * 90`` degrees). :attr:`Tileset.turns` holds the same turn as quarter
turns clockwise on the map, ``rotations == (-turns) % 4``. The base object is modelled as the tile's
sockets describe it, with its north side towards +y and its origin at the centre of the cell, so
that turning it about its origin keeps it in its cell.
"""

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError, short
from ..files import MAX_FILE_BYTES, parse_toml, read_checked

__all__ = ["Tileset", "load_tileset", "SYMMETRIES", "CLASS_NAMES"]

#: Tile classes by number, as the level classes of ``core.levels`` (WALL 0, FLOOR 1, CORRIDOR 2,
#: DOOR 3); written out here because core.wfc does not import core.levels.
CLASS_NAMES = ("wall", "floor", "corridor", "door")

#: Directions: 0 east (+x), 1 south (+y, row + 1), 2 west, 3 north; socket keys in that order.
SIDES = ("east", "south", "west", "north")
#: The 3-D model's vertical sockets (directions 4 up +z, 5 down -z).
VERTICAL = ("up", "down")
#: The keys a ``[[tile]]`` table may hold.
TILE_KEYS = ("name", "symmetry", "weight", "class", "sockets")

#: Most variants (tiles with their rotations and mirrors) a tileset may make: the overlapping
#: model's pattern limit; the solver's time and memory grow with their square.
MAX_VARIANTS = 2048

#: A shape with the symmetry of each class (rows going down); its distinct images are the variants.
_SHAPES = {
    "X": [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
    "I": [[0, 1, 0], [0, 1, 0], [0, 1, 0]],
    "\\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "L": [[0, 1, 0], [0, 1, 1], [0, 0, 0]],
    "T": [[0, 0, 0], [1, 1, 1], [0, 1, 0]],
    "F": [[0, 1, 1], [0, 1, 0], [0, 1, 0]],
}
SYMMETRIES = tuple(_SHAPES)


def _transform(shape: npt.ArrayLike, g: int) -> npt.NDArray[np.int64]:
    """Apply symmetry ``g`` = 4 * mirror + turns: mirror left-right, then turn clockwise."""
    shape = np.asarray(shape)
    if g >= 4:
        shape = shape[:, ::-1]
    return np.rot90(shape, -(g % 4))


def _direction(d: int, g: int) -> int:
    """Where direction ``d`` goes under symmetry ``g``."""
    if g >= 4 and d % 2 == 0:
        d = 2 - d  # east <-> west
    return (d + g % 4) % 4


def _variants(symmetry: str) -> tuple[list[int], npt.NDArray[np.int64]]:
    """(list of the transform making each variant, action (n, 8): variant under g)."""
    images = [_transform(_SHAPES[symmetry], g) for g in range(8)]
    firsts: list[int] = []
    for g, image in enumerate(images):
        if not any(np.array_equal(image, images[f]) for f in firsts):
            firsts.append(g)
    action = np.empty((len(firsts), 8), np.int64)
    for i, f in enumerate(firsts):
        for g in range(8):
            image = _transform(images[f], g)
            action[i, g] = next(j for j, h in enumerate(firsts) if np.array_equal(image, images[h]))
    return firsts, action


_VARIANTS = {s: _variants(s) for s in SYMMETRIES}


@dataclass(frozen=True)
class Tileset:
    """A tileset with its rotated/mirrored variants (P of them).

    ``names`` (P,) variant names, ``weights`` (P,) float64, ``compatible`` (4, P, P) bool in the
    solver's convention; ``base_names`` (P,) the base tile name of each variant, ``turns`` (P,)
    int64 quarter turns clockwise on the map and ``mirrored`` (P,) bool: variant =
    turn(mirror(base)) (see the module notes for placing objects, and :attr:`rotations`);
    ``classes`` (P,) uint8 level classes (wall 0, floor 1, corridor 2, door 3); ``up`` and ``down``
    (P,) the vertical socket labels of each variant, a sorted tuple of strings (``None`` where a
    tile has none); ``ground``
    and ``sky`` the base tiles the 3-D model allows on its bottom and top layers (empty: any);
    ``sockets`` (P,) the four side sockets of each variant (east, south, west, north; ``None``
    for a tile without them); ``edge`` the socket the grid's edge shows the tiles, or ``None``.
    """

    name: str
    names: tuple[str, ...]
    weights: npt.NDArray[np.float64]
    compatible: npt.NDArray[np.bool_]
    base_names: tuple[str, ...]
    turns: npt.NDArray[np.int64]
    mirrored: npt.NDArray[np.bool_]
    classes: npt.NDArray[np.uint8] | None = None
    up: tuple[tuple[str, ...] | None, ...] | None = None
    down: tuple[tuple[str, ...] | None, ...] | None = None
    ground: tuple[str, ...] = ()
    sky: tuple[str, ...] = ()
    sockets: tuple[tuple[str, ...] | None, ...] | None = None
    edge: str | None = None

    def meets(self, profile: str) -> npt.NDArray[np.bool_]:
        """(4, P) bool: ``[d, i]`` when side ``d`` (east, south, west, north) of variant ``i`` meets a
        side of socket ``profile`` (its profile is ``profile`` reversed). Variants without side
        sockets meet nothing.

        >>> ts = load_tileset('''
        ... [[tile]]
        ... name = "w"
        ... symmetry = "T"
        ... sockets = { north = "oo", east = "wh", south = "hh", west = "hw" }
        ... ''')
        >>> ts.meets("oo").astype(int).tolist()  # the outside of each turn of the wall
        [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]]
        """
        out = np.zeros((4, len(self.names)), bool)
        for i, sides in enumerate(self.sockets or ()):
            if sides is not None:
                out[:, i] = [side == profile[::-1] for side in sides]
        return out

    def __post_init__(self) -> None:
        p = len(self.names)
        if self.classes is None:
            object.__setattr__(self, "classes", np.ones(p, np.uint8))
        for key in ("up", "down"):
            if getattr(self, key) is None:
                object.__setattr__(self, key, (None,) * p)

    @property
    def tile(self) -> tuple[str, ...]:
        """The base tile name of each variant (the older name of :attr:`base_names`)."""
        return self.base_names

    @property
    def rotations(self) -> npt.NDArray[np.int64]:
        """(P,) int64 quarter turns counter-clockwise seen from above (+y north, +z up): the Z
        rotation, in units of 90 degrees, that places the base tile's object as the variant
        (after the left-right mirror when :attr:`mirrored`)."""
        return (-self.turns) % 4

    @property
    def walkable(self) -> npt.NDArray[np.bool_]:
        """(P,) bool: the variants whose class is not wall."""
        return self.classes != 0  # type: ignore[return-value]  # classes given (load_tileset)

    def index(self, name: str) -> int:
        """Index of a variant name (``"corner 2"``, or ``"corner"`` for variant 0)."""
        found = self._lookup().get(name)
        if found is None:
            raise ParameterError(f"unknown tile {short(name)} in tileset {self.name!r}")
        return found

    def _lookup(self) -> dict[str, int]:
        table = {n: i for i, n in enumerate(self.names)}
        for i, n in enumerate(self.names):
            if n.endswith(" 0"):
                table.setdefault(n[:-2], i)
            else:
                table.setdefault(f"{n} 0", i)
        return table


def _fail(source: str, message: str) -> NoReturn:
    raise ParameterError(f"{source}: {message}")


def _read(path_or_text: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    if isinstance(path_or_text, os.PathLike) or (
        isinstance(path_or_text, str) and "\n" not in path_or_text and "=" not in path_or_text
    ):
        path = os.fspath(path_or_text)
        source = os.path.basename(path)
        data = read_checked(path, name="tileset file", limit=MAX_FILE_BYTES)
        return source, parse_toml(data.decode("utf-8", errors="replace"), source=source)
    if isinstance(path_or_text, str):
        return "tileset", parse_toml(path_or_text, source="tileset")
    raise ParameterError(f"tileset must be a path or TOML text, got {type(path_or_text).__name__}")


def load_tileset(path_or_text: str | os.PathLike[str]) -> Tileset:
    """Read a TOML tileset (a file path or the text itself) into a :class:`Tileset`.

    Raises :class:`ParameterError` with a one-line message naming the file and the key.

    Examples
    --------
    >>> ts = load_tileset('''
    ... [[tile]]
    ... name = "line"
    ... symmetry = "I"
    ... sockets = { north = "p", south = "p", east = "0", west = "0" }
    ... [[tile]]
    ... name = "empty"
    ... symmetry = "X"
    ... sockets = { north = "0", south = "0", east = "0", west = "0" }
    ... ''')
    >>> ts.names
    ('line 0', 'line 1', 'empty')
    >>> bool(ts.compatible[1, 0, 0]), bool(ts.compatible[0, 0, 0]), bool(ts.compatible[0, 0, 1])
    (True, True, False)
    """
    source, doc = _read(path_or_text)
    known = {"name", "description", "tile", "neighbor", "ground", "sky", "edge"}
    for key in doc:
        if key not in known:
            _fail(source, f"unknown key {short(key)} (allowed: {', '.join(sorted(known))})")
    name = doc.get("name", source)
    if not isinstance(name, str):
        _fail(source, f"name must be a string, got {short(name)}")
    tiles = doc.get("tile")
    if not isinstance(tiles, list) or not tiles or not all(isinstance(t, dict) for t in tiles):
        _fail(source, "tile must be a non-empty array of tables ([[tile]])")
    names: list[str]
    weights: list[float]
    owner: list[str]
    turns: list[int]
    mirrored: list[bool]
    sockets: list[list[str] | None]
    classes: list[int]
    vertical: list[Any]
    names, weights, owner, turns, mirrored, sockets, classes, vertical = [], [], [], [], [], [], [], []
    first: dict[str, tuple[int, str]]
    seen: set[str]
    first, seen = {}, set()
    for i, t in enumerate(tiles):
        where = f"tile[{i}]"
        for key in t:
            if key not in TILE_KEYS:
                _fail(source, f"{where}: unknown key {short(key)} (allowed: {', '.join(TILE_KEYS)})")
        base = t.get("name")
        if not isinstance(base, str) or not base.strip():
            _fail(source, f"{where}.name must be a non-empty string, got {short(base)}")
        where = f"tile {base!r}"
        if base in seen:
            _fail(source, f"{where}: name used twice")
        seen.add(base)
        symmetry = t.get("symmetry", "X")
        if symmetry not in _VARIANTS:
            _fail(source, f"{where}.symmetry must be one of {', '.join(SYMMETRIES)}, got {short(symmetry)}")
        weight = t.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight < float("inf"):
            _fail(source, f"{where}.weight must be a number > 0, got {short(weight)}")
        kind = t.get("class", "floor")
        if kind not in CLASS_NAMES:
            _fail(source, f"{where}.class must be one of {', '.join(CLASS_NAMES)}, got {short(kind)}")
        sock, updown = t.get("sockets"), (None, None)
        if sock is not None:
            sock, updown = _check_sockets(source, where, sock, symmetry)
        firsts, _ = _VARIANTS[symmetry]
        first[base] = (len(names), symmetry)
        if len(names) + len(firsts) > MAX_VARIANTS:
            _fail(
                source,
                f"{where}: the tiles so far make more than {MAX_VARIANTS:,} variants (with their rotations and"
                " mirrors), more than the solver is made for: use fewer tiles or symmetric ones",
            )
        for k, g in enumerate(firsts):
            names.append(base if len(firsts) == 1 else f"{base} {k}")
            weights.append(float(weight))
            owner.append(base)
            turns.append(g % 4)
            mirrored.append(g >= 4)
            sockets.append(None if sock is None else _turned_sockets(sock, g))
            classes.append(CLASS_NAMES.index(kind))
            vertical.append(updown)
    if len(set(names)) < len(names):
        clash = next(n for n in names if names.count(n) > 1)
        _fail(source, f"tile names clash: the variant name {clash!r} is made twice (rename a tile)")
    p = len(names)
    compatible = np.zeros((4, p, p), bool)
    _add_sockets(compatible, sockets)
    _add_rules(compatible, doc.get("neighbor", []), first, source)
    layers = {key: _base_list(source, key, doc.get(key, []), first) for key in ("ground", "sky")}
    edge = doc.get("edge")
    if edge is not None and (not isinstance(edge, str) or not edge):
        _fail(source, f"edge must be a non-empty socket profile string, got {short(edge)}")
    compatible |= compatible[[2, 3, 0, 1]].transpose(0, 2, 1)
    return Tileset(
        name=name,
        names=tuple(names),
        weights=np.array(weights),
        compatible=compatible,
        base_names=tuple(owner),
        turns=np.array(turns, np.int64),
        mirrored=np.array(mirrored, bool),
        classes=np.array(classes, np.uint8),
        up=tuple(u for u, _ in vertical),
        down=tuple(d for _, d in vertical),
        ground=layers["ground"],
        sky=layers["sky"],
        sockets=tuple(None if x is None else tuple(x) for x in sockets),
        edge=edge,
    )


def _base_list(source: str, key: str, value: object, first: Mapping[str, tuple[int, str]]) -> tuple[str, ...]:
    """A tuple of known base tile names from a name or a list of names."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        _fail(source, f"{key} must be a tile name or a list of tile names, got {short(value)}")
    for n in names:
        if n not in first:
            _fail(source, f"{key}: unknown tile {short(n)} (tiles: {short(', '.join(sorted(first)), 200)})")
    return tuple(dict.fromkeys(names))


def _check_sockets(
    source: str, where: str, sock: Mapping[str, Any], symmetry: str
) -> tuple[list[str] | None, tuple[Any, Any]]:
    """(the four side sockets by direction or None, (up, down) or (None, None))."""
    if not isinstance(sock, dict):
        _fail(source, f"{where}.sockets must be a table {{ east, south, west, north, up, down }}, got {short(sock)}")
    for key in sock:
        if key not in SIDES + VERTICAL:
            _fail(source, f"{where}.sockets: unknown side {short(key)} (allowed: {', '.join(SIDES + VERTICAL)})")
    updown: tuple[Any, ...] = (None, None)
    if any(key in sock for key in VERTICAL):
        labels = []
        for key in VERTICAL:
            value = sock.get(key)
            values = value if isinstance(value, list) else [value]
            if not values or not all(isinstance(v, str) and v for v in values):
                _fail(
                    source,
                    f"{where}.sockets.{key} must be a non-empty string or list of them (up and down go together),"
                    f" got {short(value)}",
                )
            labels.append(tuple(sorted(set(values))))
        updown = tuple(labels)
        if not any(key in sock for key in SIDES):
            return None, updown
    out = []
    for side in SIDES:
        value = sock.get(side)
        if value is None:
            _fail(source, f"{where}.sockets.{side} is missing: a tile with sockets gives all of {', '.join(SIDES)}")
        if not isinstance(value, str) or not value:
            _fail(source, f"{where}.sockets.{side} must be a non-empty string, got {short(value)}")
        out.append(value)
    firsts, action = _VARIANTS[symmetry]
    for g in range(8):
        if action[0, g] == 0 and _turned_sockets(out, g) != out:
            _fail(
                source,
                f"{where}.sockets {dict(zip(SIDES, out))} do not have the symmetry of class {symmetry!r}",
            )
    return out, updown


def _turned_sockets(sock: Sequence[str], g: int) -> list[str]:
    """Sockets (by direction) of the base after symmetry ``g`` (mirroring reverses profiles)."""
    out: list[Any] = [None] * 4
    for d in range(4):
        out[_direction(d, g)] = sock[d][::-1] if g >= 4 else sock[d]
    return out


def _add_sockets(compatible: npt.NDArray[np.bool_], sockets: Sequence[Any]) -> None:
    have = [i for i, s in enumerate(sockets) if s is not None]
    if not have:
        return
    idx = np.array(have)
    for d in range(4):
        mine = np.array([sockets[i][d] for i in have], dtype=object)
        theirs = np.array([sockets[i][(d + 2) % 4][::-1] for i in have], dtype=object)
        compatible[d][np.ix_(idx, idx)] |= mine[:, None] == theirs[None, :]


def _variant(source: str, where: str, value: str, first: Mapping[str, tuple[int, str]]) -> tuple[int, str, int]:
    if not isinstance(value, str):
        _fail(source, f"{where} must be a tile name, got {short(value)}")
    base, _, k = value.rpartition(" ")
    if base in first and k.isascii() and k.isdigit():  # not '²', which int() refuses
        start, symmetry = first[base]
        n = len(_VARIANTS[symmetry][0])
        if len(k) > 2 or int(k) >= n:  # never int() of thousands of digits
            _fail(source, f"{where}: tile {base!r} (symmetry {symmetry!r}) has variants 0..{n - 1}, got {short(value)}")
        return start, symmetry, int(k)
    if value in first:
        start, symmetry = first[value]
        return start, symmetry, 0
    _fail(source, f"{where}: unknown tile {short(value)} (tiles: {', '.join(sorted(first))})")


def _add_rules(
    compatible: npt.NDArray[np.bool_],
    rules: Sequence[Mapping[str, str]],
    first: Mapping[str, tuple[int, str]],
    source: str,
) -> None:
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        _fail(source, "neighbor must be an array of tables ([[neighbor]] with left, right)")
    for i, rule in enumerate(rules):
        for key in rule:
            if key not in ("left", "right"):
                _fail(source, f"neighbor[{i}]: unknown key {short(key)} (allowed: left, right)")
        for key in ("left", "right"):
            if key not in rule:
                _fail(source, f"neighbor[{i}].{key} is missing")
        a = _variant(source, f"neighbor[{i}].left", rule["left"], first)
        b = _variant(source, f"neighbor[{i}].right", rule["right"], first)
        for g in range(8):
            da = a[0] + _VARIANTS[a[1]][1][a[2], g]
            db = b[0] + _VARIANTS[b[1]][1][b[2], g]
            compatible[_direction(0, g), da, db] = True
