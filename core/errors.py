"""The one public error type of core, and its recipe flavour.

Every check in core raises :class:`ParameterError` with a message that names
the parameter, shows the value and states what is allowed, e.g.::

    octaves must be an integer in [1, 16], got 40

It subclasses both ``ValueError`` and ``TypeError``, so callers may catch
either; the Blender side catches it and turns it into a report.

>>> issubclass(RecipeError, ParameterError) and issubclass(ParameterError, ValueError)
True
"""

__all__ = ["ParameterError", "RecipeError", "short"]

#: Longest value an error message shows before cutting it (a 10 MB name must not make a 10 MB line).
SHOWN_CHARACTERS = 80


class ParameterError(ValueError, TypeError):
    """A parameter is out of range, of the wrong type, or not finite."""


class RecipeError(ParameterError):
    """A recipe file or value is malformed."""


def short(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """``repr(value)``, cut to about ``limit`` characters for an error message.

    >>> short("x" * 200, limit=12)
    "'xxxxxxxxxx... (202 characters)"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}... ({len(text):,} characters)"
