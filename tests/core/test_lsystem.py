import dataclasses
import math
import re
import time
import tracemalloc
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldseed.core.errors import ParameterError
from worldseed.core.trees import _rewrite, lsystem
from worldseed.core.trees.lsystem import LSystemError, Production, expand, parse, parse_word
from worldseed.core.trees.skeleton import Word

# ABOP fig. 1.24 (REFERENCES.md 1.1): axiom, productions, n of the book.
FIG_1_24 = {
    "a": ("F", {"F": "F[+F]F[-F]F"}, 5),
    "b": ("F", {"F": "F[+F]F[-F][F]"}, 5),
    "c": ("F", {"F": "FF-[-F+F+F]+[+F-F-F]"}, 4),
    "d": ("X", {"X": "F[+X]F[-X]+X", "F": "FF"}, 7),
    "e": ("X", {"X": "F[+X][-X]FX", "F": "FF"}, 7),
    "f": ("X", {"X": "F-[[X]+X]+F[+FX]-X", "F": "FF"}, 5),
}
FIG_1_27 = "F -> F[+F]F[-F]F : 0.33\nF -> F[+F]F : 0.33\nF -> F[-F]F : 0.34"


def _rules_text(rules):
    return "\n".join(f"{k} -> {v}" for k, v in rules.items())


def _naive(axiom, rules, n):
    """Reference rewriting: one character at a time."""
    word = axiom
    for _ in range(n):
        word = "".join(rules.get(c, c) for c in word)
    return word


def _general(system, n, seed=0, limit=10**8):
    """The parametric engine run on any system (the fast one is chosen by expand when it can)."""
    return _rewrite.expand_general(system.axiom, system._program, n, np.random.default_rng(seed), limit)


# --- known results ----------------------------------------------------------------------------


def test_fig_1_24a_counts_f_as_powers_of_five():
    system = parse("F", "F -> F[+F]F[-F]F")
    for n in range(7):
        word = expand(system, n)
        assert word.params is None
        assert word.symbols.count("F") == 5**n


def test_fig_1_24a_n7_has_195311_symbols():
    assert len(expand(parse("F", "F -> F[+F]F[-F]F"), 7)) == 195_311


@pytest.mark.parametrize("fig", sorted(FIG_1_24))
def test_fig_1_24_symbol_counts_follow_the_growth_matrix(fig):
    axiom, rules, book_n = FIG_1_24[fig]
    alphabet = sorted(set(axiom + "".join(rules.values()) + "".join(rules)))
    index = {c: i for i, c in enumerate(alphabet)}
    growth = np.zeros((len(alphabet), len(alphabet)), dtype=np.int64)
    for c in alphabet:
        for d in rules.get(c, c):
            growth[index[c], index[d]] += 1
    start = np.zeros(len(alphabet), dtype=np.int64)
    for c in axiom:
        start[index[c]] += 1
    system = parse(axiom, _rules_text(rules))
    for n in range(book_n + 1):
        expected = start @ np.linalg.matrix_power(growth, n)
        word = expand(system, n)
        counts = Counter(word.symbols)
        assert [counts[c] for c in alphabet] == expected.tolist()
        assert len(word) == expected.sum()


@pytest.mark.parametrize("fig", sorted(FIG_1_24))
def test_fig_1_24_equals_naive_rewriting(fig):
    axiom, rules, book_n = FIG_1_24[fig]
    assert expand(parse(axiom, _rules_text(rules)), book_n).symbols == _naive(axiom, rules, book_n)


# --- properties -------------------------------------------------------------------------------

