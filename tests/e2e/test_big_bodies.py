"""Big bodies (issue 43): a step that fails on a multi-MB JSON body keeps its first bytes for the result
without parsing the body again (the transport says it read JSON: `Response.json`)."""

from __future__ import annotations

import json

import arazzo_runner
from arazzo_runner.bounds import json_text
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import workflow
from tests.servers import faults

MB = 10**6


def _big_json(size: int) -> bytes:
    rows, total = [], 0
    while total < size:
        row = {"id": len(rows), "name": f"item-{len(rows)}", "note": "x" * 80}
        rows.append(row)
        total += len(json.dumps(row)) + 2
    return json.dumps({"meta": {"total": len(rows)}, "items": rows}).encode()


def test_a_step_failing_on_a_big_json_body_parses_it_once(write, monkeypatch):
    content = _big_json(3 * MB)
    parsed: list[int] = []
    loads = json_text.loads

    def counting(text, *args, **kwargs):
        if len(text) >= MB:
            parsed.append(len(text))
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json_text, "loads", counting)
    step = {
        "stepId": "list",
        "operationId": "listPets",
        "successCriteria": [{"condition": "$response.body#/meta/total == -1"}],
    }
    workspace = arazzo_runner.load(write(arazzo_doc(workflow("flow", step))))
    with faults.FaultServer() as server:
        answer = {"Content-Type": "application/json", "Content-Length": str(len(content))}
        server.script("/pets", faults.answer(200, answer, content))
        result = arazzo_runner.run(workspace, servers={"pets": server.url})
    assert result.status == "failed"
    excerpt = result.workflows[0].steps[0].response
    assert excerpt.body.startswith('{"meta": {"total": ')  # the start of the body, kept for the result
    assert excerpt.omitted == len(content) - len(excerpt.body.encode())
    # by the transport only; not at all where the body is read as a stream (its one use is a pointer)
    assert parsed == ([] if _streams() else [len(content)])


def _streams() -> bool:
    try:
        from ijson import get_backend

        get_backend("yajl2_c")
    except ImportError:
        return False
    return True
