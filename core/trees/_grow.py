"""Growing a tree: rules --(lsystem)--> Word --(turtle)--> Skeleton --(tree_mesh)--> LOD meshes.

:func:`grow_tree` runs the pipeline for a :class:`~.spec.TreeSpec` and
returns a :class:`Tree`; each stage draws from its own seed, derived from the
spec's seed, so the same spec and seed give the same bytes.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_int
from ..errors import ParameterError, short
from ..mesh import IndexedMesh
from . import lsystem, tree_mesh, turtle
from .skeleton import Skeleton
from .spec import SEED, TreeSpec

__all__ = ["Tree", "grow_skeleton", "grow_tree", "tree_error", "MAX_TREE_MODULES"]

#: Longest word a tree may grow to (a dense game tree is 10^4 .. 10^5 modules).
MAX_TREE_MODULES = 2_000_000


@dataclass(frozen=True, eq=False)
class Tree:
    """A grown tree: its skeleton, its LOD meshes (LOD0 first) and the optional billboard."""

    spec: TreeSpec
    skeleton: Skeleton
    lods: tuple[IndexedMesh, ...]
    billboard: IndexedMesh | None
    modules: int

    @property
    def height(self) -> float:
        """Height of LOD0 above its base, metres."""
        v = self.lods[0].vertices
        return float(v[:, 2].max()) - min(0.0, float(v[:, 2].min())) if len(v) else 0.0


# -- the pipeline --------------------------------------------------------------------------------------------


def _turtle_options(spec: TreeSpec) -> dict[str, Any]:
    return dict(
        angle=spec.angle,
        step=spec.step,
        width=spec.width,
        width_decay=spec.width_decay,
        length_decay=spec.length_decay,
        order_width_ratio=spec.order_width_ratio,
        order_length_ratio=spec.order_length_ratio,
        tropism=spec.tropism,
        tropism_strength=spec.tropism_strength,
        jitter=spec.jitter,
        leaf_size=spec.leaf_size,
    )


def _seeds(seed: int | None) -> list[int]:
    """Independent seeds for rewriting, turtle and mesh from one user seed."""
    ss = np.random.SeedSequence(check_int(seed, name="seed", bounds=SEED))
    return [int(s.generate_state(1, np.uint64)[0] >> np.uint64(1)) for s in ss.spawn(3)]


def grow_skeleton(
    spec: TreeSpec, *, seed: int | None = None, max_modules: int = MAX_TREE_MODULES
) -> tuple[Skeleton, int]:
    """Rewrite and interpret ``spec``'s L-system; returns ``(Skeleton, number of modules)``."""
    s_rules, s_turtle, _ = _seeds(spec.seed if seed is None else seed)
    system = lsystem.parse(spec.axiom, spec.rules, constants=dict(spec.constants))
    word = lsystem.expand(system, spec.iterations, seed=s_rules, max_modules=max_modules)
    skeleton = turtle.interpret(word, seed=s_turtle, **_turtle_options(spec))
    return skeleton, len(word)


def tree_error(spec: TreeSpec, what: Exception | str, kind: type[ParameterError] = ParameterError) -> ParameterError:
    """A ``kind`` error "tree 'Name': what" that carries the spec it is about as ``.spec`` (so a recipe run
    can say which ``[[trees]]`` entry failed)."""
    err = kind(f"tree {short(spec.name, limit=40)}: {what}")
    err.spec = spec  # type: ignore[attr-defined]  # read by the recipe run
    return err


def grow_tree(spec: TreeSpec, *, seed: int | None = None, max_modules: int = MAX_TREE_MODULES) -> Tree:
    """Grow the tree ``spec`` describes (with ``seed`` instead of ``spec.seed`` if given).

    Errors (rules that fail while rewriting, a word that outgrows
    ``max_modules``) are :class:`~core.errors.ParameterError` naming the tree,
    with the spec as their ``.spec``.
    """
    seed = spec.seed if seed is None else seed
    try:
        skeleton, modules = grow_skeleton(spec, seed=seed, max_modules=max_modules)
    except lsystem.WordTooLong as err:
        raise tree_error(
            spec,
            f"the word would reach {'at least ' if err.at_least else ''}{err.length:,} modules "
            f"at iteration {err.iteration}, more than the {err.limit:,} a tree may grow to; "
            f"use fewer iterations (iterations = {spec.iterations} now)",
        ) from None
    except ParameterError as err:
        raise tree_error(spec, err, kind=type(err)) from None
    if skeleton.n_segments == 0 and len(skeleton.leaves) == 0 and not skeleton.polygons:
        raise tree_error(
            spec,
            f"the rules draw nothing after {spec.iterations} iterations "
            f"({modules:,} modules, no F or G); check the axiom and rules",
        )
    s_mesh = _seeds(seed)[2]
    lods = tree_mesh.tree_lods(
        skeleton,
        levels=spec.lods,
        sides=spec.sides,
        leaf_shape=spec.leaf_shape,
        leaf_width=spec.leaf_width,
        uv_scale=spec.uv_scale,
        seed=s_mesh,
    )
    billboard = tree_mesh.billboard_mesh(lods[0].vertices) if spec.billboard and lods[0].n_vertices else None
    return Tree(
        spec=dataclasses.replace(spec, seed=seed),
        skeleton=skeleton,
        lods=tuple(lods),
        billboard=billboard,
        modules=modules,
    )
