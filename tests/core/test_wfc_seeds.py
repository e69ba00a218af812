"""Seeds and attempts of the WFC solver (core/wfc/_solver.py): attempt ``k`` of seed ``s`` draws from
``numpy.random.default_rng([s, k])``, so neighbouring seeds never land on the same attempt (with
``default_rng(s + k)`` seed ``s``'s second attempt was seed ``s + 1``'s first, and consecutive seeds
whose early attempts failed gave the same output). Same bytes across processes:
test_wfc_reference.py."""

from pathlib import Path

import numpy as np

from core.wfc import load_tileset, solve, tiled

PRESETS = Path(__file__).resolve().parents[2] / "presets" / "wfc"

# the dungeon with at least 4 doors, connected, restarting at the first contradiction: most
# seeds need several attempts (8 x 8: seeds 0-7 take 1 to 14)
TIGHT = dict(backtrack_limit=0, attempts=30, connected=True, counts={"door": (4, None)})


def test_consecutive_seeds_give_different_outputs_when_first_attempts_fail():
    ts = load_tileset(PRESETS / "dungeon.toml")
    outs = [tiled(ts, 8, 8, seed=s, **TIGHT) for s in range(8)]
    assert sum(o.attempts > 1 for o in outs) >= 4  # the case that collided: later attempts win
    assert len({o.tiles.tobytes() for o in outs}) == 8  # seed s + k shared seed s's attempt k before
    for s in range(7):
        assert not np.array_equal(outs[s].tiles, outs[s + 1].tiles), s


def test_attempt_k_draws_from_the_seed_and_attempt_pair():
    # any grid of 3 free patterns is valid; a constraint refusing the first final waves forces
    # later attempts
    class FailFirst:
        def __init__(self, fails):
            self.fails, self.finals = fails, 0

        def revise(self, wave, final):
            from core.wfc import Unsatisfied

            if final:
                self.finals += 1
                if self.finals <= self.fails:
                    raise Unsatisfied(0, "refused for the test")
            return None

    weights = np.ones(3)
    compatible = np.ones((4, 3, 3), bool)
    for seed in (0, 1, 41):
        got = solve(weights, compatible, 5, 4, seed=seed, attempts=3, backtrack_limit=0, constraints=[FailFirst(2)])
        assert got.attempts == 3
        # with default_rng(seed + k) the third attempt was seed + 2's first: the same grid
        later = solve(weights, compatible, 5, 4, seed=seed + 2, attempts=1)
        assert not np.array_equal(got.indices, later.indices), seed
    same = [solve(weights, compatible, 6, 6, seed=9, attempts=3, backtrack_limit=0, constraints=[FailFirst(1)])]
    same.append(solve(weights, compatible, 6, 6, seed=9, attempts=3, backtrack_limit=0, constraints=[FailFirst(1)]))
    assert np.array_equal(same[0].indices, same[1].indices)  # deterministic in one process
