"""The 3-D turtle: reads an L-system `Word` and draws a `Skeleton` (ABOP section 1.5).

The turtle starts at the origin with heading H = +Z (trees grow up), left
L = -X and up U = -Y, so ``H x L = U`` and a 2-D ABOP figure appears in the XZ
plane as Blender's front view shows it, ``+`` turning to the viewer's left.

Symbols (every other character, e.g. ``A``, ``X``, ``L``, ``S``, is ignored)::

    F  G   move forward one step and draw a segment   f   move without drawing
    +  -   turn left / right (about U; + turns H toward L)
    &  ^   pitch down / up (about L; & turns H toward -U)
    \\  /   roll left / right (about H; \\ turns L toward -U)
    |      turn around (180 degrees about U)
           (the rotations are ABOP's R_U, R_L, R_H applied to the frame rows [H; L; U])
    $      roll so that L is horizontal (L = Z x H, normalised; U = H x L);
           nothing when H is vertical
    [  ]   push / pop position, frame, width, step, colour and current node
    !      width *= width_decay               '   colour index += 1
    "      step *= length_decay               ~   leaf card here (size leaf_size)
    {  .  } start a polygon / record a vertex / close it     %   cut the rest of the branch

Parametric forms (first parameter used, others ignored): ``F(l) f(l) G(l)``
move by ``l`` (a negative ``l`` moves backwards); ``+(a) -(a) &(a) ^(a) \\(a)
/(a)`` rotate by ``a`` degrees; ``!(w)`` sets the width (a diameter) to ``w``;
``'(c)`` sets the colour index to ``int(c)``; ``~(s)`` makes a leaf of size
``s``; ``"(x)`` multiplies the step by ``x``.

Nodes and segments: a drawing move (``F``, ``G``) outside a polygon ends at a
new node whose parent is the *current node*; when there is none (at the start,
after ``f``, after a polygon moved the turtle) a root node (parent -1) is made
first where the move starts.  ``[`` saves the current node and ``]`` restores
it, so a branch hangs off the node where its ``[`` was met.  A node stores the
frame its segment was drawn with, the radius ``width / 2`` at that moment and
the bracket depth as its order.  Zero-length moves are skipped.

Polygons: ``{`` records the turtle position, then each ``F``/``f`` move and
each ``.`` records a vertex (``G`` moves without recording); moves inside a
polygon make no nodes.  ``}`` drops repeated consecutive vertices and a last
vertex equal to the first, and keeps the polygon if 3 or more remain.  ``{``
nests (a stack); an unclosed ``{`` at the end of the word is dropped.

Tropism (ABOP p. 58): after each drawing move the frame turns about H x T by
``tropism_strength * |H x T|`` radians, bending H toward T (gravity, with
the default T = -Z and a positive strength).  Jitter: every rotation angle
gets a normal perturbation with standard deviation ``jitter`` degrees
(clipped to 3 standard deviations) and every drawing move a pitch and a roll
of ``MOVE_JITTER`` times that size before it is drawn.  The draws are made up
front, two per interpreted module, so ignored symbols never shift the stream.

Width and length: ``width`` is the diameter; ``!`` multiplies it by
``width_decay``, ``"`` multiplies the step by ``length_decay``, and each ``[``
multiplies the width by ``order_width_ratio`` and the step by
``order_length_ratio`` (branch-order decay, off by default since ABOP's plants
taper with ``!``); ``]`` restores both.
"""

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._checks import Seed, check_float, check_int, make_rng
from ..errors import ParameterError
from ._turtle import close_polygons, module_table, walk
from .skeleton import LeafCards, Polygon, Skeleton, Word

__all__ = [
    "ANGLE",
    "STEP",
    "WIDTH",
    "RATIO",
    "TROPISM_STRENGTH",
    "JITTER",
    "LEAF_SIZE",
    "MAX_NODES",
    "MAX_NODES_DEFAULT",
    "MOVE_JITTER",
    "interpret",
]

