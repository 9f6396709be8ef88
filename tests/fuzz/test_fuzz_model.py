"""Fuzz the typed model and the workspace: `build_document` on any JSON-like data records problems and
never raises; `Workspace.from_text` on Arazzo-shaped documents (right and wrong field types mixed) gives
a workspace or a located DocumentError, and so does compiling each of its workflows."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arazzo_runner.errors import DocumentError
from arazzo_runner.model import Document, build_document
from arazzo_runner.workspace import Workspace
from tests.fuzz.kit import fuzz, outcome
from tests.fuzz.strategies import document_values, json_values, template_text, valid_expression

ids = st.sampled_from(["s1", "s2", "w", "w2", "a-b", "", "x y"])


def arazzo_documents(wrong: bool) -> st.SearchStrategy[dict]:
    """Arazzo-shaped documents; with `wrong`, any field may hold any JSON value instead."""

    def either(right: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(right, right, right, json_values) if wrong else right

    condition = valid_expression.map("{} == 200".format) | st.sampled_from(["$statusCode == 200", "true"])
    criterion = st.fixed_dictionaries(
        {"condition": either(condition | template_text)},
        optional={
            "type": either(st.sampled_from(["simple", "regex", "jsonpath", "xpath"])),
            "context": either(valid_expression),
        },
    )
    parameter = st.fixed_dictionaries(
        {"name": either(st.sampled_from(["a", "X-Trace", "limit"])), "value": either(document_values)},
        optional={"in": either(st.sampled_from(["path", "query", "header", "cookie", "body"]))},
    ) | st.fixed_dictionaries({"reference": either(st.just("$components.parameters.p"))})

    action_fields = {
        "stepId": either(ids),
        "workflowId": either(ids),
        "criteria": either(st.lists(criterion, max_size=2)),
        "retryAfter": either(st.floats(0, 5)),
        "retryLimit": either(st.integers(0, 3)),
    }
    success, failure = (
        st.fixed_dictionaries(
            {"name": either(ids), "type": either(st.sampled_from(types))}, optional=action_fields
        )
        for types in (["end", "goto"], ["end", "goto", "retry"])
    )
    step = st.fixed_dictionaries(
        {"stepId": either(ids)},
        optional={
            "operationId": either(st.sampled_from(["listPets", "$sourceDescriptions.api.listPets"])),
            "workflowId": either(ids),
            "parameters": either(st.lists(parameter, max_size=2)),
            "requestBody": either(
                st.fixed_dictionaries(
                    {"payload": document_values},
                    optional={"contentType": either(st.just("application/json"))},
                )
            ),
            "successCriteria": either(st.lists(criterion, max_size=2)),
            "onSuccess": either(st.lists(success, max_size=2)),
            "onFailure": either(st.lists(failure, max_size=2)),
            "outputs": either(st.dictionaries(ids, document_values, max_size=2)),
            "timeout": either(st.integers(0, 10)),
            "dependsOn": either(st.lists(ids, max_size=2)),
        },
    )
    workflow = st.fixed_dictionaries(
        {"workflowId": either(ids), "steps": either(st.lists(step, max_size=2))},
        optional={
            "inputs": either(st.just({"type": "object", "properties": {"a": {"type": "string"}}})),
            "outputs": either(st.dictionaries(ids, document_values, max_size=2)),
            "successActions": either(st.lists(success, max_size=1)),
            "failureActions": either(st.lists(failure, max_size=1)),
            "parameters": either(st.lists(parameter, max_size=1)),
            "dependsOn": either(st.lists(ids, max_size=1)),
        },
    )
    documents = st.fixed_dictionaries(
        {
            "arazzo": either(st.sampled_from(["1.0.1", "1.1.0", "1.0.0"])),
            "info": either(st.just({"title": "t", "version": "1"})),
            "workflows": either(st.lists(workflow, min_size=1, max_size=2)),
        },
        optional={
            "sourceDescriptions": either(st.just([{"name": "api", "url": "./api.yaml", "type": "openapi"}])),
            "components": either(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "parameters": either(st.dictionaries(st.just("p"), parameter, max_size=1)),
                        "successActions": either(st.dictionaries(ids, success, max_size=1)),
                        "inputs": either(st.dictionaries(ids, json_values, max_size=1)),
                    },
                )
            ),
            "$self": either(st.just("https://example.com/flow.arazzo.yaml")),
        },
    )
    return documents


@fuzz(60)
@given(json_values)
def test_build_document_on_any_data(data: Any) -> None:
    document = outcome("build_document", build_document, data)
    assert isinstance(document, Document)
    for at, message in document.problems:
        assert isinstance(at, tuple) and message


@fuzz(50)
@given(arazzo_documents(wrong=False) | arazzo_documents(wrong=True), st.booleans())
def test_workspace_and_compiled_plans(data: dict, as_json: bool) -> None:
    text = json.dumps(data) if as_json else _yaml(data)
    workspace = outcome("Workspace.from_text", Workspace.from_text, text, "flow.arazzo.yaml")
    if isinstance(workspace, DocumentError):
        assert workspace.file == "flow.arazzo.yaml"
        return
    for item in workspace.document.workflows:
        plan = outcome("Workspace.compiled", workspace.compiled, item)
        if isinstance(plan, DocumentError):
            assert plan.file == "flow.arazzo.yaml" and plan.line >= 1


def _yaml(data: Any) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False)