_piece = st.one_of(st.sampled_from("FGAB+-&"), st.text(alphabet="FAB+-", max_size=3).map(lambda s: "[" + s + "]"))
_successor = st.lists(_piece, max_size=4).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    axiom=st.text(alphabet="FGAB+-", min_size=1, max_size=4),
    rules=st.dictionaries(st.sampled_from("FGAB+-"), _successor, max_size=4),
    n=st.integers(0, 4),
)
def test_deterministic_expand_equals_naive_reference(axiom, rules, n):
    system = parse(axiom, _rules_text(rules))
    word = expand(system, n)
    assert word.symbols == _naive(axiom, rules, n)
    assert word.params is None
    assert _general(system, n).symbols == word.symbols


@settings(max_examples=40, deadline=None)
@given(
    weights=st.lists(st.floats(0.01, 10), min_size=1, max_size=3),
    second=st.booleans(),
    seed=st.integers(0, 2**32),
    n=st.integers(1, 4),
)
def test_fast_and_general_engines_agree_on_stochastic_systems(weights, second, seed, n):
    succ = ["F[+F]G", "FG", "G-F", ""]
    rules = [f"F -> {succ[i]} : {w!r}" for i, w in enumerate(weights)]
    if second:  # a second stochastic symbol and a deterministic one
        rules += ["G -> GF : 2", "G -> G[-X] : 1", "X -> FX"]
    system = parse("FGX", "\n".join(rules))
    assert not system.parametric
    assert expand(system, n, seed=seed).symbols == _general(system, n, seed=seed).symbols


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("FA+-!/"), st.lists(st.integers(-4000, 4000).map(lambda v: v / 4), max_size=3)),
        min_size=1,
        max_size=8,
    )
)
def test_parse_word_reads_str_of_a_word_back(modules):
    params = tuple(tuple(float(v) for v in p) for _, p in modules)
    word = Word("".join(s for s, _ in modules), params if any(params) else None)
    again = parse_word(str(word))
    assert again.symbols == word.symbols
    assert again.params == word.params


# --- stochastic -------------------------------------------------------------------------------


def test_stochastic_same_seed_same_word_and_seeds_differ():
    system = parse("F", FIG_1_27)
    words = [expand(system, 6, seed=s).symbols for s in (1, 1, 2, 3)]
    assert words[0] == words[1]
    assert len({words[1], words[2], words[3]}) == 3
    generator = expand(system, 6, seed=np.random.default_rng(1)).symbols
    assert generator == words[0]


def test_stochastic_frequencies_follow_the_weights():
    n = 40_000
    system = parse("F" * n, "F -> a : 1\nF -> bb : 2\nF -> ccc : 1.5\nF -> d")  # d unweighted: weight 1
    word = expand(system, 1, seed=5).symbols
    pieces = re.findall("a|bb|ccc|d", word)
    assert "".join(pieces) == word and len(pieces) == n
    counts = Counter(pieces)
    for piece, weight in {"a": 1, "bb": 2, "ccc": 1.5, "d": 1}.items():
        assert counts[piece] / n == pytest.approx(weight / 5.5, abs=0.015)


def test_stochastic_only_listed_successors_appear():
    system = parse("|".join("F" * 3000), FIG_1_27)
    successors = {"F[+F]F[-F]F", "F[+F]F", "F[-F]F"}
    chunks = expand(system, 1, seed=11).symbols.split("|")
    assert len(chunks) == 3000 and set(chunks) == successors


def test_stochastic_condition_selects_the_group():
    system = parse("F", "F : k > 1 -> A : 1 ; F : k > 1 -> B : 1 ; F -> C", constants={"k": 0})
    assert expand(system, 1).symbols == "C"
    system = parse("F" * 200, "F : k > 1 -> A : 1 ; F : k > 1 -> B : 1 ; F -> C", constants={"k": 2})
    assert set(expand(system, 1, seed=3).symbols) == {"A", "B", "C"}


def test_stochastic_non_ascii_symbols():
    system = parse("★ж★", "★ -> ★ж : 1 ; ★ -> ж : 1 ; ж -> ж★ : 3 ; ж -> ★★ : 1")
    for seed in (0, 1, 2):
        assert expand(system, 5, seed=seed).symbols == _general(system, 5, seed=seed).symbols


