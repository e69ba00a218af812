"""Arithmetic of parametric L-systems: rule-text expressions checked with ``ast`` and turned into Python source.

An expression such as ``l*r1^2 && !(w > 1)`` is first translated to Python
syntax (``^`` -> ``**``, ``&&`` -> ``and``, ``||`` -> ``or``, ``!`` -> ``not``),
parsed with ``ast.parse(mode="eval")`` and walked node by node.  Only a
whitelist survives: numbers, the formal parameters, named constants, ``pi``,
``+ - * /``, power, unary minus, comparisons, ``and``/``or``/``not`` and calls of
the functions in `FUNCTIONS`.  The walk rewrites the tree on the way:

* formal parameter ``l`` -> ``_p0`` (its position in the predecessor),
* constants and ``pi`` -> their float value (folded in, no lookup at run time),
* integer literals -> floats, so parameters stay floats,
* ``a ** b`` -> ``_pow(a, b)`` (as ``math.pow``: a float or an error, never complex),
* ``sin(x)`` -> ``_sin(x)`` (degrees), ``rand(lo, hi)`` -> ``_rand(_u, lo, hi)``,

and `ast.unparse` gives the Python source that the rewriting engine pastes
into one generated function per production group (see ``_rewrite``).  The
generated code can only see `NAMESPACE`, so nothing else is reachable.
"""

import ast
import keyword
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .. import exact

__all__ = [
    "ExpressionError",
    "Expression",
    "MAX_EXPRESSION_CHARS",
    "MAX_EXPRESSION_OPERATORS",
    "MAX_EXPRESSION_DEPTH",
    "FUNCTIONS",
    "NAMESPACE",
    "RESERVED",
    "compile_expression",
    "evaluate_constant",
    "check_name",
]


class ExpressionError(ValueError):
    """What is wrong with one expression (the caller adds the line and text)."""


#: Longest expression, in characters (a rule's expressions are tens of characters long).
MAX_EXPRESSION_CHARS = 2_000
#: Most operators in one expression, and deepest nesting (brackets plus powers, each ``^`` becomes a
#: call): the parser and the rewriting walk recurse once per operator, and Python compiles at most
#: 200 nested brackets, so a longer chain would end in a RecursionError instead of a message.
MAX_EXPRESSION_OPERATORS = 200
MAX_EXPRESSION_DEPTH = 50
_OPERATOR = re.compile(r"\*\*|&&|\|\||[<>=!]=|[-+*/^%<>!,]|\band\b|\bor\b|\bnot\b")


def _shown(text: str, limit: int = 60) -> str:
    """``repr(text)`` cut to about ``limit`` characters, for a message."""
    text = repr(text)
    return text if len(text) <= limit else f"{text[: limit - 4]}...' ({len(text) - 2:,} characters)"


def _check_size(text: str) -> None:
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(
            f"expression {_shown(text)} is longer than {MAX_EXPRESSION_CHARS:,} characters; "
            "split it with constants or a simpler formula"
        )
    operators = len(_OPERATOR.findall(text))
    if operators > MAX_EXPRESSION_OPERATORS:
        raise ExpressionError(
            f"expression {_shown(text)} has {operators:,} operators, more than {MAX_EXPRESSION_OPERATORS}; "
            "use a simpler formula"
        )
    depth = deepest = 0
    for c in text:
        if c in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif c in ")]":
            depth -= 1
    deepest += text.count("^") + text.count("**")
    if deepest > MAX_EXPRESSION_DEPTH:
        raise ExpressionError(
            f"expression {_shown(text)} nests {deepest:,} deep (brackets and powers), "
            f"more than {MAX_EXPRESSION_DEPTH}; use a simpler formula"
        )


# Angles are degrees; a rule's numbers decide the tree's shape (and, through floor and the
# conditions, its structure), so every function is core.exact's (the same bits on every CPU,
# where the C library's math.sin and friends differ between machines).  An angle is first
# reduced modulo 360 degrees, exactly (fmod is exact), so any size of angle works.  Errors are
# the ones math raises: ValueError for a domain error, OverflowError for a range error.


