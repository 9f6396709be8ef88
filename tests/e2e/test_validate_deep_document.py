"""A document nesting almost as deep as the loader allows (500 levels) is validated, never a traceback,
and says the same with the parsed-source store on (first and second validate) as with it off.

Why: the official schema's `uniqueItems` (the steps of a workflow) compares the items by a hashable
form built recursively, two Python frames a level: ~490 levels of an output value exceeded the
interpreter's recursion limit. With the store off it held just below it for a nested mapping, and
the store's few frames more (`validate/stored_document.py`) tipped it over: a RecursionError
traceback on the second form of the same document."""

from __future__ import annotations

from tests.e2e.helpers import subprocess_cli
from tests.unit.validate.fixkit import HEAD, write_fixable

LEVELS = 490


def _mapping() -> str:
    """An output `x` that is a block mapping LEVELS deep (each level one key)."""
    lines = "".join(f"{' ' * (12 + i)}k{i}:\n" for i in range(LEVELS))
    return "          x:\n" + lines + " " * (12 + LEVELS) + "v: 1\n"


def _array() -> str:
    """An output `x` that is a flow sequence LEVELS deep, then a second output."""
    return "          x: " + "[" * LEVELS + "]" * LEVELS + "\n          y: $steps.s.outputs.id\n"


def _validate(path, cache) -> tuple[int, str]:
    env = {"ARAZZO_NO_CACHE": "1"} if cache is None else {"ARAZZO_CACHE_DIR": str(cache)}
    if cache is not None:
        env["ARAZZO_NO_CACHE"] = ""
    result = subprocess_cli("validate", "--offline", path, env=env, timeout=300)
    return result.code, result.out


def test_a_deep_output_is_a_schema_error_with_and_without_the_store(tmp_path) -> None:
    for name, outputs, where, got in (
        ("mapping.arazzo.yaml", _mapping(), "16:13", "an object"),
        ("array.arazzo.yaml", _array(), "15:14", "an array"),
    ):
        path = write_fixable(tmp_path, "", name)
        path.write_text(HEAD + outputs, encoding="utf-8")
        fresh = _validate(path, None)
        assert fresh[0] == 1, fresh
        assert f"{path}:{where}: error schema: expected string, got {got}" in fresh[1]
        cache = tmp_path / f"cache-{name}"
        assert _validate(path, cache) == fresh  # parsed, checked, kept
        assert _validate(path, cache) == fresh  # read back from the store
