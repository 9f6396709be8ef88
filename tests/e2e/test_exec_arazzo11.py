"""Arazzo 1.1 over real HTTP: step timeout, step dependsOn, Selector Objects, $self, querystring, AsyncAPI."""

from __future__ import annotations

import threading

import pytest

import arazzo_runner
from arazzo_runner.errors import SourceError
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, flaky, goto, hits, listing, ok200, only, pet, retry, trail

V11 = "1.1.0"


def _slow_then_fast(server, delays: list[float], released: threading.Event | None = None) -> None:
    """Answer /flaky after each delay in turn (cut short once `released` is set)."""
    pending = list(delays)
    released = released or threading.Event()

    @server.route("GET", "/flaky")
    def slow(request):
        released.wait(pending.pop(0) if pending else 0)
        return 200, {"ok": True}


def test_a_step_timeout_fails_a_slow_step_with_a_timeout_message(write, server):
    released, answered = threading.Event(), threading.Event()

    @server.route("GET", "/flaky")
    def held(request):
        released.wait(30)  # until the run is over (or 30 s)
        answered.set()
        return 200, {"ok": True}

    steps = [flaky("slow", timeout=50), listing("after")]
    try:
        wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))
        assert not answered.is_set()  # the run ended before the server answered: it did not wait
    finally:
        released.set()
    assert wf["status"] == "failed"
    assert trail(wf) == [("slow", "failed", 1)]
    assert wf["steps"][0]["statusCode"] is None
    assert "timeout" in wf["error"]["message"]
    assert "50 ms" in wf["error"]["message"]
    assert hits(server) == ["GET /flaky"]


def test_a_timed_out_step_with_a_retry_action_is_retried(write, server):
    released = threading.Event()
    _slow_then_fast(server, [30, 0], released)  # the first answer waits for the run's end; 1 s is ample
    steps = [flaky("slow", timeout=1000, onFailure=[retry()]), listing("after")]  # for the second
    server.reply("GET", "/pets", (200, []))
    try:
        wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))
    finally:
        released.set()

    assert wf["status"] == "passed"
    assert trail(wf) == [("slow", "passed", 2), ("after", "passed", 1)]
    assert hits(server) == ["GET /flaky", "GET /flaky", "GET /pets"]


def test_a_step_timeout_is_generous_enough_for_a_fast_step(write, server):
    _slow_then_fast(server, [0])
    wf = only(
        execute(write, server, {"workflowId": "w", "steps": [flaky("quick", timeout=2000)]}, version=V11)
    )

    assert trail(wf) == [("quick", "passed", 1)]


