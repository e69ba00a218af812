"""Reading L-system rule text: productions, modules, words, and the checks with line-numbered messages.

The syntax itself is documented in ``core.lsystem``.  This module splits the
text into `Production` records (`parse_rules`), reads words such as
``F(1)[+A(2,3*2)]`` (`parse_word`) and checks one production completely,
turning its successor and condition into `Expression` sources
(`compile_production`).  Every error is an `LSystemError` that says where
(``line 3`` or ``axiom``), what is wrong, and quotes the text.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError, short
from ._lsystem_expr import Expression, ExpressionError, check_name, compile_expression, evaluate_constant
from .skeleton import Word

__all__ = [
    "LSystemError",
    "Production",
    "CompiledProduction",
    "EXCLUDED",
    "is_symbol",
    "parse_rules",
    "parse_word",
    "check_brackets",
    "check_symbols",
    "compile_production",
    "fail",
]

#: Printable characters that can never be module symbols (they are rule-text punctuation).
EXCLUDED = frozenset("(),:;#")
_ARROW = re.compile(r"-?->|→")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


class LSystemError(ParameterError):
    """Malformed L-system rules or axiom, or an expansion that cannot be carried out.

    The message names where (``line N`` of the rule text, or ``axiom``), what
    is wrong, and quotes the offending text.
    """


@dataclass(frozen=True, slots=True)
class Production:
    """One production ``predecessor(params) : condition -> successor : weight``.

    Attributes
    ----------
    predecessor : str
        The one-character module symbol it rewrites.
    params : tuple of str
        Formal parameter names; it matches modules with exactly this many parameters.
    condition : str or None
        Expression that must hold for the production to apply (None: always).
    successor : str
        The replacement, as written (modules with parameter expressions).
    weight : float or None
        Relative probability in a stochastic choice (None: not weighted).
    line : int
        Line of the rule text it came from (0 when built by hand).
    text : str
        The production as written (for messages; not compared).
    """

    predecessor: str
    params: tuple[str, ...] = ()
    condition: str | None = None
    successor: str = ""
    weight: float | None = None
    line: int = 0
    text: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        head = self.predecessor + (f"({','.join(self.params)})" if self.params else "")
        if self.condition is not None:
            head += f" : {self.condition}"
        tail = f" : {self.weight:g}" if self.weight is not None else ""
        return f"{head} -> {self.successor}{tail}"


@dataclass(frozen=True)
class CompiledProduction:
    """A checked production: successor symbols and, per successor module, its parameter expressions."""

    production: Production
    symbols: str  # successor module symbols, one char each
    params: tuple[tuple[Expression, ...], ...]  # per successor module (empty: no parameters)
    condition: Expression | None

    @property
    def arity(self) -> int:
        return len(self.production.params)

    @property
    def uses_rand(self) -> bool:
        exprs = [e for module in self.params for e in module]
        if self.condition is not None:
            exprs.append(self.condition)
        return any(e.uses_rand for e in exprs)

    @property
    def parametric(self) -> bool:
        """Whether any successor module carries parameters."""
        return any(self.params)


def fail(where: str, what: str, text: str) -> LSystemError:
    """An LSystemError that says where, what and quotes the text."""
    quoted = repr(text)
    if len(quoted) > 120:  # a rule line may be 65,536 characters long; the message stays one short line
        quoted = f"{quoted[:116]}...' ({len(text):,} characters)"
    return LSystemError(f"{where}: {what} -- in {quoted}")


def is_symbol(c: str) -> bool:
    """Whether the single character ``c`` may be a module symbol."""
    return c.isprintable() and not c.isspace() and c not in EXCLUDED


def check_symbols(symbols: str) -> None:
    """Raise ExpressionError naming the first character that cannot be a module symbol."""
    for c in set(symbols):
        if not is_symbol(c):
            raise ExpressionError(f"{c!r} (U+{ord(c):04X}) cannot be a module symbol")


def check_brackets(symbols: str, where: str) -> None:
    """Raise ExpressionError unless ``[ ]`` and ``{ }`` each balance in ``symbols`` (``where`` names it)."""
    for open_, close in ("[]", "{}"):
        if open_ not in symbols and close not in symbols:
            continue
        codes = np.frombuffer(symbols.encode("utf-32-le"), np.uint32)
        depth = np.cumsum((codes == ord(open_)).astype(np.int64) - (codes == ord(close)))
        if depth.min() < 0:
            at = int(np.argmax(depth < 0))
            raise ExpressionError(
                f"unbalanced {open_!r} in {where}: {close!r} at module {at + 1} closes "
                f"a {'branch' if open_ == '[' else 'polygon'} that was never opened"
            )
        if depth[-1] != 0:
            raise ExpressionError(
                f"unbalanced {open_!r} in {where}: {int(depth[-1])} {open_!r} left open (each needs its {close!r})"
            )


def _split_arguments(text: str, start: int) -> tuple[list[str], int]:
    """Arguments of the parenthesis opened at ``text[start]``; returns (list of str, index after ')')."""
    depth, args, begin = 0, [], start + 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(text[begin:i])
                return args, i + 1
        elif c == "," and depth == 1:
            args.append(text[begin:i])
            begin = i + 1
    raise ExpressionError(f"'(' at character {start + 1} is never closed")


def scan_modules(text: str) -> list[tuple[str, list[str]]]:
    """Split module text into ``[(symbol, [argument text, ...]), ...]``; whitespace between modules is ignored."""
    modules, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == "(":
            raise ExpressionError(f"'(' at character {i + 1} does not follow a module symbol")
        if c == ")":
            raise ExpressionError(f"unexpected ')' at character {i + 1}")
        if not is_symbol(c):
            raise ExpressionError(f"{c!r} at character {i + 1} cannot be a module symbol")
        j = i + 1
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] == "(":
            args, i = _split_arguments(text, j)
            if any(not a.strip() for a in args):
                raise ExpressionError(f"empty parameter in {text[j:i][:60]!r} after {c!r}")
            modules.append((c, [a.strip() for a in args]))
        else:
            modules.append((c, []))
            i += 1
    return modules


def parse_word(text: str, *, constants: Mapping[str, float] | None = None, where: str = "axiom") -> Word:
    """A `Word` from module text such as ``F(1)[+A(2,3*2)]`` (expressions of numbers and constants)."""
    if not isinstance(text, str):
        raise LSystemError(f"{where} must be a str, got {type(text).__name__}")
    try:
        modules = scan_modules(text)
        symbols = "".join(symbol for symbol, _ in modules)
        check_brackets(symbols, f"the {where}")
        params = tuple(
            tuple(
                float(a) if _NUMBER.fullmatch(a) else evaluate_constant(a, constants=constants, what="parameter")
                for a in args
            )
            for _, args in modules
        )
        bad = next((v for p in params for v in p if not math.isfinite(v)), None)
        if bad is not None:
            raise ExpressionError(f"parameters must be finite, got {bad}")
    except ExpressionError as err:
        raise fail(where, str(err), text) from None
    return Word(symbols, params if any(params) else None)


def _split_production(text: str, line: int, constants: Mapping[str, float] | None) -> Production:
    """One production's text -> `Production` (fields split and weight evaluated; the rest is checked later)."""
    where = f"line {line}"
    arrow = _ARROW.search(text)
    if arrow is None:
        raise fail(where, "missing arrow '->' between predecessor and successor", text)
    left, right = text[: arrow.start()], text[arrow.end() :]
    if _ARROW.search(right):
        raise fail(
            where,
            "a second arrow in the successor (put each production on its own line or separate them with ';')",
            text,
        )
    condition: str | None
    predecessor, colon, condition = left.partition(":")
    condition = condition.strip() if colon else None
    if condition == "":
        raise fail(where, "empty condition after ':' (write '*' for none)", text)
    if condition == "*":
        condition = None
    successor, weight = right, None
    if ":" in right:
        successor, _, weight_text = right.rpartition(":")
        try:
            weight = evaluate_constant(weight_text, constants=constants, what="weight")
        except ExpressionError as err:
            raise fail(where, f"the weight after the last ':' must be a positive number: {err}", text) from None
    try:
        modules = scan_modules(predecessor)
    except ExpressionError as err:
        raise fail(where, f"in the predecessor: {err}", text) from None
    if not modules:
        raise fail(where, "empty predecessor (nothing before the arrow)", text)
    if len(modules) > 1:
        if any(symbol in "<>" for symbol, _ in modules):
            raise fail(where, "context-sensitive productions ('<' or '>' in the predecessor) are not supported", text)
        raise fail(
            where,
            f"the predecessor must be a single module, got {len(modules)} "
            f"({short(''.join(s for s, _ in modules), limit=40)})",
            text,
        )
    symbol, formals = modules[0]
    return Production(symbol, tuple(formals), condition, successor.strip(), weight, line, text)


