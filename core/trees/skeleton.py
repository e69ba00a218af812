"""The data that flows between the L-system, the turtle and the tree mesher.

Three small frozen dataclasses, no logic beyond validation of shapes:

* `Word` -- an expanded L-system string.  One character per module; when any
  module carries parameters (parametric L-systems such as ``F(1.5)``),
  ``params`` holds one tuple of floats per module (empty for modules without).
* `Skeleton` -- what the 3-D turtle draws: a forest of nodes joined to their
  parents (every drawn ``F`` is one segment ``parent[i] -> i``), with the
  turtle frame and radius at each node, plus leaf cards (``~``) and the
  polygons of ``{ . }``.
* `LeafCards` -- where the turtle put leaves: position, heading, up, size.

Conventions: Blender's, Z up, metres.  The turtle starts at the origin heading
+Z (up), its "up" vector (ABOP's U) along -Y and "left" (L) along -X, so that
``H x L = U``.  Every node array has one row per node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError

__all__ = ["Word", "Skeleton", "LeafCards", "Polygon"]


@dataclass(frozen=True, slots=True, eq=False)
class Word:
    """An L-system string.

    Attributes
    ----------
    symbols : str
        One character per module, e.g. ``"F[+F]F"``.
    params : tuple of tuple of float, or None
        None when no module has parameters (the fast, non-parametric case);
        otherwise ``len(params) == len(symbols)`` and ``params[i]`` holds the
        actual parameters of module ``i`` (``()`` for a module without).
    """

    symbols: str
    params: tuple[tuple[float, ...], ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.symbols, str):
            raise ParameterError(f"symbols must be a str, got {type(self.symbols).__name__}")
        if self.params is not None and len(self.params) != len(self.symbols):
            raise ParameterError(
                f"params must have one entry per module ({len(self.symbols):,}), got {len(self.params):,}"
            )

    def __len__(self) -> int:
        return len(self.symbols)

    def __str__(self) -> str:
        """``F(1,0.5)[+A(2)]``-style text, parameters printed with ``repr``-free ``:g``."""
        if self.params is None:
            return self.symbols
        out = []
        for s, p in zip(self.symbols, self.params):
            out.append(s if not p else s + "(" + ",".join(f"{v:g}" for v in p) + ")")
        return "".join(out)


def _rows(value: object, name: str, n: int | None, width: int | None, dtype: npt.DTypeLike) -> None:
    if not isinstance(value, np.ndarray) or value.dtype != dtype:
        got = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
        raise ParameterError(f"{name} must be a {np.dtype(dtype)} array, got {got}")
    want = (n,) if width is None else (n, width)
    if value.shape != want:
        raise ParameterError(f"{name} must have shape {want}, got {value.shape}")


@dataclass(frozen=True, slots=True, eq=False)
class LeafCards:
    """Leaves placed by the turtle's ``~`` symbol (one row per leaf).

    positions, headings, ups : (L, 3) float64 -- attachment point, the leaf's
    axis (the turtle heading there, unit) and the leaf's normal side (turtle
    up, unit, orthogonal to the heading).  sizes : (L,) float64 -- leaf length
    in metres.  orders : (L,) int16 -- branch order where the leaf grew.
    """

    positions: npt.NDArray[np.float64]
    headings: npt.NDArray[np.float64]
    ups: npt.NDArray[np.float64]
    sizes: npt.NDArray[np.float64]
    orders: npt.NDArray[np.int16]

    def __post_init__(self) -> None:
        n = self.positions.shape[0] if isinstance(self.positions, np.ndarray) else -1
        for name in ("positions", "headings", "ups"):
            _rows(getattr(self, name), name, n, 3, np.float64)
        _rows(self.sizes, "sizes", n, None, np.float64)
        _rows(self.orders, "orders", n, None, np.int16)

    def __len__(self) -> int:
        return self.positions.shape[0]

    @classmethod
    def empty(cls) -> LeafCards:
        z3 = np.zeros((0, 3))
        return cls(z3, z3.copy(), z3.copy(), np.zeros(0), np.zeros(0, np.int16))


@dataclass(frozen=True, slots=True, eq=False)
class Polygon:
    """A polygon drawn between ``{`` and ``}``: (k, 3) float64 vertices (k >= 3),
    the colour index (``'`` increments it) and the branch order where it was drawn."""

    vertices: npt.NDArray[np.float64]
    colour: int = 0
    order: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class Skeleton:
    """The turtle's drawing as a node tree.

    Attributes
    ----------
    positions : (N, 3) float64
        Node positions.
    headings, ups : (N, 3) float64
        Unit turtle heading H and up U at each node (orthogonal).  For a node
        that ends a segment this is the frame the segment was drawn with; ring
        orientation in the mesher follows these to avoid twisting.
    radii : (N,) float64
        Branch radius at the node (from the turtle width, ``!``, order decay).
    parents : (N,) int64
        Index of the node this one was drawn from, -1 for a root (the start
        of the drawing or after a ``f``/``[`` that moved without drawing).
        Always ``parents[i] < i``.
    orders : (N,) int16
        Branch order: 0 on the trunk, +1 for each ``[`` entered.
    leaves : LeafCards
    polygons : tuple of Polygon
    """

    positions: npt.NDArray[np.float64]
    headings: npt.NDArray[np.float64]
    ups: npt.NDArray[np.float64]
    radii: npt.NDArray[np.float64]
    parents: npt.NDArray[np.int64]
    orders: npt.NDArray[np.int16]
    leaves: LeafCards = field(default_factory=LeafCards.empty)
    polygons: tuple[Polygon, ...] = ()

    def __post_init__(self) -> None:
        n = self.positions.shape[0] if isinstance(self.positions, np.ndarray) else -1
        for name in ("positions", "headings", "ups"):
            _rows(getattr(self, name), name, n, 3, np.float64)
        _rows(self.radii, "radii", n, None, np.float64)
        _rows(self.parents, "parents", n, None, np.int64)
        _rows(self.orders, "orders", n, None, np.int16)
        if n and np.any(self.parents >= np.arange(n)):
            raise ParameterError("parents must satisfy parents[i] < i (nodes in drawing order)")

    @property
    def n_nodes(self) -> int:
        return self.positions.shape[0]

    @property
    def n_segments(self) -> int:
        """Number of drawn segments (nodes with a parent)."""
        return int(np.count_nonzero(self.parents >= 0))
