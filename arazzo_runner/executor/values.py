"""Turning evaluated values into what is sent or stored, reporting every missing part by location."""

from __future__ import annotations

from typing import Any

from ..expressions import Missing
from ..pointer import format_pointer


def strip_missing(value: Any, where: str) -> tuple[Any, list[str]]:
    """Remove Missing members from containers; return the clean value and one message per removal.

    A Missing top-level value is returned as is (the caller decides whether that fails the step).
    """
    kind = type(value)
    if kind is not dict and kind is not list:  # scalars (the usual case): nothing to walk
        return value, ([f"{where}: {value.reason}"] if kind is Missing else [])
    problems: list[str] = []
    clean = _strip(value, [], where, problems)
    return clean, problems


def _strip(value: Any, path: list[str | int], where: str, problems: list[str]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, Missing):
                problems.append(f"{where}{format_pointer([*path, key])}: {item.reason}; member omitted")
                continue
            out[key] = _strip(item, [*path, key], where, problems)
        return out
    if isinstance(value, list):
        out_list = []
        for index, item in enumerate(value):
            if isinstance(item, Missing):
                problems.append(f"{where}{format_pointer([*path, index])}: {item.reason}; null sent instead")
                out_list.append(None)
                continue
            out_list.append(_strip(item, [*path, index], where, problems))
        return out_list
    return value
