"""Prop placements in Unity's coordinates: the placement file and Unity Terrain tree instances.

Blender is right-handed with Z up; Unity is left-handed with Y up.  A
Worldseed FBX lands a Blender point ``(x, y, z)`` at Unity ``(-x, z, -y)``
(:func:`core.unity.unity_position`); the linear map ``M`` doing that has
determinant -1, so a rotation ``R`` becomes ``M R M^-1``, a proper rotation
again.  With ``P = -M`` (a rotation of +90 degrees about X, and
``M R M^-1 = P R P^-1``) the quaternion's vector part is turned by ``P``:
Blender ``(w, x, y, z)`` becomes Unity ``(x, -z, y, w)`` in Unity's
``(x, y, z, w)`` order.  Unity builds the same matrix from a quaternion as
the right-handed formula does, so an object placed with these values sits
exactly where the FBX puts the same instance.

>>> unity_rotation([[1.0, 0.0, 0.0, 0.0]]).tolist()      # identity stays identity
[[0.0, 0.0, 0.0, 1.0]]
"""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import exact
from ._checks import check_array, check_float
from .errors import ParameterError
from .unity import unity_position, unity_terrain_position

__all__ = [
    "unity_rotation",
    "quaternion_matrices",
    "matrix_quaternions",
    "placement_records",
    "terrain_tree_instances",
    "scatter_entry",
]