def _checked(value: float, *args: float) -> float:
    if value != value and not any(a != a for a in args):
        raise ValueError("math domain error")
    if value in (math.inf, -math.inf) and all(math.isfinite(a) for a in args):
        raise OverflowError("math range error")
    return value


def _sin(x: float) -> float:
    return _checked(exact.sin(math.radians(math.fmod(float(x), 360.0))), x)


def _cos(x: float) -> float:
    return _checked(exact.cos(math.radians(math.fmod(float(x), 360.0))), x)


def _tan(x: float) -> float:
    return _checked(exact.tan(math.radians(math.fmod(float(x), 360.0))), x)


def _asin(x: float) -> float:
    return math.degrees(_checked(exact.asin(float(x)), x))


def _acos(x: float) -> float:
    return math.degrees(_checked(exact.acos(float(x)), x))


def _atan(x: float) -> float:
    return math.degrees(exact.atan(float(x)))


def _atan2(y: float, x: float) -> float:
    return math.degrees(exact.atan2(float(y), float(x)))


def _exp(x: float) -> float:
    return _checked(exact.exp(float(x)), x)


def _log(x: float) -> float:
    if x <= 0.0:
        raise ValueError("math domain error")
    return exact.log(float(x))


def _pow(a: float, b: float) -> float:
    """``a ** b`` as ``math.pow`` (a float or an error: never complex), by core.exact.

    A negative base needs an integral exponent (the sign from its parity), zero a non-negative one.
    """
    a, b = float(a), float(b)
    if (a == 0.0 and b < 0.0) or (a < 0.0 and math.isfinite(b) and b != math.floor(b)):
        raise ValueError("math domain error")
    if a < 0.0 and abs(b) > exact.POW_SQUARING:  # an integral power of a negative base: the sign by parity
        magnitude = _checked(exact.pow(-a, b), a, b)
        return -magnitude if math.fmod(b, 2.0) != 0.0 else magnitude
    return _checked(exact.pow(a, b), a, b)


def _floor(x: float) -> float:
    return float(math.floor(x))


def _ceil(x: float) -> float:
    return float(math.ceil(x))


def _rand(u: Callable[[], float], lo: float, hi: float) -> float:
    return lo + (hi - lo) * u()


#: Functions an expression may call: name -> (implementation, fewest arguments, most arguments).
#: Angles are in degrees, as everywhere in the rule text.
FUNCTIONS = {
    "sin": (_sin, 1, 1),
    "cos": (_cos, 1, 1),
    "tan": (_tan, 1, 1),
    "asin": (_asin, 1, 1),
    "acos": (_acos, 1, 1),
    "atan": (_atan, 1, 1),
    "atan2": (_atan2, 2, 2),
    "sqrt": (math.sqrt, 1, 1),
    "abs": (abs, 1, 1),
    "min": (min, 2, None),
    "max": (max, 2, None),
    "floor": (_floor, 1, 1),
    "ceil": (_ceil, 1, 1),
    "exp": (_exp, 1, 1),
    "log": (_log, 1, 1),
    "rand": (_rand, 2, 2),
}
#: Names with a meaning of their own: no formal parameter or constant may use them.
RESERVED = frozenset(FUNCTIONS) | {"pi", "and", "or", "not"}
#: The only globals generated code can see.
NAMESPACE = {
    "__builtins__": {},
    "float": float,
    "_pow": _pow,
    **{"_" + name: impl for name, (impl, _, _) in FUNCTIONS.items()},
}

_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_BAD_OPERATORS = {
    ast.Mod: "'%' (remainder) is not supported",
    ast.FloorDiv: "'//' is not supported (use floor(a / b))",
    ast.BitAnd: "'&' is not an operator here (use && or 'and')",
    ast.BitOr: "'|' is not an operator here (use || or 'or')",
    ast.BitXor: "'^' could not be read as a power",
    ast.LShift: "'<<' is not supported",
    ast.RShift: "'>>' is not supported",
    ast.MatMult: "'@' is not supported",
    ast.Invert: "'~' is not supported in expressions",
}
_TRANSLATE = re.compile(r"&&|\|\||!(?!=)|\^")
_SPELLING = {"&&": " and ", "||": " or ", "!": " not ", "^": "**"}


