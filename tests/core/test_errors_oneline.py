"""Bad input as a new user or an attacker would write it: one short ParameterError, never a traceback."""

import re

import pytest

from worldseed.core import recipe, trees
from worldseed.core._checks import check_float, check_int, check_object_name
from worldseed.core.errors import ParameterError
from worldseed.core.trees import lsystem
from worldseed.core.trees._lsystem_expr import (
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSION_DEPTH,
    MAX_EXPRESSION_OPERATORS,
    ExpressionError,
    compile_expression,
)

#: Longest message accepted from any check here (the batch prints it as one line).
SHORT = 400


def message(call):
    with pytest.raises(ParameterError) as err:
        call()
    text = str(err.value)
    assert len(text) <= SHORT and "\n" not in text, text[:500]
    return text


def tree_rules(successor):
    return f'[[trees]]\naxiom = "A(1)"\nrules = "A(x) -> F({successor})A(x)"\n'


@pytest.mark.parametrize(
    "successor",
    [
        "+".join(["x"] * 5000),  # thousands of terms: RecursionError in the parser before
        "(" * 30000 + "x" + ")" * 30000,  # 60k characters of brackets
        "-" * 60000 + "x",  # a unary chain: MemoryError in the parser before
        "^".join(["x"] * 20000),
        "+".join(["x"] * 600),  # under the length limit, over the operator limit
        "(" * 60 + "x" + ")" * 60,  # short, but deeper than the bracket limit
    ],
)
def test_monstrous_expressions_are_one_short_line(successor):
    text = message(lambda: recipe.loads(tree_rules(successor), source="r.toml"))
    assert text.startswith("r.toml: trees[0]: line 1: expression ")
    assert re.search(r"longer than|operators, more than|deep \(brackets and powers\)", text)


@pytest.mark.parametrize(
    "text",
    [
        "+".join(["x"] * (MAX_EXPRESSION_OPERATORS + 2)),
        "-" * (MAX_EXPRESSION_OPERATORS + 1) + "x",
        "^".join(["x"] * (MAX_EXPRESSION_DEPTH + 2)),
        "(" * 40 + "^".join(["x"] * 12) + ")" * 40,
        "(" * (MAX_EXPRESSION_DEPTH + 1) + "x" + ")" * (MAX_EXPRESSION_DEPTH + 1),
        "x" * (MAX_EXPRESSION_CHARS + 1),
    ],
)
def test_expression_limits_are_checked_before_parsing(text):
    with pytest.raises(ExpressionError, match="expression '"):
        compile_expression(text, formals=("x",))


@pytest.mark.parametrize(
    "text",
    [
        "+".join(["x"] * (MAX_EXPRESSION_OPERATORS + 1)),  # exactly the most operators
        "-" * MAX_EXPRESSION_OPERATORS + "x",
        "(" * MAX_EXPRESSION_DEPTH + "x" + ")" * MAX_EXPRESSION_DEPTH,
        "^".join(["x"] * (MAX_EXPRESSION_DEPTH + 1)),
        "(" * 40 + "^".join(["x"] * 11) + ")" * 40,
        "sin(" * 45 + "x" + ")" * 45,
    ],
)
def test_expressions_at_the_limits_still_compile_and_run(text):
    system = lsystem.parse("A(1)", f"A(x) -> B({text})")
    assert len(lsystem.expand(system, 1)) == 1


def test_a_long_rule_line_is_cut_in_the_message():
    line = "A(x) -> " + "F(x)" * 10_000 + "F(x,)"
    text = message(lambda: lsystem.parse("A(1)", line))
    assert "(40,013 characters)" in text


@pytest.mark.parametrize(
    "toml, words",
    [
        ("[terrain]\nheight = " + "9" * 400 + "\n", "terrain.height must be a finite number in [0, 20000], got an"),
        ("[terrain]\nresolution = " + "9" * 400 + "\n", "got an integer of 400 digits"),
        ("[world]\nseed = -" + "9" * 400 + "\n", "world.seed must be an integer"),
        ("[terrain]\nheight = " + "9" * 5000 + "\n", "a number is too long (more than 4,300 digits)"),
        ("[terrain]\nresolution = 1e300\n", "terrain.resolution"),
        ("[terrain]\ncurve = " + "[" * 5000 + "]" * 5000 + "\n", "nest too deeply"),
        ('[world]\nname = "   "\n', "world.name must not be only spaces, got '   '"),
        ('[world]\nname = ""\n', "world.name"),
        ('[world]\nname = "' + "x" * 500_000 + '"\n', "(500,002 characters)"),
        ("[terrain]\nbasis = '" + "p" * 500_000 + "'\n", "terrain.basis"),
    ],
)
def test_recipe_values_give_one_short_line(toml, words):
    assert words in message(lambda: recipe.loads(toml, source="r.toml"))


