"""The shipped savanna ecosystem: its grazers and hunters live on together for 1,000 steps in at least
90 % of the seeds, the hunters' numbers following the grazers' (their peaks lagging).

On the terrain the presets are tuned on (``_ecosystem_cases.terrain_habitat``: 512 m of hills with
lakes), bare of trees; ``bench/bench_ecosystem.py --presets`` prints the same figures for 20 seeds,
also on the grass the preset's own forest leaves.  One file per preset (about 10 s each), so the
test workers take them in parallel.
"""

from ._ecosystem_cases import check_coexistence


def test_savanna_grazers_and_hunters_coexist_and_hunter_peaks_lag():
    check_coexistence("savanna")