def parse_rules(text: str, *, constants: Mapping[str, float] | None = None) -> tuple[Production, ...]:
    """Productions of the rule text, in file order (see ``core.lsystem`` for the syntax)."""
    if not isinstance(text, str):
        raise LSystemError(f"rules must be a str, got {type(text).__name__}")
    productions = []
    for line, raw in enumerate(text.splitlines(), 1):
        for piece in raw.split("#", 1)[0].split(";"):
            piece = piece.strip()
            if piece:
                productions.append(_split_production(piece, line, constants))
    return tuple(productions)


def compile_production(production: Production, constants: Mapping[str, float]) -> CompiledProduction:
    """Check every part of ``production`` and return its `CompiledProduction`."""
    if not isinstance(production, Production):
        raise LSystemError(f"productions must be Production records, got {type(production).__name__}")
    where = f"line {production.line}" if production.line else "production"
    text = production.text or str(production)
    pred = production.predecessor
    if not isinstance(pred, str) or len(pred) != 1 or not is_symbol(pred):
        raise fail(where, f"the predecessor must be one module symbol, got {short(pred, limit=40)}", text)
    weight = production.weight
    if weight is not None and (
        isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight <= 0
    ):
        raise fail(where, f"the weight must be a positive finite number, got {short(weight, limit=40)}", text)
    formals = production.params
    try:
        if not isinstance(formals, tuple):
            raise ExpressionError(f"formal parameters must be a tuple of names, got {short(formals, limit=60)}")
        for name in formals:
            check_name(name, what="formal parameter")
            if constants and name in constants:
                raise ExpressionError(f"formal parameter {short(name, limit=40)} has the name of a constant")
        duplicates = sorted({name for name in formals if formals.count(name) > 1})
        if duplicates:
            raise ExpressionError(f"duplicate formal parameter {short(duplicates[0], limit=40)} in the predecessor")
        condition = None
        if production.condition is not None:
            condition = compile_expression(production.condition, formals=formals, constants=constants)
        if not isinstance(production.successor, str):
            raise ExpressionError(f"the successor must be a str, got {type(production.successor).__name__}")
        modules = scan_modules(production.successor)
        symbols = "".join(symbol for symbol, _ in modules)
        check_brackets(symbols, "the successor")
        params = tuple(
            tuple(compile_expression(a, formals=formals, constants=constants) for a in args) for _, args in modules
        )
    except ExpressionError as err:
        raise fail(where, str(err), text) from None
    return CompiledProduction(production, symbols, params, condition)
