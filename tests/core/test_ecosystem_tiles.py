"""Tiles of a world: each tile simulates its own area plus a halo; neighbours agree on their seam."""

import functools

import numpy as np

from worldseed.core import ecosystem as eco
from worldseed.core.steps import drive

from ._ecosystem_cases import CLIMAX, PIONEER, flat, spec

WEST = (0.0, 0.0, 60.0, 60.0)
EAST = (60.0, 0.0, 120.0, 60.0)
BOTH = (0.0, 0.0, 120.0, 60.0)


@functools.cache
def tiles(years, halo_reaches):
    s = spec({**PIONEER, "dispersal": 8.0}, CLIMAX, years=years)
    halo = halo_reaches * eco.interaction_reach(s.species)
    hab = flat(600.0)
    return {
        name: drive(eco.plants_tile_steps(s, hab, tile=tile, halo=halo))
        for name, tile in (("west", WEST), ("east", EAST), ("both", BOTH))
    }, hab


def _plants(r):
    return {u: (x, y, k, a) for u, x, y, k, a in zip(r.uid.tolist(), r.x.tolist(), r.y.tolist(), r.kind, r.age)}


def test_each_plant_is_owned_by_the_tile_its_trunk_stands_in():
    runs, _ = tiles(30, 1.0)
    for name, tile in (("west", WEST), ("east", EAST)):
        r = runs[name]
        x0, y0, x1, y1 = tile
        assert len(r) > 300
        assert ((r.x >= x0) & (r.x < x1) & (r.y >= y0) & (r.y < y1)).all()
        assert r.area_m2 == 3600.0
    assert not set(runs["west"].uid.tolist()) & set(runs["east"].uid.tolist())  # none owned twice


def test_neighbouring_tiles_agree_with_one_simulation_of_both():
    """With a halo of the interaction reach for 30 years, and of twice the reach for 60 years, the two
    tiles' plants are exactly those of one simulation of both tiles' area (same identities, places,
    species and ages): nothing missing on either side of the seam, nothing doubled."""
    for years, reaches in ((30, 1.0), (60, 2.0)):
        runs, _ = tiles(years, reaches)
        joined = {**_plants(runs["west"]), **_plants(runs["east"])}
        assert len(joined) == len(runs["west"]) + len(runs["east"])
        assert joined == _plants(runs["both"])
        near_seam = np.abs(runs["both"].x - 60.0) < 10.0
        assert near_seam.sum() > 50


def test_a_tile_is_the_same_whichever_tile_is_built_first():
    s = spec({**PIONEER, "dispersal": 8.0}, CLIMAX, years=20)
    hab = flat(300.0)

    def build(order):
        out = {}
        for name, tile in order:
            r = drive(eco.plants_tile_steps(s, hab, tile=tile))
            out[name] = eco.plants_csv_bytes(r, hab) + eco.ecosystem_json_bytes(r)
        return out

    a = build([("west", WEST), ("east", EAST)])
    b = build([("east", EAST), ("west", WEST)])
    assert a == b


def test_the_ledger_holds_per_tile():
    runs, _ = tiles(30, 1.0)
    for r in runs.values():
        h = r.history
        assert (h["alive"][1:] - h["alive"][:-1] == h["born"][1:] - h["died"][1:]).all()
