"""Benchmark worldseed.core.trees.lsystem.expand against plain Python rewriting loops, same run.

Run from the repository root::

    .venv/bin/python bench/bench_lsystem.py

Target (printed, not asserted): ABOP fig. 1.24 (a), ``F -> F[+F]F[-F]F`` at
n = 7 (195,311 symbols), at least 4x faster than the plain loop
``"".join(rules.get(c, c) for c in s)`` per step.  The other lines are reported
as measured: fig. 1.24 (d) n = 7, the bush of fig. 1.25 n = 7, the stochastic
fig. 1.27 at n = 8 (anchor: the same loop drawing with ``random.random`` and
``bisect`` per F), and ABOP's monopodial tree (fig. 2.6 rules, parametric) at
n = 13 and 15 (anchor: a loop over (symbol, params) pairs calling hand-written
Python functions for A, B and C, i.e. the rules compiled by hand).  Timings are
best of N interleaved rounds (ours, anchor, ours, anchor, ...), parse excluded
(it is done once per system), with the 1-minute load average beside each line.
Each line checks the two sides agree first: the same word (and parameters), or
for the stochastic system the same alphabet and lengths within 2x.
"""

import random
from bisect import bisect_right
from functools import partial
from itertools import accumulate

import _loader

from worldseed.core.trees import lsystem  # noqa: E402

REPEATS = 7


def plain(axiom, rules, n):
    s = axiom
    for _ in range(n):
        s = "".join(rules.get(c, c) for c in s)
    return s


def plain_stochastic(axiom, choices, n, seed):
    rnd = random.Random(seed)
    successors, weights = zip(*choices)
    cumulative = list(accumulate(weights))
    total = cumulative[-1]
    s = axiom
    for _ in range(n):
        s = "".join(successors[bisect_right(cumulative, rnd.random() * total)] if c == "F" else c for c in s)
    return s


MONOPODIAL = """
A(l,w) : * -> !(w)F(l)[&(a0)B(l*r2,w*wr)]/(d)A(l*r1,w*wr)
B(l,w) : * -> !(w)F(l)[-(a2)$C(l*r2,w*wr)]C(l*r1,w*wr)
C(l,w) : * -> !(w)F(l)[+(a2)$B(l*r2,w*wr)]B(l*r1,w*wr)
"""
MONOPODIAL_CONSTANTS = {"r1": 0.9, "r2": 0.6, "a0": 45, "a2": 45, "d": 137.5, "wr": 0.707}


def plain_monopodial(n):
    r1, r2, a0, a2, d, wr = 0.9, 0.6, 45.0, 45.0, 137.5, 0.707
    rules = {
        "A": lambda length, width: [
            ("!", (width,)),
            ("F", (length,)),
            ("[", ()),
            ("&", (a0,)),
            ("B", (length * r2, width * wr)),
            ("]", ()),
            ("/", (d,)),
            ("A", (length * r1, width * wr)),
        ],
        "B": lambda length, width: [
            ("!", (width,)),
            ("F", (length,)),
            ("[", ()),
            ("-", (a2,)),
            ("$", ()),
            ("C", (length * r2, width * wr)),
            ("]", ()),
            ("C", (length * r1, width * wr)),
        ],
        "C": lambda length, width: [
            ("!", (width,)),
            ("F", (length,)),
            ("[", ()),
            ("+", (a2,)),
            ("$", ()),
            ("B", (length * r2, width * wr)),
            ("]", ()),
            ("B", (length * r1, width * wr)),
        ],
    }
    word = [("A", (1.0, 10.0))]
    for _ in range(n):
        out = []
        for symbol, p in word:
            rule = rules.get(symbol)
            if rule is not None and len(p) == 2:
                out.extend(rule(*p))
            else:
                out.append((symbol, p))
        word = out
    return word


def report(name, race, modules, same):
    ours, anchor = race.seconds
    print(
        f"{name}: ours {ours:.4f} s, anchor {anchor:.4f} s, ratio {race.ratio():.1f}x  ({modules:,} modules; "
        f"{same}; {race.load_text()})"
    )


def main():
    for name, axiom, rules, n in [
        ("fig 1.24a n=7", "F", {"F": "F[+F]F[-F]F"}, 7),
        ("fig 1.24d n=7", "X", {"X": "F[+X]F[-X]+X", "F": "FF"}, 7),
        (
            "fig 1.25 bush n=7",
            "A",
            {"A": "[&FL!A]/////'[&FL!A]///////'[&FL!A]", "F": "S/////F", "S": "FL", "L": "['''^^{-f+f+f-|-f+f+f}]"},
            7,
        ),
    ]:
        system = lsystem.parse(axiom, "\n".join(f"{k} -> {v}" for k, v in rules.items()))
        race = _loader.interleaved(REPEATS, partial(lsystem.expand, system, n), partial(plain, axiom, rules, n))
        word, reference = race.results
        assert word.symbols == reference, name
        report(name, race, len(word), "same word")

    choices = [("F[+F]F[-F]F", 0.33), ("F[+F]F", 0.33), ("F[-F]F", 0.34)]
    system = lsystem.parse("F", "\n".join(f"F -> {s} : {w}" for s, w in choices))
    race = _loader.interleaved(
        REPEATS, lambda: lsystem.expand(system, 8, seed=1), lambda: plain_stochastic("F", choices, 8, 1)
    )
    word, reference = race.results
    # different random streams, so different words: equivalent means the same alphabet, balanced brackets
    # and lengths within 2x of each other
    for w in (word.symbols, reference):
        assert set(w) == set("F[]+-") and w.count("[") == w.count("]"), "fig 1.27"
    assert 0.5 < len(word) / len(reference) < 2, ("fig 1.27", len(word), len(reference))
    report("fig 1.27 stochastic n=8", race, len(word), f"anchor {len(reference):,}, same alphabet")

    system = lsystem.parse("A(1,10)", MONOPODIAL, constants=MONOPODIAL_CONSTANTS)
    for n in (13, 15):
        race = _loader.interleaved(3, partial(lsystem.expand, system, n), partial(plain_monopodial, n))
        word, reference = race.results
        assert word.symbols == "".join(s for s, _ in reference)
        assert word.params == tuple(p for _, p in reference)
        report(f"monopodial tree (parametric) n={n}", race, len(word), "same word and parameters")


if __name__ == "__main__":
    main()
