"""A streamed big body (`bounds/json_stream.py`) where the stream must not answer: a filter whose pattern
the query refuses, a workflow step's criterion reading its child's streamed body in another dialect, a
pointer whose tokens spell a filter's text. Each run is compared with the same run with ijson made
unimportable (the body parsed whole): the same outputs, status, error and warnings."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import run_json, workflow
from tests.e2e.test_big_body_stream import FILTER, _both, _step
from tests.servers import faults
from tests.untested import not_installed

pytest.importorskip("ijson", reason=not_installed("ijson", "big bodies read as a stream (bigjson)"))


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    """Under GitHub Actions the annotations are on by themselves, and they turn the stream off."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


PAD = "x" * (1 << 20)  # over json_stream.STREAM_FROM
QUERY = "$.items[?@.p>1]"


def _padded(items: str) -> bytes:
    return ('{"pad":"' + PAD + '","items":' + items + "}").encode()


def test_a_pattern_the_query_refuses_fails_the_step_as_on_the_whole_document(capsys, write, monkeypatch):
    """`match()` with a pattern that unrolls past the limit: the library's refusal (a BaseException)
    escaped the stream and ended the run with a traceback."""
    pattern = "((((a{9}){9}){9}){9}){9}"
    step = _step(
        successCriteria=[{**FILTER, "condition": f"$.items[?match(@.s, '{pattern}')]"}],
        outputs={"first": "$response.body#/items/0/s"},
    )
    data = _padded('[{"s":"abc"},{"s":"b","p":2000}]')
    (streamed, parses, _, streams), (whole, _, _, _) = _both(capsys, write, monkeypatch, data, step)
    assert streamed == whole
    assert (parses, streams) == (1, 0)  # not answered by the stream: the document parsed, the query says why
    assert streamed["code"] == 1 and streamed["status"] == "failed"
    assert "repeats too much to compile" in streamed["error"], streamed["error"]


def test_a_pointer_spelling_a_filters_text_reads_the_document(capsys, write, monkeypatch):
    """The pointer's tokens ("filter", the query's text) named a filter's answer in the stream's table."""
    step = _step(
        successCriteria=[{**FILTER, "condition": QUERY}],
        outputs={"odd": f"$response.body#/filter/{QUERY}"},
    )
    data = _padded('[{"s":"a","p":1},{"s":"b","p":2000}]')
    (streamed, _, _, _), (whole, _, _, _) = _both(capsys, write, monkeypatch, data, step)
    assert streamed == whole
    assert streamed["outputs"] == {"odd": None}
    assert any("no member 'filter'" in warning for warning in streamed["warnings"]), streamed["warnings"]


def _run_parent(capsys: Any, write: Any, data: bytes) -> dict[str, Any]:
    child = workflow(
        "child",
        {
            "stepId": "read",
            "operationId": "listPets",
            "successCriteria": [
                {"context": "$response.body", "type": "jsonpath", "condition": "$.items[?@.p>1]"}
            ],
        },
    )
    goessner = {"type": "jsonpath", "version": "draft-goessner-dispatch-jsonpath-00"}
    parent = workflow(
        "parent",
        {
            "stepId": "call",
            "workflowId": "child",
            "successCriteria": [
                {"context": "$response.body", "type": goessner, "condition": "$.items[?@.p>1]"}
            ],
        },
    )
    openapi = json.loads(json.dumps(PETS_OPENAPI))
    openapi["paths"]["/pets"]["get"]["responses"]["200"] = {
        "description": "ok",
        "content": {"application/json": {"schema": {}}},
    }
    path = write(arazzo_doc(parent, child), openapi=openapi)
    headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
    with faults.FaultServer() as server:
        server.script("/pets", faults.answer(200, headers, data))
        result = run_json(capsys, path, "--max-response-bytes", "4M", "--workflow", "parent", server=server)
    run = result.json["workflows"][0]
    return {"code": result.code, "steps": [(s["stepId"], s["status"], s.get("error")) for s in run["steps"]]}


def test_a_workflow_steps_criterion_in_another_dialect_is_not_answered_by_its_childs_stream(
    capsys, write, monkeypatch
):
    """The parent's Goessner criterion has the child's RFC 9535 query's text: the stream's nodes (RFC
    9535's) passed it, where the Goessner engine fails on the same document."""
    data = _padded('[{"p":[3]},{"p":2}]')
    streamed = _run_parent(capsys, write, data)
    monkeypatch.setitem(sys.modules, "ijson", None)
    whole = _run_parent(capsys, write, data)
    assert streamed == whole
    assert streamed["steps"][0][1] == "failed", streamed
