"""A big JSON body (1 MiB or more) from a real local server, read as a stream when every use the step makes
of it can be (`bounds/json_stream.py`, `executor/steps/body_stream.py`): the same outputs, criteria,
warnings and failure messages as the body parsed whole (ijson made unimportable), the document never
built, and less memory at the peak (tracemalloc's, compared between the two runs: sizes, no clock)."""

from __future__ import annotations

import copy
import sys
import tracemalloc
from typing import Any

import pytest

from arazzo_runner.bounds import json_stream, json_text
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import run_json, workflow
from tests.servers import faults
from tests.untested import not_installed

pytest.importorskip("ijson", reason=not_installed("ijson", "big bodies read as a stream (bigjson)"))


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    """Under GitHub Actions the annotations are on by themselves, and they turn the stream off."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


ITEMS = 9_000  # ~1.2 MB: over json_stream.STREAM_FROM (1 MiB)
FILTER = {"context": "$response.body", "type": "jsonpath", "condition": "$.items[?@.price > 999.5]"}
OUTPUTS = {
    "total": "$response.body#/meta/total",
    "first": "$response.body#/items/0/id",
    "last": "$response.body#/items/8999/owner",
    "duplicate": "$response.body#/meta/page",
    "zero": "$response.body#/meta/zero",
    "text": "item {$response.body#/items/1/name} of {$response.body#/meta/total}",
}


def _step(**changes: Any) -> dict[str, Any]:
    step = {
        "stepId": "read",
        "operationId": "listPets",
        "successCriteria": [
            {"condition": "$statusCode == 200"},
            FILTER,
            {"condition": "$response.body#/meta/total == 9000"},
            {"context": "$response.body#/items/3/name", "type": "regex", "condition": "^item-3$"},
        ],
        "outputs": dict(OUTPUTS),
    }
    return {**step, **changes}


def _body(meta: str = '{"total":9000,"page":1,"zero":-0.0,"page":2}', twice: bool = False) -> bytes:
    items = []
    for index in range(ITEMS):
        price = 999.75 if index % 1000 == 7 else round((index * 7.31) % 999, 2)
        owner = f'{{"id":{index % 97},"email":"user{index % 97}@example.com","id":{index}}}'  # duplicate key
        items.append(f'{{"id":{index},"name":"item-{index}","price":{price},"tags":["red"],"owner":{owner}}}')
    listed = ",".join(items)
    first = '"items":[{"id":-1,"price":5000}],' if twice else ""  # replaced by the last `items`
    return ('{"meta":' + meta + "," + first + '"items":[' + listed + "]}").encode()


CHILD = workflow(  # a workflow an action of the step goes to (/flaky answers a small body)
    "child",
    {"stepId": "small", "operationId": "flaky", "outputs": {"total": "$inputs.meta.total"}},
    inputs={"type": "object", "properties": {"meta": {}}},
)


def _run(
    capsys: Any, write: Any, step: dict, data: bytes, schema: Any, *argv: str, by_ref: bool = False
) -> dict[str, Any]:
    """The step run against a server answering `data`, its response documented with `schema` (under
    `components/responses` when `by_ref`)."""
    openapi = copy.deepcopy(PETS_OPENAPI)
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    if by_ref:
        openapi.setdefault("components", {})["responses"] = {"Ok": ok}
        ok = {"$ref": "#/components/responses/Ok"}
    openapi["paths"]["/pets"]["get"]["responses"]["200"] = ok
    workflows = [workflow("flow", step)] + ([CHILD] if "onSuccess" in step else [])
    path = write(arazzo_doc(*workflows), openapi=openapi)
    headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
    with faults.FaultServer() as server:
        server.script("/pets", faults.answer(200, headers, data))
        server.script("/flaky", faults.reply({"small": True}))
        result = run_json(capsys, path, "--max-response-bytes", "4M", *argv, server=server)
    report = result.json["workflows"][0]["steps"][0]
    return {
        "code": result.code,
        **{key: report.get(key) for key in ("status", "outputs", "error", "warnings")},
    }


def _both(
    capsys,
    write,
    monkeypatch,
    data: bytes,
    step: dict | None = None,
    schema: Any = None,
    *argv: str,
    **run: Any,
):
    """The run as it is, then with ijson unimportable (the body parsed whole), each with how many times
    the body was parsed whole, tracemalloc's peak, and how many times it was read as a stream."""
    parsed: list[int] = []
    streamed: list[int] = []
    real, real_read = json_text.loads, json_stream.read
    monkeypatch.setattr(
        json_text, "loads", lambda text, *a, **k: parsed.append(len(text)) or real(text, *a, **k)
    )

    def read(content: bytes, uses: Any) -> Any:
        found = real_read(content, uses)
        if found is not None:
            streamed.append(len(content))
        return found

    monkeypatch.setattr(json_stream, "read", read)
    runs = []
    for streamable in (True, False):
        with monkeypatch.context() as patch:  # ijson back for the next call (a test may make several)
            if not streamable:
                patch.setitem(sys.modules, "ijson", None)  # `from ijson import ...` raises ImportError
            _run(
                capsys, write, step or _step(), data, {} if schema is None else schema, *argv, **run
            )  # imports
            parsed.clear()
            streamed.clear()
            tracemalloc.start()
            try:
                found = _run(
                    capsys, write, step or _step(), data, {} if schema is None else schema, *argv, **run
                )
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        runs.append((found, sum(1 for size in parsed if size == len(data)), peak, len(streamed)))
    return runs


