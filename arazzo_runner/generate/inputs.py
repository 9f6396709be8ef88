"""The inputs of a generated document, named once for the whole document.

`arazzo run FILE` gives the same inputs to every workflow it runs, and reads each declared input from
the environment (`ARAZZO_INPUT_<NAME>`). So a name means one thing throughout the document: two
operations' `petId` that fill the same place (a path parameter, a body member...) with the same kind of
value (their schemas equal but for descriptions and examples) share the name and one example value. Of
the inputs that want one name, the one most required (then most used, then first) gets it; the others
are named after where they go (`author_query`, a filter, beside `author`, a body member of the books
created), then after their workflow (`placeOrder_status`). The example values make the
`--inputs-out` file: every required input, and the optional ones the description gives an example for
(an optional input left out is not sent; its schema's `default` the engine applies itself).
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
        self._named: dict[tuple[str, str, str], str] = {}  # (name wanted, place, schema shape) -> name
        self.values: dict[str, Any] = {}  # the example inputs (`--inputs-out`)
        self.problems: dict[str, str] = {}  # name -> why it has no example value

    def prepare(self, specs: list[tuple[str, InputSpec]]) -> None:
        """Name the inputs of the operations at once (`(operation label, spec)` pairs), so that the most
        required one of a name gets it; another that goes to another place is `<name>_<place>`, one of
        another kind `<operation>_<name>`."""
        groups: dict[str, dict[tuple[str, str, str], list[Any]]] = {}
        for index, (owner, spec) in enumerate(specs):
            key = _key(spec)
            found = groups.setdefault(key[0], {}).setdefault(key, [0, 0, index, owner])
            found[0] |= spec.required
            found[1] += 1
        for wanted, keys in groups.items():
            ranked = sorted(keys, key=lambda k: (-keys[k][0], -keys[k][1], keys[k][2]))
            places = {ranked[0][1]}
            for rank, key in enumerate(ranked):
                if rank == 0:
                    name = wanted
                elif key[1] not in places:
                    name = f"{wanted}_{key[1]}"
                    places.add(key[1])
                else:
                    name = f"{fit_input(keys[key][3])}_{wanted}"
                self._named[key] = self.names.take(name)

    def claim(self, spec: InputSpec, owner: str) -> str:
        """The document's name for `spec`, an input of workflow `owner`; its example value noted."""
        key = _key(spec)
        wanted = key[0]
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


def _key(spec: InputSpec) -> tuple[str, str, str]:
    place = spec.target[1] if spec.target[0] == "param" else spec.target[0]
    return fit_input(spec.name), place, _shape(spec.schema)


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