# --- parametric -------------------------------------------------------------------------------


def test_conditions_select_the_production():
    system = parse("A(3)", "A(x) : x>0 -> B(x)A(x-1)\nA(x) : x<=0 -> C")
    word = expand(system, 5)
    assert word.symbols == "BBBC"
    assert word.params == ((3.0,), (2.0,), (1.0,), ())


def test_expressions_evaluate():
    rules = (
        "A(x) -> B(x^2, 2^3^2, -x^2, sin(30), cos(60), tan(45), asin(0.5), atan2(1, 1), sqrt(16), "
        "abs(-2.5), min(x, 1), max(x, 1, 7), floor(2.7), ceil(2.1), exp(0), log(1), k*2, pi, x > 2 && !(x > 5))"
    )
    word = expand(parse("A(3)", rules, constants={"k": 1.25}), 1)
    expected = [9, 512, -9, 0.5, 0.5, 1, 30, 45, 4, 2.5, 1, 7, 2, 3, 1, 0, 2.5, math.pi, 1]
    assert word.symbols == "B"
    assert word.params[0] == pytest.approx(expected, abs=1e-12)
    assert all(type(v) is float for v in word.params[0])


def test_negative_constants_fold_into_valid_code():
    word = expand(parse("A(3)", "A(x) -> B(x*k, -k, k^2, x-k, k<x)", constants={"k": -2}), 1)
    assert word.params == ((-6.0, 2.0, 4.0, 5.0, 1.0),)


def test_production_str_reads_back():
    system = parse("A(1,1)", "A(l,w) : l > 1 && w < 2 -> !(w)F(l)[&(30)A(l*0.7,w)] : 0.5\nA(l,w) -> F : 2 ; F -> FF")
    for production in system.productions:
        again = parse("F", str(production)).productions[0]
        assert dataclasses.replace(again, line=production.line) == production


def test_matching_is_by_symbol_and_arity():
    system = parse("A(1)A(1,2)AA(1,2,3)", "A(x) -> B ; A(x,y) -> C(y, x) ; A -> D")
    word = expand(system, 1)
    assert word.symbols == "BCDA"
    assert word.params == ((), (2.0, 1.0), (), (1.0, 2.0, 3.0))


def test_monopodial_tree_shrinks_by_its_ratios():
    constants = {"r1": 0.9, "r2": 0.6, "a0": 45, "d": 137.5, "wr": 0.707}
    system = parse("A(1,10)", "A(l,w) : * -> !(w)F(l)[&(a0)B(l*r2,w*wr)]/(d)A(l*r1,w*wr)", constants=constants)
    word = expand(system, 3)
    apex = word.params[word.symbols.rindex("A")]
    assert apex == pytest.approx((0.9**3, 10 * 0.707**3))
    assert word.symbols == "!F[&B]/!F[&B]/!F[&B]/A"


def test_rand_is_seeded_and_drawn_left_to_right():
    system = parse("AA", "A -> B(rand(0, 1), rand(10, 20))C(rand(-1, 1))")
    u = np.random.default_rng(42).random(6)
    word = expand(system, 1, seed=42)
    assert word.symbols == "BCBC"
    assert [len(p) for p in word.params] == [2, 1, 2, 1]
    flat = [v for p in word.params for v in p]
    assert flat == pytest.approx([u[0], 10 + 10 * u[1], -1 + 2 * u[2], u[3], 10 + 10 * u[4], -1 + 2 * u[5]], abs=1e-12)
    assert expand(system, 1, seed=42).params == word.params
    assert expand(system, 1, seed=43).params != word.params


def test_weighted_choice_then_rand_within_a_module():
    system = parse("A(0)A(0)", "A(x) -> B(rand(0, 1)) : 1\nA(x) -> C(rand(0, 1)) : 3")
    for seed in range(5):
        u = np.random.default_rng(seed).random(4)
        word = expand(system, 1, seed=seed)
        assert word.symbols == "".join("B" if c * 4 < 1 else "C" for c in u[::2])
        assert word.params == ((u[1],), (u[3],))