def unity_rotation(wxyz: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Blender quaternions ``(N, 4)`` as ``(w, x, y, z)`` -> Unity quaternions ``(N, 4)`` as ``(x, y, z, w)``."""
    q = check_array(wxyz, name="rotations", ndim=2, shape=(None, 4)).astype(np.float64)
    return np.column_stack([q[:, 1], -q[:, 3], q[:, 2], q[:, 0]]) + 0.0  # + 0.0: no -0.0 in the files


def quaternion_matrices(wxyz: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(N, 3, 3) rotation matrices of unit quaternions ``(w, x, y, z)``."""
    q = check_array(wxyz, name="rotations", ndim=2, shape=(None, 4)).astype(np.float64)
    w, x, y, z = q.T
    r = np.empty((len(q), 3, 3))
    r[:, 0, 0] = 1 - 2 * (y * y + z * z)
    r[:, 0, 1] = 2 * (x * y - z * w)
    r[:, 0, 2] = 2 * (x * z + y * w)
    r[:, 1, 0] = 2 * (x * y + z * w)
    r[:, 1, 1] = 1 - 2 * (x * x + z * z)
    r[:, 1, 2] = 2 * (y * z - x * w)
    r[:, 2, 0] = 2 * (x * z - y * w)
    r[:, 2, 1] = 2 * (y * z + x * w)
    r[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def _rows(
    positions: npt.ArrayLike, rotations: npt.ArrayLike, scales: npt.ArrayLike
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    p = check_array(positions, name="positions", ndim=2, shape=(None, 3))
    n = p.shape[0]
    r = check_array(rotations, name="rotations", ndim=2, shape=(n, 4))
    s = check_array(scales, name="scales", ndim=1, shape=(n,))
    return p, r, s


def placement_records(
    positions: npt.ArrayLike,
    rotations: npt.ArrayLike,
    scales: npt.ArrayLike,
    props: npt.ArrayLike,
    prop_names: Sequence[str],
    *,
    layers: npt.ArrayLike | None = None,
    layer_names: Sequence[str] | None = None,
    digits: int = 5,
) -> list[dict[str, Any]]:
    """One dict per instance in Unity's coordinates: ``prop`` (name), ``position`` [x, y, z] (metres),
    ``rotation`` [x, y, z, w], ``scale`` (uniform), and ``layer`` when layers are given.

    ``positions`` (N, 3) and ``rotations`` (N, 4, ``(w, x, y, z)``) are Blender world values;
    ``props`` (N,) index ``prop_names``.  Values are rounded to ``digits`` decimals.
    """
    p, r, s = _rows(positions, rotations, scales)
    k = np.asarray(props, np.int64)
    if k.shape != (p.shape[0],) or (k.size and (k.min() < 0 or k.max() >= len(prop_names))):
        raise ParameterError(f"props must hold one index in [0, {len(prop_names)}) per instance")
    up = np.round(unity_position(p), digits).tolist()
    uq = np.round(unity_rotation(r), 7).tolist()
    us = np.round(s.astype(np.float64), digits).tolist()
    names = [prop_names[i] for i in k.tolist()]
    out = [{"prop": n, "position": a, "rotation": b, "scale": c} for n, a, b, c in zip(names, up, uq, us)]
    if layers is not None:
        assert layer_names is not None, "layers come with their layer_names"
        for rec, i in zip(out, np.asarray(layers).tolist()):
            rec["layer"] = layer_names[i]
    return out


def terrain_tree_instances(
    positions: npt.ArrayLike,
    rotations: npt.ArrayLike,
    scales: npt.ArrayLike,
    props: npt.ArrayLike,
    *,
    terrain_position: npt.ArrayLike,
    size: float,
    height: float,
    digits: int = 6,
) -> list[dict[str, Any]]:
    """Unity ``TreeInstance`` values for trees on a Terrain.

    ``terrain_position`` is the Terrain's Unity position (see
    :func:`core.unity.unity_terrain_position`), ``size`` its width and length
    and ``height`` its height in metres.  ``position`` is normalised to 0..1
    over the Terrain (x, height, z), ``rotation`` the yaw in radians about
    Unity's Y, ``width_scale``/``height_scale`` the uniform scale and
    ``prototype`` the tree prototype index (``props``).
    """
    p, r, s = _rows(positions, rotations, scales)
    size = check_float(size, name="size", bounds=(0.0, None), open_low=True)
    height = check_float(height, name="height", bounds=(0.0, None), open_low=True)
    origin = np.asarray(terrain_position, np.float64).reshape(3)
    u = unity_position(p) - origin
    norm = u / np.array([size, height, size])
    # yaw of the rotated forward axis (Unity +Z) about Unity's Y
    m = quaternion_matrices(unity_rotation(r)[:, [3, 0, 1, 2]])
    forward = m[:, :, 2]
    yaw = exact.atan2(forward[:, 0], forward[:, 2])  # numpy's arctan2 differs between CPUs
    k = np.asarray(props, np.int64).tolist()
    return [
        {"prototype": i, "position": a, "rotation": b, "width_scale": c, "height_scale": c}
        for i, a, b, c in zip(
            k,
            np.round(norm, digits).tolist(),
            np.round(yaw, digits).tolist(),
            np.round(s.astype(np.float64), digits).tolist(),
        )
    ]


def scatter_entry(
    positions: npt.ArrayLike,
    rotations: npt.ArrayLike,
    scales: npt.ArrayLike,
    props: npt.ArrayLike,
    prop_names: Sequence[str],
    *,
    layers: npt.ArrayLike,
    layer_names: Sequence[str],
    tree_layers: Iterable[int],
    object_name: Callable[[str, int], str],
    scatter: str,
    terrain: str,
    blender_centre: Sequence[float],
    size: float,
    height: float,
) -> dict[str, Any]:
    """One scatter's entry of a placement file: its instances and its Unity Terrain trees.

    ``positions`` (N, 3), ``rotations`` (N, 4, ``(w, x, y, z)``) and ``scales`` (N,) are Blender
    world values; ``props`` (N,) index ``prop_names``, ``layers`` (N,) index ``layer_names``.
    ``object_name(prop, index)`` names instance ``index``'s object (``object`` of its record).
    The instances of the layers listed in ``tree_layers`` (indices) are also Terrain tree
    instances, their prototypes the props they use in index order.  The Terrain (named
    ``terrain``) is ``size`` metres wide and ``height`` high, centred at ``blender_centre``;
    ``scatter`` names the scatter.

    >>> entry = scatter_entry(
    ...     [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0, 0.0, 0.0]] * 2, [1.0, 2.0], [1, 0],
    ...     ["Rock_P01", "Oak_P01"], layers=[1, 0], layer_names=["Rocks", "Trees"], tree_layers=[1],
    ...     object_name="T_{}_{:05d}".format, scatter="T_Scatter", terrain="T",
    ...     blender_centre=(0.0, 0.0, 0.0), size=64.0, height=20.0)
    >>> [(r["object"], r["layer"], r["position"]) for r in entry["instances"]]
    [('T_Oak_P01_00000', 'Trees', [-1.0, 3.0, -2.0]), ('T_Rock_P01_00001', 'Rocks', [-4.0, 6.0, -5.0])]
    >>> entry["terrain"], entry["terrain_trees"]["prototypes"]
    ({'name': 'T', 'position': [-32.0, 0.0, -32.0], 'size': [64.0, 20.0, 64.0]}, ['Oak_P01'])
    >>> entry["terrain_trees"]["instances"][0]["position"]
    [0.484375, 0.15, 0.46875]
    """
    positions = np.asarray(positions, np.float64)
    rotations = np.asarray(rotations, np.float64)
    scales = np.asarray(scales, np.float64)
    which = np.asarray(props, np.int64)
    layers = np.asarray(layers, np.int64)
    records = placement_records(positions, rotations, scales, which, prop_names, layers=layers, layer_names=layer_names)
    for index, rec in enumerate(records):
        rec["object"] = object_name(rec["prop"], index)
    terrain_pos = unity_terrain_position(size, blender_centre=tuple(blender_centre))
    pick = np.isin(layers, list(tree_layers))
    used = sorted(set(which[pick].tolist()))
    prototype = {k: i for i, k in enumerate(used)}
    trees = terrain_tree_instances(
        positions[pick],
        rotations[pick],
        scales[pick],
        [prototype[k] for k in which[pick].tolist()],
        terrain_position=terrain_pos,
        size=size,
        height=max(height, 1e-6),
    )
    return {
        "scatter": scatter,
        "terrain": {
            "name": terrain,
            "position": [round(v, 5) for v in terrain_pos.tolist()],
            "size": [size, height, size],
        },
        "props": list(prop_names),
        "layers": list(layer_names),
        "instances": records,
        "terrain_trees": {"prototypes": [prop_names[k] for k in used], "instances": trees},
    }


def matrix_quaternions(m: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(N, 3, 3) rotation matrices -> (N, 4) unit quaternions (w, x, y, z), w >= 0."""
    m = check_array(m, name="matrices", ndim=3, shape=(None, 3, 3)).astype(np.float64)
    w = np.sqrt(np.maximum(0.0, 1.0 + m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2])) / 2
    x = np.sqrt(np.maximum(0.0, 1.0 + m[:, 0, 0] - m[:, 1, 1] - m[:, 2, 2])) / 2
    y = np.sqrt(np.maximum(0.0, 1.0 - m[:, 0, 0] + m[:, 1, 1] - m[:, 2, 2])) / 2
    z = np.sqrt(np.maximum(0.0, 1.0 - m[:, 0, 0] - m[:, 1, 1] + m[:, 2, 2])) / 2
    x = np.copysign(x, m[:, 2, 1] - m[:, 1, 2])
    y = np.copysign(y, m[:, 0, 2] - m[:, 2, 0])
    z = np.copysign(z, m[:, 1, 0] - m[:, 0, 1])
    q = np.column_stack([w, x, y, z])
    return q / np.linalg.norm(q, axis=1, keepdims=True)
