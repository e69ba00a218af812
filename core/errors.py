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
#: Longest path shown whole (paths run longer than other values, and their end names the file).
SHOWN_PATH_CHARACTERS = 240


class ParameterError(ValueError, TypeError):
    """A parameter is out of range, of the wrong type, or not finite."""


class RecipeError(ParameterError):
    """A recipe file or value is malformed."""


def short(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """``repr(value)``, cut to about ``limit`` characters for an error message.

    A path (a string with a ``/`` or ``\\`` in it) is shown whole up to
    :data:`SHOWN_PATH_CHARACTERS`, and past that keeps its end, so a long folder never hides the
    file's name; anything else keeps its start.

    >>> short("x" * 200, limit=12)
    "'xxxxxxxxxx... (202 characters)"
    >>> short("/deep" * 60 + "/tileset.toml")[-40:]
    "deep/deep/tileset.toml' (315 characters)"
    """
    text = repr(value)
    path = isinstance(value, str) and ("/" in value or "\\" in value)
    if path:
        limit = max(limit, SHOWN_PATH_CHARACTERS)
    if len(text) <= limit:
        return text
    if path:
        head = max(limit // 3, 2)
        tail = max(limit - head - 3, 2)
        return f"{text[:head]}...{text[-tail:]} ({len(text):,} characters)"
    return f"{text[: limit - 1]}... ({len(text):,} characters)"
