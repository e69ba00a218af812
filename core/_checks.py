"""Parameter validation shared by every core entry point.

Each check names the parameter, shows the value and states what is allowed,
and runs before any work or allocation, e.g.::

    octaves must be an integer in [1, 16], got 40

They raise :class:`core.errors.ParameterError` (the one public error type).
"""

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .errors import ParameterError, short

__all__ = [
    "check_int",
    "check_float",
    "check_choice",
    "check_bool",
    "check_shape",
    "check_array",
    "check_heights",
    "check_pair",
    "make_rng",
    "check_limited",
    "check_object_name",
]

#: Largest number of cells any 2-D grid may have (8193 x 8193, about 67 M);
#: a float32 grid of that size is 268 MB and generators keep a few of them.
MAX_CELLS = 8193 * 8193
#: A closed interval; None is an open end.
Bounds: TypeAlias = tuple[float | None, float | None]
#: What a generator's ``seed`` may be: an int >= 0 or a generator already made (see :func:`make_rng`).
Seed: TypeAlias = int | np.random.Generator


def _fmt_bounds(bounds: Bounds, integer: bool = False) -> tuple[str, str]:
    lo, hi = bounds
    lo_s = "-inf" if lo is None else (str(int(lo)) if integer else f"{lo:g}")
    hi_s = "inf" if hi is None else (str(int(hi)) if integer else f"{hi:g}")
    return lo_s, hi_s


def _shown_int(value: int) -> str:
    """An int for a message: itself, or how many digits it has when it is too long to show.

    >>> _shown_int(40), _shown_int(10**400)
    ('40', 'an integer of 401 digits')
    """
    if -(10**18) < value < 10**18:
        return str(value)
    digits = len(str(abs(value))) if value.bit_length() < 4000 else int(value.bit_length() * math.log10(2)) + 1
    return f"an integer of {'about ' if value.bit_length() >= 4000 else ''}{digits:,} digits"


def check_int(value: Any, *, name: str, bounds: Bounds = (None, None)) -> int:
    """Return ``value`` as an int in the closed interval ``bounds`` (None = open end).

    >>> check_int(3, name="octaves", bounds=(1, 16))
    3
    """
    lo, hi = bounds
    lo_s, hi_s = _fmt_bounds(bounds, integer=True)
    allowed = f"an integer in [{lo_s}, {hi_s}]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if (
            isinstance(value, numbers.Real)
            and not isinstance(value, (bool, np.bool_))
            and math.isfinite(float(value))
            and float(value).is_integer()
        ):
            value = int(value)  # type: ignore[call-overload]  # typeshed's numbers.Real has no __int__
        else:
            raise ParameterError(f"{name} must be {allowed}, got {short(value)}")
    number = int(value)
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        raise ParameterError(f"{name} must be {allowed}, got {_shown_int(number)}")
    return number


def check_float(
    value: Any, *, name: str, bounds: Bounds = (None, None), open_low: bool = False, open_high: bool = False
) -> float:
    """Return ``value`` as a finite float within ``bounds``.

    ``open_low``/``open_high`` exclude the end points.

    >>> check_float(0.5, name="persistence", bounds=(0.0, 1.0))
    0.5
    """
    lo, hi = bounds
    lo_s, hi_s = _fmt_bounds(bounds)
    allowed = f"a finite number in {'(' if open_low else '['}{lo_s}, {hi_s}{')' if open_high else ']'}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be {allowed}, got {short(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float: 10**400
        raise ParameterError(f"{name} must be {allowed}, got {_shown_int(int(value))}") from None  # type: ignore[call-overload]  # an int here
    if not math.isfinite(number):
        raise ParameterError(f"{name} must be {allowed}, got {number}")
    if lo is not None and (number < lo or (open_low and number == lo)):
        raise ParameterError(f"{name} must be {allowed}, got {number:g}")
    if hi is not None and (number > hi or (open_high and number == hi)):
        raise ParameterError(f"{name} must be {allowed}, got {number:g}")
    return number


