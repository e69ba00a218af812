"""Poisson-disk sampling: maximal packings of a rectangle, with a fixed or a varying radius.

`poisson_disk` fills a rectangle with points at least ``radius`` apart, and *maximally*: no
point of the rectangle is ``radius`` or more from every sample, so no further sample would
fit.  `poisson_disk_variable` does the same with a radius that follows a density field,
between ``r_min`` (density 1) and ``r_max`` (density 0); two samples of radii ``r_a`` and
``r_b`` stay ``max(r_a, r_b)`` apart (the larger radius wins: a sparse sample keeps its
neighbourhood clear even next to a dense region).  The engine (``_poisson``) throws darts
into a random quarter of the background-grid cells at a time, then finds every remaining gap
exactly, from the corners where the samples' circles cross, and fills it.  Public through
:mod:`core.scatter`.
"""

import numpy as np
import numpy.typing as npt

from .._checks import Seed, check_array, check_float, check_int, make_rng
from ..errors import ParameterError
from . import _poisson

#: Sample spacing (metres, or the domain's units).
RADIUS = (0.001, 100_000.0)
#: Largest ``r_max / r_min`` of a varying radius (the neighbour search grows with its square).
RADIUS_RATIO = 10.0
#: Width and height of a sampling domain.
DOMAIN = (0.001, 10_000_000.0)
#: Darts per gap corner and pass (the role of Bridson's ``k``: candidates per active spot).
K = (1, 1000)
#: Most background-grid cells one sampling call may use (about ``(side / radius)**2 * 2``).
MAX_GRID_CELLS = _poisson.MAX_GRID_CELLS
MISSES = 2  # phase-1 darts a cell may miss before gap filling takes over


def _check_domain(width: float, height: float) -> tuple[float, float]:
    return (check_float(width, name="width", bounds=DOMAIN), check_float(height, name="height", bounds=DOMAIN))


def check_cells(width: float, height: float, r_min: float) -> None:
    n = _poisson.grid_cells(width, height, r_min)
    if n > MAX_GRID_CELLS:
        raise ParameterError(
            f"a {width:g} x {height:g} domain with a radius of {r_min:g} needs {n:,} grid cells, more than "
            f"the {MAX_GRID_CELLS:,} allowed (it would exhaust memory); use a larger radius or a smaller domain"
        )


def poisson_disk(width: float, height: float, radius: float, *, seed: Seed = 0, k: int = 30) -> npt.NDArray[np.float64]:
    """Maximal Poisson-disk sample of a rectangle: points at least ``radius`` apart, no gaps.

    Parameters
    ----------
    width, height : float
        The domain ``[0, width) x [0, height)``, each within ``DOMAIN``.
    radius : float
        Smallest distance between two points, within ``RADIUS``.  The domain may hold at most
        ``MAX_GRID_CELLS`` background cells of side ``radius / sqrt(2)`` (refused before
        allocating).
    seed : int >= 0 or numpy.random.Generator, optional
        The same seed gives the same bytes.
    k : int, optional
        Darts per gap corner and pass, within ``K`` (Bridson's candidates per active sample,
        whose default it keeps).  The packing is maximal for any ``k``; it only trades darts
        against passes.

    Returns
    -------
    points : (N, 2) float64 ndarray
        In ``[0, width) x [0, height)``, every pair at least ``radius`` apart, and every point
        of the domain closer than ``radius`` to one of them (up to gaps narrower than
        ``1e-9 * radius``).  The order is the order of acceptance.

    Notes
    -----
    About ``0.70 * width * height / radius**2`` points (the random sequential adsorption
    limit, 0.547 of the plane covered by disks of radius ``radius / 2``, plus a little along
    the edges).  100,000 points take about 0.6 s on one core.  See the module ``_poisson``
    for the algorithm.

    Examples
    --------
    >>> pts = poisson_disk(40.0, 20.0, 2.0, seed=1)
    >>> pts.shape[1], pts.dtype, 120 < len(pts) < 160
    (2, dtype('float64'), True)
    >>> d = np.hypot(*(pts[:, None] - pts[None]).transpose(2, 0, 1))
    >>> bool(d[~np.eye(len(pts), dtype=bool)].min() >= 2.0)
    True
    """
    width, height = _check_domain(width, height)
    radius = check_float(radius, name="radius", bounds=RADIUS)
    k = check_int(k, name="k", bounds=K)
    check_cells(width, height, radius)
    rng = make_rng(seed)
    points, _ = _poisson.sample(width, height, r_min=radius, r_max=radius, rng=rng, k=k, misses=MISSES)
    return points