def test_stochastic_parametric_frequencies():
    system = parse("A(1)" * 20_000, "A(x) : x > 0 -> B : 1 ; A(x) : x > 0 -> C : 3 ; A(x) : x > 5 -> D : 100")
    counts = Counter(expand(system, 1, seed=2).symbols)
    assert counts["D"] == 0
    assert counts["B"] / 20_000 == pytest.approx(0.25, abs=0.02)


def test_empty_successor_erases_and_unmatched_modules_are_copied():
    assert expand(parse("F+X-F", "X ->"), 1).symbols == "F+-F"
    assert expand(parse("F+X-F", "F ->"), 3).symbols == "+X-"


def test_iterations_zero_returns_the_axiom():
    word = expand(parse("F(2)[+A]", "F(x) -> F(x*2)"), 0)
    assert str(word) == "F(2)[+A]"


def test_system_built_by_hand():
    system = lsystem.LSystem(parse_word("A(2)"), (Production("A", ("x",), "x > 1", "A(x/2)F"),))
    assert str(expand(system, 3)) == "A(1)F"
    with pytest.raises(LSystemError, match="unknown name 'y'"):
        lsystem.LSystem(parse_word("A"), (Production("A", ("x",), None, "B(y)", line=4),))


def test_parse_word_with_constants_and_errors():
    assert parse_word("F(k*2)+", constants={"k": 3}).params == ((6.0,), ())
    assert parse_word("F[+F]").params is None
    with pytest.raises(LSystemError, match="rand"):
        parse_word("F(rand(0, 1))")
    with pytest.raises(LSystemError, match="unbalanced"):
        parse_word("F[+F")
    with pytest.raises(LSystemError, match="finite"):
        parse_word("F(1e400)")


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, match",
    [
        ("F -> F[+F", r"line 1: unbalanced '\[' in the successor: 1 '\[' left open"),
        ("F -> F]+F[", r"unbalanced '\['.*never opened"),
        ("F -> {.F", r"unbalanced '\{'"),
        ("F F", r"missing arrow"),
        ("-> F", r"empty predecessor"),
        ("FA -> F", r"single module"),
        ("A < B -> C", r"context-sensitive"),
        ("A < B > C -> D", r"context-sensitive"),
        ("F -> F : 0", r"weight must be a positive finite number, got 0"),
        ("F -> F : -1", r"weight must be a positive"),
        ("F -> F : 1e400", r"weight .*positive number: a number is too large: numbers must be below 1\.8e308"),
        ("F -> F : 1e308 * 10", r"weight must be a positive finite number, got inf"),
        ("F -> F : q", r"weight.*unknown name 'q'"),
        ("A(x) -> B(y)", r"unknown name 'y'"),
        ("A(x) -> B(foo(x))", r"unknown function 'foo'"),
        ("A(x) -> B(__import__(x))", r"unknown function '__import__'"),
        ("A(x) -> B(x.real)", r"attribute access"),
        ("A(x) -> B(x +)", r"syntax error"),
        ("A(x) : x = 1 -> B", r"syntax error.*use =="),
        ("A(x) : x % 2 -> B", r"'%'"),
        ("A(x) -> B(sin(x, 2))", r"sin\(\) takes 1 argument, got 2"),
        ("A(x) -> B(sin)", r"function 'sin' needs arguments"),
        ("A(x, x) -> B", r"duplicate formal parameter 'x'"),
        ("A(sin) -> B", r"clashes with the built-in 'sin'"),
        ("A(1) -> B", r"formal parameter '1' is not a valid name"),
        ("F -> FF\nF -> F", r"line 2: a second production for 'F'.*add ': weight'"),
        ("F -> F -> F", r"second arrow"),
        ("A(x) : -> B", r"empty condition"),
        ("F -> F(", r"never closed"),
        ("F -> F)", r"unexpected '\)'"),
        ("F -> F(1,)", r"empty parameter"),
    ],
)
def test_rule_errors(rules, match):
    with pytest.raises(LSystemError, match=match):
        parse("F", rules)