@pytest.mark.parametrize(
    "rules",
    [
        "A(x) -> F(x*" + "9" * 400 + ")",  # OverflowError: int too large to convert to float, before
        "A(x) : x < " + "9" * 400 + " -> F(x)",
        "A(x) -> F(x) : " + "9" * 400,
        "A(x) -> F(x^" + "9" * 400 + ")",
        "A(x) -> F(x + 1e999)",
    ],
)
def test_numbers_too_large_for_a_float_in_tree_rules_give_one_line(rules):
    toml = f'[[trees]]\nname = "T"\naxiom = "A(1)"\nrules = "{rules}"\n'
    text = message(lambda: recipe.loads(toml, source="r.toml"))
    assert "is too large: numbers must be below 1.8e308" in text
    assert ("an integer of 400 digits" in text) == ("9" * 400 in rules)


@pytest.mark.parametrize(
    "toml, words",
    [  # int() refuses digits other than 0-9 and more than 4,300 of them: ValueError tracebacks before
        ('[[level]]\ngenerator = "wfc"\nsample = "rooms"\nclasses = { "²" = "wall" }\n', "got '²'"),
        ('[[level]]\ngenerator = "wfc"\nsample = "rooms"\ncounts = { "²" = [1] }\n', "got '²'"),
    ],
)
def test_text_that_looks_like_digits_gives_one_line(toml, words):
    assert words in message(lambda: recipe.loads(toml, source="r.toml"))


@pytest.mark.parametrize(
    ("variant", "words"), [("9" * 5000, "has variants 0..3, got 'a 999"), ("²", "unknown tile 'a ²'")]
)
def test_tileset_variant_numbers_give_one_line(tmp_path, variant, words):
    from worldseed.core.wfc import load_tileset

    path = tmp_path / "t.toml"
    path.write_text(
        f'name = "t"\n[[tile]]\nname = "a"\nsymmetry = "L"\n[[neighbor]]\nleft = "a {variant}"\nright = "a"\n'
    )
    assert words in message(lambda: load_tileset(str(path)))


def test_checks_show_huge_numbers_by_their_size():
    assert "an integer of 401 digits" in message(lambda: check_float(10**400, name="h", bounds=(0, 1)))
    assert "an integer of 401 digits" in message(lambda: check_int(10**400, name="n", bounds=(0, 1)))
    assert "about 10,000 digits" in message(lambda: check_int(-(10**9999), name="n", bounds=(0, 1)))
    assert "got 1e+300" not in message(lambda: check_int(1e300, name="n", bounds=(0, 1)))  # shown by its size


@pytest.mark.parametrize("name", [" ", "   ", "\t"])
def test_object_names_of_only_spaces_are_refused(name):
    pattern = re.compile(r"^[A-Za-z0-9 _\-]{1,48}$")
    with pytest.raises(ParameterError):
        check_object_name(name, name="world.name", pattern=pattern)
    assert check_object_name(" Isle ", name="world.name", pattern=pattern) == " Isle "


def test_a_rule_failing_while_growing_names_the_tree_and_the_spec():
    spec = trees.from_dict({"name": "Oak", "axiom": "A(1)", "rules": "A(x) -> F(x/0)A(x)", "iterations": 3})
    with pytest.raises(ParameterError, match=r"^tree 'Oak': iteration 1: rewriting A\(1\) failed") as err:
        trees.grow_tree(spec)
    assert err.value.spec == spec


def test_the_module_limit_says_what_a_recipe_can_change():
    spec = trees.from_dict({"axiom": "F", "rules": "F -> FFFFFFFFFF", "iterations": 12})
    text = message(lambda: trees.grow_tree(spec))
    assert "use fewer iterations (iterations = 12 now)" in text and "max_modules" not in text
    # the L-system API itself, where max_modules is a parameter, still names it
    with pytest.raises(lsystem.WordTooLong, match="raise max_modules") as err:
        lsystem.expand(lsystem.parse("F", "F -> FFFFFFFFFF"), 12, max_modules=1000)
    assert (err.value.length, err.value.iteration, err.value.limit) == (10_000, 4, 1000)
