"""Writing plain values as TOML (the standard library only reads it)."""

import json
import math
from collections.abc import Mapping

__all__ = ["toml_value", "toml_table"]


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "nan"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a valid TOML basic string (escapes \n, \\, \")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def toml_value_table(table: Mapping[str, object]) -> str:
    """``{"a": 1}`` as an inline table ``{ a = 1 }``."""
    return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in table.items()) + " }"


def toml_table(table: Mapping[str, object]) -> list[str]:
    """Lines ``key = value`` of a flat table (dict values as inline tables, strings with newlines
    as multi-line literal strings when they hold no triple quote)."""
    lines = []
    for key, value in table.items():
        if isinstance(value, dict):
            lines.append(f"{key} = {toml_value_table(value)}")
        elif isinstance(value, str) and "\n" in value and "'''" not in value:
            lines.append(f"{key} = '''\n{value}'''")
        else:
            lines.append(f"{key} = {toml_value(value)}")
    return lines