def test_error_names_the_line_and_quotes_the_text():
    with pytest.raises(LSystemError, match=r"^line 4: .*-- in 'G -> G\[\+G'$"):
        parse("F", "F -> F  # fine\n\n# a comment\nG -> G[+G")


def test_axiom_errors():
    with pytest.raises(LSystemError, match=r"axiom: unbalanced '\['"):
        parse("F[", "F -> F")
    with pytest.raises(LSystemError, match=r"axiom: .*unknown name 'z'"):
        parse("F(z)", "F -> F")


def test_allowed_rule_forms():
    system = parse(
        "A(1)",
        "A(x) -> B ; A(x,y) -> C  # same symbol, other arity\nA(x) --> D : 2 ; A(x) → E : 1.5 ; F -> FF : 1 ; F -> F",
    )
    assert [p.predecessor for p in system.productions] == ["A", "A", "A", "A", "F", "F"]
    assert [p.weight for p in system.productions] == [None, None, 2.0, 1.5, 1.0, None]
    assert system.productions[1].params == ("x", "y")


def test_expansion_errors_name_the_module_and_line():
    system = parse("A(2)", "B -> B\nA(x) -> A(1/(x-1))")
    with pytest.raises(LSystemError, match=r"iteration 2: rewriting A\(1\) failed \(productions on line 2\)"):
        expand(system, 3)
    with pytest.raises(LSystemError, match=r"math domain error"):
        expand(parse("A(-1)", "A(x) -> A(sqrt(x))"), 1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"iterations": 31}, "iterations must be an integer in \\[0, 30\\]"),
        ({"iterations": -1}, "iterations"),
        ({"max_modules": 0}, "max_modules must be an integer"),
        ({"seed": -1}, "seed"),
    ],
)
def test_expand_checks_its_parameters(kwargs, match):
    args = {"iterations": 2, **kwargs}
    with pytest.raises(ParameterError, match=match):
        expand(parse("F", "F -> FF"), **args)


def test_constants_are_checked():
    with pytest.raises(LSystemError, match="clashes"):
        parse("F", "F -> F", constants={"pi": 3})
    with pytest.raises(ValueError, match="constant k"):
        parse("F", "F -> F", constants={"k": float("nan")})


# --- max_modules ------------------------------------------------------------------------------


def test_runaway_deterministic_is_refused_at_once():
    system = parse("F", "F -> FFFFFFFFFF")
    start = time.perf_counter()
    with pytest.raises(LSystemError, match=r"10,000,000 modules at iteration 7, more than max_modules=5,000,000"):
        expand(system, 30)
    assert time.perf_counter() - start < 1.0


def test_runaway_stochastic_is_refused_before_building_the_step():
    system = parse("F", "F -> FFFFFFFFFF : 1\nF -> FFFFFFFFF[+F] : 1")
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(
            LSystemError, match=r"at least 10,[0-9,]+ modules at iteration 7, more than max_modules=2,000,000"
        ):
            expand(system, 30, max_modules=2_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 1.0
    assert peak < 10_000_000  # the word of iteration 7 alone would take more than 10 MB


def test_runaway_parametric_stops_at_max_modules():
    system = parse("A(1)", "A(x) -> A(x+1)A(x+1)A(x+1)")
    start = time.perf_counter()
    with pytest.raises(LSystemError, match=r"max_modules=10,000 modules at iteration 9"):
        expand(system, 30, max_modules=10_000)
    assert time.perf_counter() - start < 1.0
    assert len(expand(system, 8, max_modules=10_000)) == 3**8