def check_choice(value: object, *, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ParameterError(f"{name} must be one of {listed}, got {short(value)}")
    return value


def check_bool(value: object, *, name: str) -> bool:
    """Return ``value`` if it is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{name} must be true or false, got {short(value)}")
    return bool(value)


def check_pair(value: Any, *, name: str, bounds: Bounds = (None, None)) -> tuple[float, float]:
    """Return a pair of finite floats (e.g. an offset), each within ``bounds``."""
    try:
        a, b = value
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a pair of numbers, got {short(value)}") from None
    return (check_float(a, name=f"{name}[0]", bounds=bounds), check_float(b, name=f"{name}[1]", bounds=bounds))


def check_shape(
    shape: Any, *, name: str = "shape", min_side: int = 1, max_side: int | None = None, max_cells: int = MAX_CELLS
) -> tuple[int, int]:
    """Return ``(rows, cols)`` after checking each side and the total cell count.

    Refuses sizes that would exhaust memory before anything is allocated.

    >>> check_shape((3, 4))
    (3, 4)
    """
    try:
        rows, cols = shape
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a (rows, cols) pair of integers, got {short(shape)}") from None
    rows = check_int(rows, name=f"{name}[0]", bounds=(min_side, max_side))
    cols = check_int(cols, name=f"{name}[1]", bounds=(min_side, max_side))
    if rows * cols > max_cells:
        raise ParameterError(
            f"{name} {rows} x {cols} has {rows * cols:,} cells, more than the {max_cells:,} allowed "
            "(it would exhaust memory)"
        )
    return rows, cols


def check_array(
    value: object,
    *,
    name: str,
    ndim: int | None = None,
    shape: Sequence[int | None] | None = None,
    dtype_kind: str = "f",
    finite: bool = True,
) -> npt.NDArray[Any]:
    """Return ``value`` as an ndarray after checking dimensions, shape and dtype kind.

    ``shape`` may use None for any length. ``dtype_kind`` is a string of
    accepted numpy kinds ('f' float, 'i'/'u' integers, 'b' bool).
    """
    arr = np.asarray(value)
    if arr.dtype.kind not in dtype_kind:
        if dtype_kind == "f" and arr.dtype.kind in "iub":
            arr = arr.astype(np.float64)
        else:
            raise ParameterError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ParameterError(f"{name} must be a {ndim}-dimensional array, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ParameterError(f"{name} must have shape {want}, got {arr.shape}")
    if finite and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ParameterError(f"{name} must contain only finite values (found NaN or inf)")
    return arr


def check_heights(h: object, name: str = "h") -> npt.NDArray[np.floating[Any]]:
    """A validated 2-D float heightmap (float32/float64 kept as they are, others made float32)."""
    arr = check_array(h, name=name, ndim=2)
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float32)
    return arr


def make_rng(seed: Seed, *, name: str = "seed") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from an int seed (>= 0) or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_int(seed, name=name, bounds=(0, 2**63 - 1)))


def check_limited(value: object, *, name: str, limit: tuple[str, Any]) -> int | float | str:
    """Check ``value`` against a ``(kind, bounds or choices)`` entry of a limits table
    (``kind`` is "int", "float" or "choice")."""
    kind, bounds = limit
    if kind == "int":
        return check_int(value, name=name, bounds=bounds)
    if kind == "float":
        return check_float(value, name=name, bounds=bounds)
    return check_choice(value, name=name, choices=bounds)


def check_object_name(value: object, *, name: str, pattern: re.Pattern[str]) -> str:
    """A name for generated objects: 1 to 48 letters, digits, spaces, '-' or '_' (``pattern``), not only spaces.

    >>> import re
    >>> try:
    ...     check_object_name("   ", name="world.name", pattern=re.compile(r"^[ A-Za-z]{1,48}$"))
    ... except ParameterError as err:
    ...     print(err)
    world.name must not be only spaces, got '   '
    """
    if not isinstance(value, str) or not pattern.match(value):
        raise ParameterError(f"{name} must be 1 to 48 letters, digits, spaces, '-' or '_', got {short(value)}")
    if not value.strip():
        raise ParameterError(f"{name} must not be only spaces, got {short(value)}")
    return value
