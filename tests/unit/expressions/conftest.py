"""Plain dict-backed fakes for the views a `Context` holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from arazzo_runner.expressions import Context, Missing


@dataclass
class FakeMessage:
    headers: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    path: dict[str, Any] = field(default_factory=dict)
    body: Any = None


@dataclass
class FakeSource:
    fields: dict[str, Any]
    operations: dict[str, Any] = field(default_factory=dict)

    def lookup(self, reference: str) -> Any:
        if reference in self.operations:
            return self.operations[reference]
        return Missing(f"no operation {reference!r}")


@pytest.fixture
def ctx() -> Context:
    return Context(
        inputs={
            "username": "ann",
            "apiKey": "secret",
            "count": 3,
            "ratio": 0.5,
            "flag": False,
            "nothing": None,
            "user": {"name": "Ann", "tags": ["a", "b"]},
            "env": {"AUTH_TOKEN": "tok"},
            "dotted.name": "declared",
            "dotted": {"name": "member"},
        },
        steps={
            "someStepId": {"pets": [{"id": 7, "name": "Rex"}, {"id": 8}], "count": 2},
            "login": {"token": "abc"},
        },
        outputs={"bar": "out", "data": [{"id": "d1"}]},
        workflows={
            "foo": {
                "inputs": {"username": "bob"},
                "outputs": {"bar": 1, "mappedResponse": {"name": "m"}},
                "steps": {"login": {"token": "wf-abc", "user": {"id": 5}}},
            },
        },
        sources={
            "petstore": FakeSource(
                fields={
                    "name": "petstore",
                    "url": "https://api.example.com/petstore.yaml",
                    "type": "openapi",
                },
                operations={"getPetById": {"operationId": "getPetById"}, "url": {"operationId": "url"}},
            ),
            "plain": FakeSource(fields={"name": "plain", "url": "https://x/plain.yaml", "type": "openapi"}),
        },
        components={"parameters": {"foo": {"name": "foo", "in": "query", "value": 1}}, "successActions": {}},
        self_uri="https://example.com/doc.arazzo.yaml",
        url="https://api.example.com/pets/7",
        method="GET",
        status_code=200,
        request=FakeMessage(
            headers={"Accept": "application/json"},
            query={"limit": "10", "my name": "spaced"},
            path={"id": "7"},
            body={"user": {"uuid": "u-1"}},
        ),
        response=FakeMessage(
            headers={"Server": "nginx", "Content-Type": "application/json"},
            body={
                "status": "ok",
                "count": 2,
                "items": [{"id": 1}, {"id": 2}],
                "a/b": {"m~n": "escaped"},
                "": "empty key",
            },
        ),
        message=FakeMessage(headers={"Server": "broker"}, body={"status": "queued"}),
    )