def test_step_depends_on_a_completed_step_runs(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    steps = [listing("a"), pet("b", dependsOn=["a"])]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert trail(wf) == [("a", "passed", 1), ("b", "passed", 1)]


def test_step_depends_on_a_step_that_did_not_complete_fails_unsent(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    steps = [
        listing("a", onSuccess=[goto("skipB", stepId="c")]),
        flaky("b"),
        pet("c", dependsOn=["b"]),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert wf["status"] == "failed"
    assert trail(wf) == [("a", "passed", 1), ("c", "failed", 1)]
    assert (
        wf["error"]["message"] == "not sent: it depends on step 'b', which did not run (a goto went past it)"
    )
    assert hits(server) == ["GET /pets"]


def test_step_depends_on_a_step_of_another_workflow(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    setup = {"workflowId": "setup", "steps": [listing("prepare")]}
    main = {"workflowId": "main", "steps": [pet("use", dependsOn=["$workflows.setup.steps.prepare"])]}

    alone = only(execute(write, server, main, setup, workflow="main", version=V11))
    assert alone["status"] == "failed"
    assert "$workflows.setup.steps.prepare" in alone["error"]["message"]
    assert server.requests == []

    both = execute(write, server, setup, main, version=V11)
    assert both["status"] == "passed"
    assert hits(server) == ["GET /pets", "GET /pets/1"]


def test_selector_objects_in_outputs_parameters_and_payloads(write, server):
    body = {
        "items": [{"id": 11, "name": "Rex", "tags": ["a"]}, {"id": 12, "name": "Tom", "tags": ["b", "c"]}]
    }
    server.reply("GET", "/pets", (200, body))
    server.reply("GET", "/pets/{petId}", (200, {}))
    server.reply("POST", "/pets", (201, {}))
    steps = [
        listing(
            "list",
            outputs={
                "firstId": {"context": "$response.body", "selector": "$.items[0].id", "type": "jsonpath"},
                "names": {"context": "$response.body", "selector": "$.items[*].name", "type": "jsonpath"},
                "second": {"context": "$response.body", "selector": "/items/1/name", "type": "jsonpointer"},
                "cTags": {
                    "context": "$response.body",
                    "selector": "$.items[?@.name == 'Tom'].tags[1]",
                    "type": {"type": "jsonpath", "version": "rfc9535"},
                },
            },
        ),
        pet(
            "get",
            parameters=[
                {
                    "name": "petId",
                    "in": "path",
                    "value": {"context": "$steps.list.outputs", "selector": "$.firstId", "type": "jsonpath"},
                }
            ],
        ),
        {
            "stepId": "create",
            "operationId": "createPet",
            "requestBody": {
                "contentType": "application/json",
                "payload": {
                    "name": {"context": "$steps.list.outputs.names", "selector": "/1", "type": "jsonpointer"},
                    "all": "$steps.list.outputs.names",
                },
            },
        },
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert wf["status"] == "passed", wf
    assert wf["steps"][0]["outputs"] == {
        "firstId": 11,
        "names": ["Rex", "Tom"],
        "second": "Tom",
        "cTags": "c",
    }
    assert hits(server) == ["GET /pets", "GET /pets/11", "POST /pets"]
    assert server.requests[2].json() == {"name": "Tom", "all": ["Rex", "Tom"]}


def test_a_selector_that_matches_nothing_is_a_missing_output_with_a_warning(write, server):
    server.reply("GET", "/pets", (200, {"items": []}))
    outputs = {"first": {"context": "$response.body", "selector": "$.items[0].id", "type": "jsonpath"}}
    wf = only(
        execute(write, server, {"workflowId": "w", "steps": [listing("list", outputs=outputs)]}, version=V11)
    )

    assert wf["steps"][0]["outputs"] == {"first": None}
    (warning,) = wf["steps"][0]["warnings"]
    assert "output 'first'" in warning and "$.items[0].id" in warning


def test_an_xpath_selector_reads_an_xml_response(write, server):
    xml = "<pets><pet id='3'><name>Rex</name></pet><pet id='4'><name>Tom</name></pet></pets>"
    server.reply("GET", "/pets", (200, xml, {"Content-Type": "application/xml"}))
    outputs = {
        "second": {
            "context": "$response.body",
            "selector": "string(/pets/pet[2]/name)",
            "type": {"type": "xpath", "version": "xpath-30"},
        }
    }
    wf = only(
        execute(write, server, {"workflowId": "w", "steps": [listing("list", outputs=outputs)]}, version=V11)
    )

    assert wf["steps"][0]["outputs"] == {"second": "Tom"}


def test_self_is_the_documents_own_uri(write, server, tmp_path):
    server.reply("GET", "/pets", (200, []))
    doc = arazzo_doc(
        {"workflowId": "w", "steps": [listing("list")], "outputs": {"me": "$self", "tagged": "{$self}#w"}},
        sources=[{"name": "pets", "url": str(tmp_path / "pets.openapi.yaml"), "type": "openapi"}],
        version=V11,
    )
    doc = {"arazzo": V11, "$self": "https://example.com/flows/pets.arazzo.yaml", **doc}
    wf = only(arazzo_runner.run(write(doc), servers={"pets": server.url}).to_dict())

    assert wf["status"] == "passed", wf
    assert wf["outputs"] == {
        "me": "https://example.com/flows/pets.arazzo.yaml",
        "tagged": "https://example.com/flows/pets.arazzo.yaml#w",
    }


def test_a_relative_self_is_the_base_for_relative_source_urls(write, server, tmp_path):
    """`$self: flows/x.arazzo.yaml` read from <tmp>/main.arazzo.yaml: `../pets.openapi.yaml` is <tmp>/."""
    server.reply("GET", "/pets", (200, []))
    doc = arazzo_doc(
        {"workflowId": "w", "steps": [listing("list")]},
        sources=[{"name": "pets", "url": "../pets.openapi.yaml", "type": "openapi"}],
        version=V11,
    )
    doc = {"arazzo": V11, "$self": "flows/x.arazzo.yaml", **doc}
    wf = only(arazzo_runner.run(write(doc, name="main.arazzo.yaml"), servers={"pets": server.url}).to_dict())

    assert wf["status"] == "passed", wf
    assert hits(server) == ["GET /pets"]


def test_querystring_parameter_is_sent_as_the_whole_query(write, server):
    server.reply("GET", "/pets", (200, []))
    workflow = {
        "workflowId": "w",
        "inputs": {"type": "object", "properties": {"kind": {"type": "string"}}},
        "steps": [
            listing(
                "search",
                parameters=[
                    {"name": "q", "in": "querystring", "value": "kind={$inputs.kind}&sort=desc&limit=50"}
                ],
            )
        ],
    }
    wf = only(execute(write, server, workflow, version=V11, inputs={"kind": "cat"}))

    assert wf["status"] == "passed"
    assert server.requests[0].raw_query == "kind=cat&sort=desc&limit=50"
    assert server.requests[0].query == {"kind": ["cat"], "sort": ["desc"], "limit": ["50"]}


def test_an_asyncapi_source_that_cannot_be_read_stops_the_run_before_anything_is_sent(write, server):
    server.reply("GET", "/pets", (200, [{"id": 1}]))
    doc = arazzo_doc(
        {
            "workflowId": "order",
            "steps": [
                listing("find", successCriteria=ok200()),
                {
                    "stepId": "placeOrder",
                    "operationId": "$sourceDescriptions.orders.placeOrder",
                    "action": "send",
                    "requestBody": {"payload": {"petId": 1}},
                },
            ],
        },
        sources=[
            {"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"},
            {"name": "orders", "url": "./orders.asyncapi.yaml", "type": "asyncapi"},
        ],
        version=V11,
    )
    with pytest.raises(SourceError) as caught:
        arazzo_runner.run(write(doc), servers={"pets": server.url})
    assert "source 'orders' (./orders.asyncapi.yaml) cannot be loaded" in str(caught.value)
    assert caught.value.pointer == "/sourceDescriptions/1"
    assert hits(server) == []
