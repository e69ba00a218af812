"""The turtle's inner machinery: the module table, the sequential walk, polygon clean-up.

`interpret` in ``core.turtle`` validates the options and calls, in order:

1. `module_table` -- picks the interpreted modules out of the word with numpy
   (every other symbol is dropped here, so runs of ``A``/``X``/``L`` cost
   nothing in the loop) and folds rotation angles, parameters and jitter into
   per-module lists: ``cos``/``sin`` of the rotation (or of the jitter pitch
   of a drawing move), ``cos``/``sin`` of the jitter roll, and the first
   parameter (NaN when the module has none).  A run of rotations about the
   same axis (``/////``, ``-|-``, ``^^``) becomes one rotation by the summed
   angle: that axis does not move while the frame turns about it.
2. `walk` -- the sequential interpreter: plain float locals for the frame,
   one ``if`` chain on a one-letter opcode, one packed record per node
   (``struct``), turned into a structured array once at the end.
3. `close_polygons` -- drops repeated vertices of every polygon at once.

Opcodes (one ASCII letter per interpreted module)::

    F  draw move (F or G; G differs only inside a polygon)   f  move without drawing
    y  rotation about U (+ - |)    p  about L (& ^)    r  about H (\\ /)    $  roll to horizontal
    [ ]  push / pop    ! width    ' colour    " step    ~ leaf    { . }  polygon    %  cut

Frame algebra (H x L = U, all unit, right-handed in the order H, L, U); for an
angle a with c = cos a, s = sin a::

    yaw   (about U):  H' = c H + s L     L' = c L - s H      (+: heading turns toward L)
    pitch (about L):  H' = c H - s U     U' = c U + s H      (&: heading turns toward -U)
    roll  (about H):  L' = c L - s U     U' = c U + s L      (\\: L dips toward -U)
"""

import math
import struct
from collections.abc import Callable, Sequence
from itertools import chain, compress, islice
from operator import itemgetter
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .. import exact
from ..errors import ParameterError
from .skeleton import Word

#: What :func:`module_table` returns and :func:`walk` takes: ``(ops, index, cos1, sin1, cos2, sin2, args)``.
ModuleTable: TypeAlias = tuple[
    str, npt.NDArray[np.int64], list[float], list[float], list[float] | None, list[float] | None, list[float]
]

#: Symbols the turtle reads; every other character is ignored.
SYMBOLS = "FGf+-|&^\\/$[]!'\"~{.}%"
#: One packed record per node: position, heading, up, width (the diameter), parent, order.
NODE_RECORD = np.dtype(
    [
        ("position", "<f8", 3),
        ("heading", "<f8", 3),
        ("up", "<f8", 3),
        ("width", "<f8"),
        ("parent", "<i8"),
        ("order", "<i8"),
    ]
)
#: One packed record per leaf: position, heading, up, size, order.
LEAF_RECORD = np.dtype(
    [("position", "<f8", 3), ("heading", "<f8", 3), ("up", "<f8", 3), ("size", "<f8"), ("order", "<i8")]
)
_pack_node = struct.Struct("<10d2q").pack
_pack_leaf = struct.Struct("<10dq").pack

_OPCODE = {"F": "F", "G": "F", "f": "f", "+": "y", "-": "y", "|": "y", "&": "p", "^": "p", "\\": "r", "/": "r"}
_SIGN = {"+": 1.0, "-": -1.0, "&": 1.0, "^": -1.0, "\\": 1.0, "/": -1.0}
# Parameters that must be finite and within a range: symbol -> (lowest, strict, what).
_PARAM_RANGE = {
    "!": (0.0, False, "a width >= 0"),
    "~": (0.0, False, "a leaf size >= 0"),
    "'": (0.0, False, "a colour index >= 0"),
    '"': (0.0, True, "a step factor > 0"),
}

_LUT_OP = np.zeros(128, np.uint8)  # code point -> opcode byte (0 = ignored)
_LUT_SIGN = np.zeros(128)  # code point -> rotation sign (0 = not a signed rotation)
for _ch in SYMBOLS:
    _LUT_OP[ord(_ch)] = ord(_OPCODE.get(_ch, _ch))
    _LUT_SIGN[ord(_ch)] = _SIGN.get(_ch, 0.0)