def test_a_streamed_body_gives_the_outputs_and_criteria_of_the_whole_document(capsys, write, monkeypatch):
    data = _body()
    assert len(data) > 2**20
    (streamed, parses, peak, streams), (whole, whole_parses, whole_peak, _) = _both(
        capsys, write, monkeypatch, data
    )
    assert (parses, whole_parses, streams) == (0, 1, 1)  # streamed: the document never built
    assert streamed == whole
    assert streamed["code"] == 0, streamed
    assert streamed["outputs"] == {
        "total": 9000,
        "first": 0,
        "last": {
            "id": 8999,
            "email": f"user{8999 % 97}@example.com",
        },  # the last value, at the first key's place
        "duplicate": 2,
        "zero": -0.0,
        "text": "item item-1 of 9000",
    }
    assert str(streamed["outputs"]["zero"]) == "-0.0"
    # the body's bytes are held either way; the document (~4x them) only when parsed whole
    assert peak < whole_peak * 0.6, (peak, whole_peak)


def test_uses_that_reach_nothing_fail_with_the_messages_of_the_whole_document(capsys, write, monkeypatch):
    """A pointer reaching nothing, a filter selecting nothing, a duplicate `meta` whose last has no
    `total`, a duplicate `items` whose first alone matched: the messages show the document, parsed then."""
    step = _step(
        successCriteria=[
            {"condition": "$statusCode == 200"},
            {**FILTER, "condition": "$.items[?@.price > 4000]"},
            {"condition": "$response.body#/meta/total == 9000"},
        ]
    )
    data = _body(meta='{"total":9000},"meta":{"page":3}', twice=True)
    (streamed, parses, _, _), (whole, _, _, _) = _both(capsys, write, monkeypatch, data, step)
    assert parses == 1
    assert streamed == whole
    assert streamed["code"] == 1 and streamed["status"] == "failed"
    assert "$.items[?@.price > 4000]: no node matched in" in streamed["error"], streamed["error"]
    assert "$response.body#/meta/total: no member 'total' at /meta" in streamed["error"], streamed["error"]


def test_a_step_reading_the_body_whole_or_a_schema_reading_it_parses_it(capsys, write, monkeypatch, tmp_path):
    """Each reads the body whole: it is parsed once and never read as a stream too (a stream pass whose
    document is then parsed anyway would cost both)."""
    whole_output = _step(outputs={**OUTPUTS, "meta": "$response.body"})
    regex = _step(successCriteria=[{"context": "$response.body", "type": "regex", "condition": "item-3"}])
    root_filter = _step(successCriteria=[{**FILTER, "condition": "$[?@.total == 9000]"}])
    by_accessor = _step(  # the filter applies to the body's `items`, not to the body
        successCriteria=[{**FILTER, "context": "$response.body.items", "condition": "$[0].tags[?@ == 'red']"}]
    )
    goto = {"name": "next", "type": "goto", "workflowId": "child"}
    parameter = _step(onSuccess=[{**goto, "parameters": [{"name": "meta", "value": "$response.body"}]}])
    schema = {"type": "object", "required": ["meta"]}
    for step, schema_, argv, run in (
        (whole_output, None, (), {}),
        (_step(), schema, (), {}),
        (_step(), schema, (), {"by_ref": True}),
        (_step(), None, ("--report-json", str(tmp_path / "report.json")), {}),
        (regex, None, (), {}),
        (root_filter, None, (), {}),
        (by_accessor, None, (), {}),
        (parameter, None, (), {}),
    ):
        (first, parses, _, streams), (second, _, _, _) = _both(
            capsys, write, monkeypatch, _body(), step, schema_, *argv, **run
        )
        assert (parses, streams) == (1, 0), (step, schema_, argv, run)
        assert first == second
        assert first["status"] == "passed", first


def test_a_body_the_stream_does_not_read_as_json_loads_is_parsed_whole(capsys, write, monkeypatch):
    """An int past 64 bits (yajl refuses it): parsed whole, the same outputs."""
    data = _body(meta='{"total":9000,"page":2,"zero":-0.0,"big":123456789012345678901234567890}')
    step = _step(outputs={**OUTPUTS, "big": "$response.body#/meta/big"})
    (streamed, parses, _, _), (whole, _, _, _) = _both(capsys, write, monkeypatch, data, step)
    assert parses == 1
    assert streamed == whole and streamed["outputs"]["big"] == 123456789012345678901234567890


def test_a_filter_out_of_its_budget_fails_as_on_the_whole_document(capsys, write, monkeypatch):
    from arazzo_runner.bounds import limits

    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.0)
    (streamed, parses, _, _), (whole, _, _, _) = _both(capsys, write, monkeypatch, _body())
    assert parses == 0  # stopped during the pass: not evaluated again on the document
    assert streamed == whole
    assert "$.items[?@.price > 999.5]: evaluation stopped after 0 s (too expensive)" in streamed["error"]


def test_a_filter_over_the_node_a_pointer_reaches_is_not_the_same_filter_over_the_body(
    capsys, write, monkeypatch
):
    """The same query over the body (streamed: it selects the items past 999.5) and over `/meta`, which has
    no `items`: the second selects nothing there, and fails as on the whole document."""
    step = _step(successCriteria=[FILTER, {**FILTER, "context": "$response.body#/meta"}])
    (streamed, parses, _, streams), (whole, _, _, _) = _both(capsys, write, monkeypatch, _body(), step)
    assert streamed == whole
    assert (parses, streams) == (0, 1)  # `/meta`, shown in the message, is one of the pass's values
    assert streamed["status"] == "failed"
    assert (
        '$.items[?@.price > 999.5]: no node matched in {"total":9000,"page":2,"zero":-0.0}'
        in streamed["error"]
    )