@dataclass(frozen=True)
class Expression:
    """One checked expression.

    source : str -- Python source over ``_p0, _p1, ...`` (and ``_u`` when ``uses_rand``).
    uses_rand : bool -- it calls ``rand``, so it draws from the generator each time it runs.
    formals : frozenset of int -- positions of the formal parameters it reads.
    boolean : bool -- it contains a comparison or logic, so its value may be a bool.
    """

    source: str
    uses_rand: bool
    formals: frozenset[int]
    boolean: bool

    @property
    def float_source(self) -> str:
        """Source whose value is always a float (comparisons give 1.0 / 0.0)."""
        return f"float({self.source})" if self.boolean else self.source


def check_name(name: str, *, what: str) -> None:
    """Raise ExpressionError unless ``name`` can name a formal parameter or a constant."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ExpressionError(f"{what} {name!r} is not a valid name (letters, digits and _, not starting with a digit)")
    if name in RESERVED:
        raise ExpressionError(f"{what} {name!r} clashes with the built-in {name!r}")
    if name.startswith("_"):
        raise ExpressionError(f"{what} {name!r} may not start with '_'")


class _Rewriter:
    """Check a parsed expression against the whitelist and rewrite it (see the module docstring)."""

    def __init__(self, formals: Sequence[str], constants: Mapping[str, float], allow_rand: bool) -> None:
        self.formals = {name: i for i, name in enumerate(formals)}
        self.constants = constants
        self.allow_rand = allow_rand
        self.uses_rand = False
        self.needs_float = False  # bool-valued nodes inside: wrap the result in float()
        self.used: set[int] = set()

    def visit(self, node: ast.AST) -> ast.expr:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise ExpressionError(f"{_describe(node)} is not allowed in an expression")
        return ast.copy_location(method(node), node)

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExpressionError(f"{value!r} is not a number")
        try:
            value = float(value)  # an integer literal of 309 digits or more has no float
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            written = f"an integer of {len(str(node.value)):,} digits" if isinstance(node.value, int) else "a number"
            raise ExpressionError(f"{written} is too large: numbers must be below 1.8e308 (float64)")
        return ast.Constant(value)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        name = node.id
        if name in self.formals:
            self.used.add(self.formals[name])
            return ast.Name(f"_p{self.formals[name]}", ast.Load())
        if name in self.constants:
            return ast.Constant(float(self.constants[name]))
        if name == "pi":
            return ast.Constant(math.pi)
        if name in FUNCTIONS:
            raise ExpressionError(f"function {name!r} needs arguments, e.g. {name}(x)")
        known = [*self.formals, *self.constants]
        hint = f"; known names: {', '.join(known)}" if known else "; no parameters or constants are defined here"
        raise ExpressionError(f"unknown name {name!r}{hint}")

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        op = type(node.op)
        if op in _BAD_OPERATORS:
            raise ExpressionError(_BAD_OPERATORS[op])
        left, right = self.visit(node.left), self.visit(node.right)
        if op is ast.Pow:
            return ast.Call(ast.Name("_pow", ast.Load()), [left, right], [])
        return ast.BinOp(left, node.op, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        op = type(node.op)
        if op in _BAD_OPERATORS:
            raise ExpressionError(_BAD_OPERATORS[op])
        if op is ast.Not:
            self.needs_float = True
        return ast.UnaryOp(node.op, self.visit(node.operand))

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.needs_float = True
        return ast.BoolOp(node.op, [self.visit(v) for v in node.values])

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        for op in node.ops:
            if not isinstance(op, _COMPARE):
                raise ExpressionError(f"comparison {_describe(op)} is not supported (use < <= > >= == !=)")
        self.needs_float = True
        return ast.Compare(self.visit(node.left), node.ops, [self.visit(c) for c in node.comparators])

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if not isinstance(node.func, ast.Name):
            raise ExpressionError(f"only the functions {', '.join(FUNCTIONS)} can be called")
        name = node.func.id
        if name not in FUNCTIONS:
            raise ExpressionError(f"unknown function {name!r}; available: {', '.join(FUNCTIONS)}")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"{name}() takes plain arguments only")
        _, lo, hi = FUNCTIONS[name]
        n = len(node.args)
        if n < lo or (hi is not None and n > hi):
            want = str(lo) if lo == hi else f"at least {lo}"
            raise ExpressionError(f"{name}() takes {want} argument{'s' if want != '1' else ''}, got {n}")
        args = [self.visit(a) for a in node.args]
        if name == "rand":
            if not self.allow_rand:
                raise ExpressionError("rand() is only allowed in productions (it needs the seeded generator)")
            self.uses_rand = True
            args.insert(0, ast.Name("_u", ast.Load()))
        return ast.Call(ast.Name("_" + name, ast.Load()), args, [])


def _describe(node: ast.AST) -> str:
    names = {
        "Attribute": "attribute access ('.')",
        "Subscript": "indexing ('[ ]')",
        "IfExp": "'if ... else'",
        "Lambda": "'lambda'",
        "Tuple": "a tuple (stray ',')",
        "List": "a list",
        "Dict": "a dict",
        "Set": "a set",
        "Starred": "'*'",
        "NamedExpr": "':='",
        "JoinedStr": "a string",
        "Is": "'is'",
        "IsNot": "'is not'",
        "In": "'in'",
        "NotIn": "'not in'",
    }
    return names.get(type(node).__name__, f"'{type(node).__name__}'")


def compile_expression(
    text: str, *, formals: Sequence[str] = (), constants: Mapping[str, float] | None = None, allow_rand: bool = True
) -> Expression:
    """Check ``text`` and return an `Expression` whose source computes a float.

    Parameters
    ----------
    text : str
        The expression as written in the rule text, e.g. ``"l*0.7"``.
    formals : tuple of str
        Formal parameter names of the predecessor, in order (``_p0``, ``_p1`` ...).
    constants : mapping of str to float, optional
        Named constants, folded into the source as numbers.
    allow_rand : bool
        Whether ``rand(lo, hi)`` may be called.

    Raises
    ------
    ExpressionError
        With a message that says what is wrong (the caller adds where).

    >>> compile_expression("l^2 + sin(a)", formals=("l",), constants={"a": 30}).source
    '_pow(_p0, 2.0) + _sin(30.0)'
    """
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("empty expression")
    _check_size(text.strip())
    python = _TRANSLATE.sub(lambda m: _SPELLING[m.group()], text.strip())
    try:
        tree = ast.parse(python, mode="eval")
        rewriter = _Rewriter(formals, constants or {}, allow_rand)
        body = rewriter.visit(tree.body)
        source = ast.unparse(ast.fix_missing_locations(body))
    except SyntaxError as err:
        hint = " (use == to compare)" if re.search(r"(?<![<>=!])=(?!=)", text) else ""
        raise ExpressionError(f"syntax error in expression {_shown(text.strip())}: {err.msg}{hint}") from None
    except (RecursionError, MemoryError):  # the size checks above should make this unreachable
        raise ExpressionError(f"expression {_shown(text.strip())} is too complex; use a simpler formula") from None
    return Expression(source, rewriter.uses_rand, frozenset(rewriter.used), rewriter.needs_float)


def evaluate_constant(text: str, *, constants: Mapping[str, float] | None = None, what: str = "expression") -> float:
    """Value of an expression of numbers and constants only (no parameters, no rand)."""
    expression = compile_expression(text, constants=constants, allow_rand=False)
    try:
        value = eval(compile(expression.float_source, "<l-system>", "eval"), dict(NAMESPACE))  # noqa: S307 (checked)
    except (ArithmeticError, ValueError) as err:
        raise ExpressionError(f"{what} {_shown(text.strip())} cannot be evaluated: {err}") from None
    return float(value)