def module_table(
    word: Word, *, angle: float, jitter_draws: Callable[[int], npt.NDArray[np.float64]] | None, move_jitter: float
) -> ModuleTable:
    """The interpreted modules of ``word`` and their precomputed numbers.

    Parameters
    ----------
    word : Word
    angle : float
        Default rotation angle, degrees.
    jitter_draws : callable or None
        ``jitter_draws(n)`` returns an ``(n, 2)`` float64 array of angle
        perturbations in degrees (one row per interpreted module), or None
        for no jitter.
    move_jitter : float
        Factor applied to the jitter of drawing moves (their pitch and roll).

    Returns
    -------
    ops : str
        One opcode per interpreted module (see the module docstring), runs
        of rotations about one axis merged into their first module.
    index : (M,) int64 ndarray
        Module index in the word of each opcode.
    cos1, sin1 : list of float
        Rotation of each rotation module; jitter pitch of each drawing move.
    cos2, sin2 : list of float or None
        Jitter roll of each drawing move (None without jitter).
    args : list of float
        First parameter of each module, NaN when it has none.
    """
    symbols = word.symbols
    codes = np.frombuffer(symbols.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    codes = np.minimum(codes, 127)  # any non-ASCII symbol is ignored
    index = np.flatnonzero(_LUT_OP[codes])
    codes = codes[index]
    m = index.size

    args = np.full(m, np.nan)
    if word.params is not None and m:
        params = word.params
        try:  # C-level iteration: itemgetter, map, compress
            chosen = [params[int(index[0])]] if m == 1 else itemgetter(*index.tolist())(params)
            has = np.fromiter(map(len, chosen), np.int64, m) > 0
            where = np.flatnonzero(has)
            values = np.fromiter(map(itemgetter(0), compress(chosen, has.tolist())), np.float64, where.size)
        except (TypeError, ValueError, IndexError):
            raise ParameterError("word.params must hold one tuple of numbers per module") from None
        _check_params(index[where], codes[where], values)
        args[where] = values

    sign = _LUT_SIGN[codes]
    degrees = np.where(np.isnan(args), angle, args) * sign
    degrees[codes == ord("|")] = 180.0
    rotation = sign != 0
    rotation |= codes == ord("|")
    roll = None
    if jitter_draws is not None and m:
        draws = jitter_draws(m)
        draw = codes == ord("F")
        draw |= codes == ord("G")
        degrees = np.where(rotation, degrees + draws[:, 0], np.where(draw, draws[:, 0] * move_jitter, 0.0))
        roll = np.where(draw, draws[:, 1] * move_jitter, 0.0)

    # A run of rotations about the same axis is one rotation by the summed angle (the axis does not move).
    opcodes = _LUT_OP[codes]
    keep = np.ones(m, bool)
    keep[1:] = ~(rotation[1:] & (opcodes[1:] == opcodes[:-1]))
    if not keep.all():
        first = np.flatnonzero(keep)
        degrees = np.add.reduceat(degrees, first)
        index, opcodes, args = index[first], opcodes[first], args[first]
        if roll is not None:
            roll = roll[first]  # drawing moves are never merged
    ops = opcodes.tobytes().decode("ascii")
    sin1, cos1 = (v.tolist() for v in exact.sincos(np.radians(degrees)))
    cos2 = sin2 = None
    if roll is not None:
        sin2, cos2 = (v.tolist() for v in exact.sincos(np.radians(roll)))
    numbers = args.tolist() if word.params is not None else [math.nan] * len(ops)
    return ops, index, cos1, sin1, cos2, sin2, numbers


def _check_params(
    index: npt.NDArray[np.int64], codes: npt.NDArray[np.integer[Any]], values: npt.NDArray[np.float64]
) -> None:
    """Refuse non-finite first parameters and out-of-range widths, sizes, colours and step factors."""
    bad = ~np.isfinite(values)
    if bad.any():
        j = int(np.argmax(bad))
        raise ParameterError(f"module {int(index[j])} ({chr(codes[j])!r}) has a non-finite parameter, got {values[j]}")
    for ch, (low, strict, what) in _PARAM_RANGE.items():
        bad = (codes == ord(ch)) & ((values <= low) if strict else (values < low))
        if bad.any():
            j = int(np.argmax(bad))
            raise ParameterError(f"module {int(index[j])} ({ch!r}) needs {what}, got {values[j]:g}")


def walk(
    ops: str,
    index: npt.NDArray[np.int64],
    cos1: Sequence[float],
    sin1: Sequence[float],
    cos2: Sequence[float] | None,
    sin2: Sequence[float] | None,
    args: Sequence[float],
    *,
    symbols: str,
    step: float,
    width: float,
    width_decay: float,
    length_decay: float,
    order_width_ratio: float,
    order_length_ratio: float,
    tropism: tuple[float, float, float],
    tropism_strength: float,
    leaf_size: float,
) -> tuple[npt.NDArray[np.void], npt.NDArray[np.void], list[list[Any]]]:
    """Run the turtle over the module table (the arguments `module_table` returns).

    Returns
    -------
    nodes : (N,) NODE_RECORD ndarray
        In drawing order.
    leaves : (L,) LEAF_RECORD ndarray
    polygons : list of [list of float, int, int]
        The closed polygons: flat vertex coordinates as recorded, colour, order.
    """
    x = y = z = 0.0
    hx, hy, hz = 0.0, 0.0, 1.0  # heading H
    lx, ly, lz = -1.0, 0.0, 0.0  # left L
    ux, uy, uz = 0.0, -1.0, 0.0  # up U = H x L
    tx, ty, tz = tropism
    e = tropism_strength
    jitter = cos2 is not None
    cur = -1  # the node at the turtle's position, -1 for none
    n = 0  # nodes so far
    depth = 0
    colour = 0
    stack: list[tuple[Any, ...]] = []
    push, pop = stack.append, stack.pop
    nodes: list[bytes]
    leaves: list[bytes]
    nodes, leaves = [], []
    add_node, add_leaf = nodes.append, leaves.append
    pack_node, pack_leaf = _pack_node, _pack_leaf
    open_polygons: list[list[Any]]
    polygons: list[list[Any]]
    open_polygons, polygons = [], []  # stack of [vertices, colour, order]; closed ones

    it = iter(enumerate(ops))
    for k, ch in it:
        if ch == "F":
            length = args[k]
            if length != length:
                length = step
            if open_polygons:  # polygon edge: record (F) or not (G), no node
                x += hx * length
                y += hy * length
                z += hz * length
                cur = -1
                if symbols[index[k]] == "F":
                    open_polygons[-1][0].extend((x, y, z))
                continue
            if length == 0.0:
                continue
            if jitter:
                c, s = cos1[k], sin1[k]  # pitch, then roll
                hx, hy, hz, ux, uy, uz = (
                    c * hx - s * ux,
                    c * hy - s * uy,
                    c * hz - s * uz,
                    c * ux + s * hx,
                    c * uy + s * hy,
                    c * uz + s * hz,
                )
                c, s = cos2[k], sin2[k]  # type: ignore[index]  # with jitter they are given
                lx, ly, lz, ux, uy, uz = (
                    c * lx - s * ux,
                    c * ly - s * uy,
                    c * lz - s * uz,
                    c * ux + s * lx,
                    c * uy + s * ly,
                    c * uz + s * lz,
                )
            if cur < 0:
                add_node(pack_node(x, y, z, hx, hy, hz, ux, uy, uz, width, -1, depth))
                cur = n
                n += 1
            x += hx * length
            y += hy * length
            z += hz * length
            add_node(pack_node(x, y, z, hx, hy, hz, ux, uy, uz, width, cur, depth))
            cur = n
            n += 1
            if e:  # tropism: turn H toward T by e |H x T| about H x T
                th = tx * hx + ty * hy + tz * hz
                tl = tx * lx + ty * ly + tz * lz
                tu = tx * ux + ty * uy + tz * uz
                m = math.sqrt(tl * tl + tu * tu)  # |H x T|
                if m > 1e-12:
                    a = e * m
                    s, c = exact.sincos(a)
                    px, py, pz = (tx - th * hx) / m, (ty - th * hy) / m, (tz - th * hz) / m  # T's part normal to H
                    qx, qy, qz = (c - 1.0) * px - s * hx, (c - 1.0) * py - s * hy, (c - 1.0) * pz - s * hz
                    hx, hy, hz = c * hx + s * px, c * hy + s * py, c * hz + s * pz
                    kl, ku = tl / m, tu / m  # L.p and U.p
                    lx, ly, lz = lx + kl * qx, ly + kl * qy, lz + kl * qz
                    ux, uy, uz = ux + ku * qx, uy + ku * qy, uz + ku * qz
        elif ch == "y":
            c, s = cos1[k], sin1[k]
            hx, hy, hz, lx, ly, lz = (
                c * hx + s * lx,
                c * hy + s * ly,
                c * hz + s * lz,
                c * lx - s * hx,
                c * ly - s * hy,
                c * lz - s * hz,
            )
        elif ch == "[":
            push((x, y, z, hx, hy, hz, lx, ly, lz, ux, uy, uz, width, step, colour, cur))
            depth += 1
            width *= order_width_ratio
            step *= order_length_ratio
        elif ch == "]":
            if not stack:
                raise ParameterError(f"unbalanced ']' at module {int(index[k])}: no '[' is open")
            x, y, z, hx, hy, hz, lx, ly, lz, ux, uy, uz, width, step, colour, cur = pop()
            depth -= 1
        elif ch == "p":
            c, s = cos1[k], sin1[k]
            hx, hy, hz, ux, uy, uz = (
                c * hx - s * ux,
                c * hy - s * uy,
                c * hz - s * uz,
                c * ux + s * hx,
                c * uy + s * hy,
                c * uz + s * hz,
            )
        elif ch == "r":
            c, s = cos1[k], sin1[k]
            lx, ly, lz, ux, uy, uz = (
                c * lx - s * ux,
                c * ly - s * uy,
                c * lz - s * uz,
                c * ux + s * lx,
                c * uy + s * ly,
                c * uz + s * lz,
            )
        elif ch == "f":
            length = args[k]
            if length != length:
                length = step
            x += hx * length
            y += hy * length
            z += hz * length
            cur = -1
            if open_polygons:
                open_polygons[-1][0].extend((x, y, z))
        elif ch == "!":
            w = args[k]
            width = width * width_decay if w != w else w
        elif ch == "'":
            c = args[k]
            colour = colour + 1 if c != c else int(c)
        elif ch == "~":
            size = args[k]
            add_leaf(pack_leaf(x, y, z, hx, hy, hz, ux, uy, uz, leaf_size if size != size else size, depth))
        elif ch == '"':
            f = args[k]
            step *= length_decay if f != f else f
        elif ch == "$":  # L = V x H / |V x H| with V = +Z; U = H x L
            m = exact.hypot(hx, hy)
            if m > 1e-9:
                lx, ly, lz = -hy / m, hx / m, 0.0
                ux, uy, uz = -hz * ly, hz * lx, hx * ly - hy * lx
        elif ch == "{":
            open_polygons.append([[x, y, z], colour, depth])
        elif ch == "}":
            if not open_polygons:
                raise ParameterError(f"unbalanced '}}' at module {int(index[k])}: no '{{' is open")
            polygons.append(open_polygons.pop())
        elif ch == ".":
            if open_polygons:
                open_polygons[-1][0].extend((x, y, z))
        elif ch == "%":  # cut: skip to the ']' closing this branch
            if not stack:
                break
            j, level, end = k + 1, 0, len(ops)
            while j < end:
                o = ops[j]
                if o == "]":
                    if level == 0:
                        break
                    level -= 1
                elif o == "[":
                    level += 1
                j += 1
            next(islice(it, j - k - 1, j - k - 1), None)
    return (np.frombuffer(b"".join(nodes), NODE_RECORD), np.frombuffer(b"".join(leaves), LEAF_RECORD), polygons)


def close_polygons(
    polygons: Sequence[Sequence[Any]], *, tolerance: float = 1e-9
) -> list[tuple[npt.NDArray[np.float64], int, int]]:
    """Clean every polygon at once; returns ``(vertices, colour, order)`` of those with >= 3 vertices.

    ``polygons`` holds ``[flat coordinates, colour, order]`` as `walk` makes
    them.  A vertex equal to the one before it (each coordinate within
    ``tolerance * max(1, largest |coordinate| of the two)``) is dropped, and
    so is a last vertex equal to the first.  ``vertices`` are (k, 3) float64
    views into one array.
    """
    if not polygons:
        return []
    counts = np.array([len(p[0]) // 3 for p in polygons])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    total = int(counts.sum())
    flat = np.fromiter(chain.from_iterable(p[0] for p in polygons), np.float64, 3 * total).reshape(total, 3)
    scale = tolerance * np.maximum(1.0, np.abs(flat).max(axis=1))

    def same(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        return np.abs(flat[a] - flat[b]).max(axis=1) <= np.maximum(scale[a], scale[b])

    keep = np.ones(total, bool)
    keep[1:] = ~same(np.arange(1, total), np.arange(total - 1))
    keep[starts] = True  # the first vertex of each polygon stays
    last = np.maximum.reduceat(np.where(keep, np.arange(total), -1), starts)
    closing = (last != starts) & same(last, starts)
    keep[last[closing]] = False
    kept = np.add.reduceat(keep, starts)
    vertices = flat[keep]
    ends = np.cumsum(kept).tolist()
    return [(vertices[end - c : end], p[1], p[2]) for end, c, p in zip(ends, kept.tolist(), polygons) if c >= 3]
