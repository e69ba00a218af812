"""The ecosystem on a terrain's layers: the plants' and animals' habitats (water, clearing), the trail
wear at the vertices, trampled ground as the scatter's clearing, and the ``trail`` texture rule."""

import numpy as np
import pytest

from worldseed.core import ecosystem as eco
from worldseed.core import scatter, splat, terrain
from worldseed.core.errors import ParameterError
from worldseed.core.steps import drive

from ._ecosystem_cases import PIONEER


def _layers(side=41, clearing=None):
    values = np.full((side, side), 0.5, np.float32)
    heights = terrain.TerrainHeights(values=values, cell_size=2.0, height=40.0)
    return terrain.TerrainLayers(heights, clearing=clearing)


DEER = {"name": "Deer", "count": 30}


def test_plants_never_stand_on_the_clearing_but_animals_walk_there():
    clear = np.zeros((41, 41), bool)
    clear[:, 15:26] = True  # a 20 m wide road across the terrain
    spec = eco.from_dict(
        {"years": 30, "steps": 60, "species": [{**PIONEER, "initial_density": 200.0}], "animals": [DEER]}
    )
    run = drive(eco.terrain_ecosystem_steps(spec, _layers(clearing=clear), sea_level=0.0))
    hab = run.habitat
    assert not hab.water.any()  # the animals' ground: the road is no water
    ix = np.rint((run.plants.x - hab.origin[0]) / hab.cell_size).astype(int)
    iy = np.rint((run.plants.y - hab.origin[1]) / hab.cell_size).astype(int)
    assert len(ix) > 50
    # a seedling never germinates on the road's vertices (its nearest vertex is never cleared)
    assert not clear[iy, ix].any()
    assert run.animals.steps_on[:, 15:25].sum() > 0  # the deer cross it


def test_trail_vertices_take_the_most_worn_cell_around_each_vertex_and_trampled_is_a_threshold():
    class Worn:
        wear = np.array([[0.0, 4.0, 0.0], [0.0, 1.0, 0.0]])

    wear = eco.trail_vertices(Worn(), (3, 4))
    assert wear.dtype == np.float32 and wear.shape == (3, 4)
    assert wear[0].tolist() == [0.0, 1.0, 1.0, 0.0] and wear[2].tolist() == [0.0, 0.25, 0.25, 0.0]
    assert eco.trampled_mask(Worn(), (3, 4), threshold=0.5).sum() == 4
    assert not eco.trampled_mask(Worn(), (3, 4), threshold=0.0).any()  # 0: no trampled ground
    assert not eco.trampled_mask(None, (3, 4), threshold=0.5).any()
    with pytest.raises(ParameterError, match="trampled"):
        eco.trampled_mask(Worn(), (3, 4), threshold=1.5)
    with pytest.raises(ParameterError, match="cells"):
        eco.trail_vertices(Worn(), (5, 5))


def test_the_trail_rule_follows_the_wear_and_none_without_it():
    h = np.zeros((5, 5), np.float32)
    trail = np.zeros((5, 5), np.float32)
    trail[2] = 1.0
    trail[3] = 0.5
    layers = [splat.SplatSpec(name="Grass"), splat.SplatSpec(name="Path", trail=1.0)]
    w = splat.splat_weights(layers, heights=h, cell_size=1.0, trail=trail)
    assert w[1].tolist() == trail.tolist()
    assert np.allclose(w.sum(axis=0), 1.0)
    assert not splat.splat_weights(layers, heights=h, cell_size=1.0)[1].any()  # no wear: no trails
    avoid = [splat.SplatSpec(name="Grass"), splat.SplatSpec(name="Moss", trail=-1.0)]
    assert splat.splat_weights(avoid, heights=h, cell_size=1.0, trail=trail)[1].tolist() == (1.0 - trail).tolist()
    with pytest.raises(ParameterError, match="trail"):
        splat.from_dict({"trail": 2.0})


def test_the_scatter_leaves_the_clearing_free_and_a_bad_clearing_is_refused():
    h = np.zeros((33, 33))
    clear = np.zeros((33, 33), bool)
    clear[:, :17] = True  # the western half
    layer = scatter.Layer("rocks", radius=2.0, rules=scatter.ScatterRules(above_sea=False))
    (free,) = scatter.scatter_layers(h, size=64.0, layers=[layer], seed=1)
    (kept,) = scatter.scatter_layers(h, size=64.0, layers=[layer], seed=1, maps={"clearing": clear})
    assert (free.positions[:, 0] < 0.0).sum() > 20
    assert len(kept.positions) > 20 and (kept.positions[:, 0] >= 0.0).all()
    with pytest.raises(ParameterError, match="clearing"):
        scatter.scatter_layers(h, size=64.0, layers=[layer], maps={"clearing": clear.astype(np.float32)})


def test_trail_layers_add_the_trampled_ground_to_the_clearing_and_paint_the_trail_rule():
    spec = eco.from_dict({"steps": 150, "burn_in": 10, "animals": [DEER], "trampled": 0.2})
    splats = (splat.SplatSpec(name="Grass"), splat.SplatSpec(name="Path", trail=1.0))
    layers = terrain.repaint_splats(
        _layers(), terrain_spec=terrain.TerrainSpec(), biomes_spec=None, splats=splats, seed=0
    )
    assert not layers.weights[1].any()  # before the animals: no trails
    run = drive(eco.terrain_ecosystem_steps(spec, layers, sea_level=0.0))
    after = eco.trail_layers(
        layers, run, spec=spec, terrain_spec=terrain.TerrainSpec(), biomes_spec=None, splats=splats, seed=0
    )
    wear = eco.trail_vertices(run.animals, (41, 41))
    assert after.clearing is not None and after.clearing.tolist() == (wear >= np.float32(0.2)).tolist()
    assert 0 < after.clearing.sum() < after.clearing.size
    assert np.allclose(after.weights[1], wear, atol=1e-6)
    assert len(after.splats) == 1 and after.splats[0].dtype == np.uint8
    none = eco.from_dict({"steps": 150, "animals": [DEER], "trampled": 0.0})
    assert (
        eco.trail_layers(
            layers, run, spec=none, terrain_spec=terrain.TerrainSpec(), biomes_spec=None, splats=splats[:1], seed=0
        )
        is layers
    )