#: Default turning angle, degrees.
ANGLE = (-360.0, 360.0)
#: Step length in metres (the low end is excluded).
STEP = (0.0, 1e4)
#: Initial branch diameter in metres.
WIDTH = (0.0, 1e3)
#: Decay factors and order ratios (the low end is excluded).
RATIO = (0.0, 1.5)
#: Tropism strength ``e`` (negative turns away from T).
TROPISM_STRENGTH = (-1.0, 1.0)
#: Standard deviation of the angle jitter, degrees.
JITTER = (0.0, 90.0)
#: Size of a leaf card made by ``~`` without a parameter, metres.
LEAF_SIZE = (0.0, 1e3)
#: Allowed values of ``max_nodes`` and its default.
MAX_NODES = (1, 20_000_000)
MAX_NODES_DEFAULT = 2_000_000
#: Jitter of a drawing move's pitch and roll, relative to ``jitter``.
MOVE_JITTER = 0.2

_INT16_MAX = np.iinfo(np.int16).max


def interpret(
    word: Word | str,
    *,
    angle: float = 25.0,
    step: float = 1.0,
    width: float = 0.1,
    width_decay: float = 0.7,
    order_width_ratio: float = 1.0,
    order_length_ratio: float = 1.0,
    length_decay: float = 1.0,
    tropism: Sequence[float] = (0.0, 0.0, -1.0),
    tropism_strength: float = 0.0,
    jitter: float = 0.0,
    leaf_size: float = 0.3,
    seed: Seed = 0,
    max_nodes: int = MAX_NODES_DEFAULT,
) -> Skeleton:
    """Draw ``word`` with the 3-D turtle.

    Parameters
    ----------
    word : Word
        The L-system string (see the module docstring for the symbols).
    angle : float
        Turning angle of ``+ - & ^ \\ /`` without parameters, degrees, within ``ANGLE``.
    step : float
        Length of ``F f G`` without parameters, metres, within ``STEP`` (> 0).
    width : float
        Initial branch diameter, metres, within ``WIDTH``; radii are half of it.
    width_decay : float
        Factor applied to the width by ``!``, within ``RATIO``.
    order_width_ratio, order_length_ratio : float
        Factors applied to the width and the step by each ``[`` (branch
        order decay; 1 turns it off), within ``RATIO``.
    length_decay : float
        Factor applied to the step by ``"``, within ``RATIO``.
    tropism : (3,) sequence of float
        Direction T the branches bend toward (normalised here); the zero
        vector only with ``tropism_strength == 0``.
    tropism_strength : float
        ABOP's susceptibility ``e``, within ``TROPISM_STRENGTH``.
    jitter : float
        Standard deviation of the random angle perturbation, degrees, within
        ``JITTER``; 0 draws nothing and ignores ``seed``.
    leaf_size : float
        Size of the leaves made by ``~``, metres, within ``LEAF_SIZE``.
    seed : int or numpy.random.Generator
        Source of the jitter; the same seed gives the same bytes.
    max_nodes : int
        Most drawing modules (``F`` and ``G``) the word may hold, within
        ``MAX_NODES``; checked before any work.  Every drawing module makes at
        most one segment, and the skeleton has at most one root per segment.

    Returns
    -------
    Skeleton
        Nodes in drawing order (``parents[i] < i``), leaf cards and polygons.

    Raises
    ------
    ParameterError
        An option out of range, a non-finite or out-of-range module
        parameter, an unbalanced ``]`` or ``}``, or too many drawing modules.

    Examples
    --------
    >>> sk = interpret(Word("F+F+F+F"), angle=90.0)
    >>> sk.n_segments, sk.n_nodes
    (4, 5)
    >>> bool(np.allclose(sk.positions[-1], 0.0, atol=1e-12))
    True
    >>> interpret(Word("F[+F]F"), angle=90.0).parents.tolist()
    [-1, 0, 1, 1]
    """
    if not isinstance(word, Word):
        raise ParameterError(f"word must be a Word, got {type(word).__name__}")
    angle = check_float(angle, name="angle", bounds=ANGLE)
    step = check_float(step, name="step", bounds=STEP, open_low=True)
    width = check_float(width, name="width", bounds=WIDTH)
    width_decay = check_float(width_decay, name="width_decay", bounds=RATIO, open_low=True)
    order_width_ratio = check_float(order_width_ratio, name="order_width_ratio", bounds=RATIO, open_low=True)
    order_length_ratio = check_float(order_length_ratio, name="order_length_ratio", bounds=RATIO, open_low=True)
    length_decay = check_float(length_decay, name="length_decay", bounds=RATIO, open_low=True)
    tropism_strength = check_float(tropism_strength, name="tropism_strength", bounds=TROPISM_STRENGTH)
    tropism = _check_tropism(tropism, tropism_strength)
    jitter = check_float(jitter, name="jitter", bounds=JITTER)
    leaf_size = check_float(leaf_size, name="leaf_size", bounds=LEAF_SIZE)
    rng = make_rng(seed)
    max_nodes = check_int(max_nodes, name="max_nodes", bounds=MAX_NODES)
    draws = word.symbols.count("F") + word.symbols.count("G")
    if draws > max_nodes:
        raise ParameterError(
            f"the word has {draws:,} drawing modules (F, G), more than max_nodes = "
            f"{max_nodes:,}; raise max_nodes (at most {MAX_NODES[1]:,}) or derive fewer steps"
        )

    def jitter_draws(n: int) -> npt.NDArray[np.float64]:
        return np.clip(rng.standard_normal((n, 2)), -3.0, 3.0) * jitter

    ops, index, cos1, sin1, cos2, sin2, args = module_table(
        word, angle=angle, jitter_draws=jitter_draws if jitter > 0 else None, move_jitter=MOVE_JITTER
    )
    nodes, leaves, polygons = walk(
        ops,
        index,
        cos1,
        sin1,
        cos2,
        sin2,
        args,
        symbols=word.symbols,
        step=step,
        width=width,
        width_decay=width_decay,
        length_decay=length_decay,
        order_width_ratio=order_width_ratio,
        order_length_ratio=order_length_ratio,
        tropism=tropism,
        tropism_strength=tropism_strength if any(tropism) else 0.0,
        leaf_size=leaf_size,
    )

    return Skeleton(
        positions=np.array(nodes["position"]),
        headings=np.array(nodes["heading"]),
        ups=np.array(nodes["up"]),
        radii=nodes["width"] * 0.5,
        parents=np.array(nodes["parent"]),
        orders=np.minimum(nodes["order"], _INT16_MAX).astype(np.int16),
        leaves=LeafCards(
            positions=np.array(leaves["position"]),
            headings=np.array(leaves["heading"]),
            ups=np.array(leaves["up"]),
            sizes=np.array(leaves["size"]),
            orders=np.minimum(leaves["order"], _INT16_MAX).astype(np.int16),
        ),
        polygons=tuple(
            Polygon(vertices=v, colour=int(c), order=int(min(o, _INT16_MAX))) for v, c, o in close_polygons(polygons)
        ),
    )


def _check_tropism(tropism: Any, strength: float) -> tuple[float, float, float]:
    """T as a unit 3-tuple of floats (zero allowed only when ``strength`` is 0)."""
    try:
        values = tuple(tropism)
    except TypeError:
        raise ParameterError(f"tropism must be a 3-vector of numbers, got {tropism!r}") from None
    if len(values) != 3:
        raise ParameterError(f"tropism must be a 3-vector of numbers, got {tropism!r}")
    tx, ty, tz = (check_float(v, name=f"tropism[{i}]") for i, v in enumerate(values))
    norm = math.sqrt(tx * tx + ty * ty + tz * tz)  # not math.hypot: the C library's
    if norm == 0.0:
        if strength != 0.0:
            raise ParameterError(f"tropism must not be the zero vector when tropism_strength is {strength:g}")
        return 0.0, 0.0, 0.0
    return tx / norm, ty / norm, tz / norm
