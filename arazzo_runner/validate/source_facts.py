"""Small facts the source checks (`validate/sources.py`) read off a description, a payload or an
expression: implicit credential parameters, computed payload paths, response-body pointers, hints."""

from __future__ import annotations

from typing import Any

from ..errors import ArazzoError, ExpressionError
from ..expressions import ResponseRef, compile_value, parse_expression
from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from ..model import ParameterDef
from ..sources import resolve_location
from ..sources.locations import is_http
from .checker import did_you_mean
from .rules.values import SELECTOR_KEYS

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


def param_key(name: str, location: str) -> tuple[str, str]:
    return (name.lower() if location == "header" else name, location)


def implicit_params(description: Any) -> set[tuple[str, str]]:
    """(name, in) of apiKey security schemes: credentials a step may pass as parameters."""
    keys: set[tuple[str, str]] = set()
    try:
        schemes = description.security_schemes
    except ArazzoError:
        return keys
    for scheme in schemes.values():
        if scheme.get("type") == "apiKey" and isinstance(scheme.get("name"), str):
            keys.add(param_key(scheme["name"], str(scheme.get("in", "header"))))
    return keys


def unknown_message(param: ParameterDef, specs: Any, label: str) -> str:
    specs = list(specs)
    same_name = [s.in_ for s in specs if s.name == param.name]
    if same_name:
        return f"operation '{label}' has '{param.name}' in {same_name[0]}, not in {param.in_}"
    names = [s.name for s in specs if s.in_ == param.in_]
    hint = did_you_mean(param.name, names)
    return f"operation '{label}' has no {param.in_} parameter '{param.name}'{hint}"


def unknown_paths(payload: Any, selectors: bool) -> set[tuple[str | int, ...]]:
    """Paths of the payload's values that are computed at run time (expressions, templates, selectors)."""
    found: set[tuple[str | int, ...]] = set()

    def walk(value: Any, path: tuple[str | int, ...]) -> None:
        if isinstance(value, str):
            if not compile_value(value).is_constant:
                found.add(path)
        elif isinstance(value, dict):
            if selectors and value.keys() == SELECTOR_KEYS:
                found.add(path)
                return
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*path, index))

    walk(payload, ())
    return found


def body_pointer(raw: Any) -> list[str] | None:
    if not isinstance(raw, str) or not raw.startswith("$response.body"):
        return None
    try:
        expression = parse_expression(raw)
    except ExpressionError:
        return None
    if not isinstance(expression, ResponseRef) or expression.part != "body":
        return None
    return [*expression.pointer, *(str(a) for a in expression.accessors)] or None


def path_hint(description: Any, fragment: str) -> str:
    """For a pointer to a path item (a method missing), name the operations it has."""
    try:
        node = resolve_pointer(description.data, parse_pointer(fragment))
    except ExpressionError:
        return ""
    if node is ABSENT or not isinstance(node, dict):
        return ""
    methods = [m for m in HTTP_METHODS if m in node]
    if not methods:
        return ""
    return "; it points to a path item: add the method, e.g. " + ", ".join(f"{fragment}/{m}" for m in methods)


def is_remote(url: str, base: str) -> bool:
    try:
        return is_http(resolve_location(url, base))
    except ArazzoError:
        return False


def trim(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