def _check_existing(
    existing: npt.ArrayLike | None, existing_radii: npt.ArrayLike | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | tuple[None, None]:
    if existing is None and existing_radii is None:
        return None, None
    if existing is None or existing_radii is None:
        raise ParameterError("existing and existing_radii must be given together")
    pts = check_array(existing, name="existing", ndim=2, shape=(None, 2)).astype(np.float64, copy=False)
    radii = check_array(existing_radii, name="existing_radii", ndim=1, shape=(len(pts),))
    radii = radii.astype(np.float64, copy=False)
    if radii.size and (radii.min() < 0 or radii.max() > RADIUS[1]):
        raise ParameterError(
            f"existing_radii must lie in [0, {RADIUS[1]:g}], got a range [{radii.min():g}, {radii.max():g}]"
        )
    return pts, radii


def poisson_disk_variable(
    width: float,
    height: float,
    density: npt.ArrayLike,
    *,
    r_min: float,
    r_max: float,
    seed: Seed = 0,
    k: int = 30,
    existing: npt.ArrayLike | None = None,
    existing_radii: npt.ArrayLike | None = None,
    where: npt.ArrayLike | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Maximal Poisson-disk sample with a radius that follows a density field.

    Parameters
    ----------
    width, height : float
        The domain ``[0, width) x [0, height)``, each within ``DOMAIN``.
    density : (rows, cols) array_like of float in [0, 1]
        Density over the domain, ``rows, cols >= 2``: value ``[i, j]`` at
        ``(j * width / (cols - 1), i * height / (rows - 1))`` (row 0 at y = 0, column 0 at
        x = 0), bilinear in between.
    r_min, r_max : float
        Radii where the density is 1 and 0, within ``RADIUS``, ``r_min <= r_max <=
        RADIUS_RATIO * r_min``; the radius at a point is
        ``r(p) = r_max - density(p) * (r_max - r_min)`` (dense where the density is high).
    seed : int >= 0 or numpy.random.Generator, optional
    k : int, optional
        Darts per gap corner and pass, within ``K``.
    existing : (M, 2) array_like of float, optional
        Earlier samples (e.g. of another layer) that new ones keep away from; with
        ``existing_radii`` (M,) in ``[0, RADIUS[1]]``.  A new sample at ``p`` stays at least
        ``max(r(p), existing_radii[m])`` from ``existing[m]``.  They may lie anywhere; only
        those near the domain matter.
    where : (rows, cols) array_like of bool, optional
        Where samples may go: only in the cells of the density grid whose four corners are all
        True (so a cell half in and half out counts as out).

    Returns
    -------
    points : (N, 2) float64 ndarray
        In the domain (and inside ``where``); in acceptance order.
    radii : (N,) float64 ndarray
        ``r(p)`` of each point.  Two points stay ``max(r_a, r_b)`` apart.

    Notes
    -----
    The packing is maximal: every point ``x`` of the domain (inside ``where``) has a sample
    ``p`` with ``|x - p| < max(r(x), r_p)``, or an existing sample within
    ``max(r(x), existing_radii)``.  For a fixed radius this is exact; with a varying radius the
    gaps are found from corners computed by a fixed-point iteration, exact while the radius
    changes by less than its own length over a radius (``|grad r| < 1``); steeper density
    cliffs can leave slivers a few percent of a radius wide.

    Examples
    --------
    >>> ramp = np.tile(np.linspace(0.0, 1.0, 9), (5, 1))     # dense towards +x
    >>> pts, radii = poisson_disk_variable(40.0, 20.0, ramp, r_min=1.0, r_max=3.0, seed=2)
    >>> left, right = pts[:, 0] < 20.0, pts[:, 0] >= 20.0
    >>> bool(right.sum() > 2 * left.sum()), float(radii.min()) >= 1.0
    (True, True)
    """
    width, height = _check_domain(width, height)
    d = check_array(density, name="density", ndim=2).astype(np.float64, copy=False)
    if min(d.shape) < 2:
        raise ParameterError(f"density must have at least 2 rows and 2 columns, got shape {d.shape}")
    if d.min() < 0.0 or d.max() > 1.0:
        raise ParameterError(f"density must lie in [0, 1], got a range [{d.min():g}, {d.max():g}]")
    r_min = check_float(r_min, name="r_min", bounds=RADIUS)
    r_max = check_float(r_max, name="r_max", bounds=(r_min, min(RADIUS_RATIO * r_min, RADIUS[1])))
    k = check_int(k, name="k", bounds=K)
    pts, radii = _check_existing(existing, existing_radii)
    if where is not None:
        where = check_array(where, name="where", ndim=2, shape=d.shape, dtype_kind="b")
    check_cells(width, height, r_min)
    rng = make_rng(seed)
    return _poisson.sample(
        width,
        height,
        r_min=r_min,
        r_max=r_max,
        rng=rng,
        k=k,
        misses=MISSES,
        density=d if r_max > r_min else None,
        where=where,
        existing=pts,
        existing_radii=radii,
    )
