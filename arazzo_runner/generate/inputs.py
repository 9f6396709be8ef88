"""The inputs of a generated document, named once for the whole document.

`arazzo run FILE` gives the same inputs to every workflow it runs, and reads each declared input from
the environment (`ARAZZO_INPUT_<NAME>`). So a name means one thing throughout the document: two
operations' `petId` that are the same kind of value (their schemas equal but for their descriptions and
examples) share the name, and one example value; a `status` that is an enum of other values in another
operation is named `<workflowId>_status` there. The example values make the `--inputs-out` file: every
required input, and the optional ones the description gives an example for (an optional input left out
is not sent; its schema's `default` the engine applies itself).
"""

from __future__ import annotations

import json
from typing import Any

from .examples import NOTHING, Examples
from .names import Unique, env_key, fit_input
from .operations import InputSpec

_ANNOTATIONS = frozenset({"description", "title", "examples", "example", "default", "deprecated"})


class Inputs:
    def __init__(self, examples: Examples) -> None:
        self.examples = examples
        self.names = Unique(sep="_", key=env_key)
        self._named: dict[tuple[str, str], str] = {}  # (name wanted, shape of its schema) -> name
        self.values: dict[str, Any] = {}  # the example inputs (`--inputs-out`)
        self.problems: dict[str, str] = {}  # name -> why it has no example value

    def claim(self, spec: InputSpec, owner: str) -> str:
        """The document's name for `spec`, an input of workflow `owner`; its example value noted."""
        wanted = fit_input(spec.name)
        key = (wanted, _shape(spec.schema))
        name = self._named.get(key)
        if name is None:
            name = self._named[key] = self.names.take(
                wanted if wanted not in self.names else f"{owner}_{wanted}"
            )
        if name not in self.values and self._wanted(spec):
            value, why = self.examples.value(spec.schema, name, spec.given, container=spec.container)
            if why is None:
                self.values[name] = value
                self.problems.pop(name, None)
            else:
                self.problems[name] = why
        return name

    @staticmethod
    def _wanted(spec: InputSpec) -> bool:
        return spec.required or bool(spec.given) or _has_examples(spec.schema)

    def keep_only(self, names: set[str]) -> None:
        """Forget the values of inputs no written workflow declares (a dropped workflow's)."""
        self.values = {k: v for k, v in self.values.items() if k in names}
        self.problems = {k: v for k, v in self.problems.items() if k in names}


def _has_examples(schema: Any) -> bool:
    return isinstance(schema, dict) and bool(schema.get("examples"))


def _shape(schema: Any) -> str:
    """The schema without what only describes it: two inputs of one shape take the same values."""
    return json.dumps(_strip(schema), sort_keys=True, default=str)


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in _ANNOTATIONS}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def inputs_schema(specs: list[tuple[str, InputSpec]]) -> dict[str, Any] | None:
    """A workflow's inputs schema from its (name, spec) pairs; None when it has none."""
    if not specs:
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in specs:
        if name not in properties:
            properties[name] = spec.schema
        if spec.required and name not in required:
            required.append(name)
    schema: dict[str, Any] = {"type": "object"}
    if required:
        schema["required"] = required
    schema["properties"] = properties
    return schema


__all__ = ["NOTHING", "Inputs", "inputs_schema"]
