"""The forest snapshots a saved file keeps for the year slider: every snapshot year gives what
``forest_at`` gives on the live run (positions to float32, the rest exactly), through bytes and back,
smaller than the run's arrays; bytes that are no snapshots are refused naming what is wrong."""

import json
import struct

import numpy as np
import pytest

from worldseed.core import ecosystem as eco
from worldseed.core.errors import ParameterError

from ._ecosystem_cases import files_case


def _same(mine, theirs):
    assert np.array_equal(mine["positions"].astype(np.float32), theirs["positions"].astype(np.float32))
    for key in ("rotations", "kind", "radius", "height"):
        assert np.array_equal(mine[key], theirs[key]), key


def test_every_snapshot_year_through_bytes_gives_the_forest_the_run_gives():
    s, hab, run = files_case()
    data = eco.snapshots_bytes(eco.forest_snapshots(run, hab))
    snap = eco.read_snapshots(data)
    assert snap.snapshot_years == run.snapshot_years == tuple(range(run.years + 1))
    counts = set()
    for year in (*run.snapshot_years, None):
        mine = snap.forest(year, seed=s.seed)
        _same(mine, eco.forest_at(run, hab, year=year, seed=s.seed))
        counts.add(len(mine["kind"]))
    assert len(counts) > 3  # the forest changes over the years
    # the last year at full precision, as the live run shows it (not the 16-bit snapshot)
    end = snap.forest(run.years, seed=s.seed)
    assert np.array_equal(end["radius"], run.radius) and len(end["radius"]) == len(run)
    with pytest.raises(ParameterError, match=r"snapshot years .* got 999"):
        snap.forest(999)
    # compact: less than the life table and snapshots the run holds in memory
    held = sum(v.nbytes for v in run.life.values()) + sum(r.nbytes + h.nbytes for r, h in run.snapshot_sizes)
    assert len(data) < held


def test_bytes_that_are_no_snapshots_are_refused_naming_what_is_wrong():
    _s, hab, run = files_case()
    data = eco.snapshots_bytes(eco.forest_snapshots(run, hab))
    with pytest.raises(ParameterError, match=r"^Forest: no snapshot header"):
        eco.read_snapshots(b"PK\x03\x04" + data[4:], name="Forest")
    with pytest.raises(ParameterError, match=r"unreadable"):
        eco.read_snapshots(data[:-10])

    def with_header(**changes):
        (length,) = struct.unpack("<I", data[4:8])
        head = {**json.loads(data[8 : 8 + length]), **changes}
        text = json.dumps(head).encode()
        return data[:4] + struct.pack("<I", len(text)) + text + data[8 + length :]

    assert eco.read_snapshots(with_header()).counts  # the rewriting alone changes nothing
    with pytest.raises(ParameterError, match=r"bytes of arrays where the header says"):
        eco.read_snapshots(with_header(rows=run.life["uid"].size + 1))
    with pytest.raises(ParameterError, match=r"format 'other' version 1"):
        eco.read_snapshots(with_header(format="other"))
    with pytest.raises(ParameterError, match=r"a plant of a species outside the 1 kept"):
        eco.read_snapshots(with_header(max_radius=[1.0], max_height=[1.0]))
    with pytest.raises(ParameterError, match=r"snapshot counts do not match"):
        eco.read_snapshots(with_header(snapshot_years=list(range(1, run.years + 2))))


def test_every_third_year_keeps_those_years_exactly_and_is_smaller():
    s, hab, run = files_case()
    whole = eco.snapshots_bytes(eco.forest_snapshots(run, hab))
    data = eco.snapshots_bytes(eco.forest_snapshots(run, hab, every=3))
    snap = eco.read_snapshots(data)
    assert snap.snapshot_years == (*range(0, run.years + 1, 3), run.years) and run.years % 3
    for year in snap.snapshot_years:
        _same(snap.forest(year, seed=s.seed), eco.forest_at(run, hab, year=year, seed=s.seed))
    assert len(data) < 0.9 * len(whole)
    with pytest.raises(ParameterError, match=r"every must be a whole number of years >= 1, got 0"):
        eco.forest_snapshots(run, hab, every=0)
