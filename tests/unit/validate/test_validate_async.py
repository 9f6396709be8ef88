"""The validator on Arazzo 1.1 AsyncAPI steps: the official 1.1 fixtures and example, and each rule."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from arazzo_runner.sources.asyncapi import load_asyncapi
from arazzo_runner.validate import validate_path
from tests.e2e.eventkit import events_doc, orders_asyncapi, receive_step, send_step
from tests.shared import MISSING
from tests.shared import SHARED as SHARED_FOLDER

SHARED = SHARED_FOLDER / "arazzo"
FIXTURES = SHARED / "schema-tests" / "1.1"
ASYNC_WORDS = ("asyncapi", "channelPath", "correlationId", "action:")
# schema-valid fixtures that the spec's prose makes wrong: the rule each one trips
needs_shared = pytest.mark.skipif(not FIXTURES.is_dir(), reason=MISSING)
CHARACTERIZATION = {
    "async-with-channel-path.arazzo.yaml": {"channel-path-form"},
    "characterization-async-invalid-channelPath-string.arazzo.yaml": {"channel-path-form"},
    "characterization-asyncapi-operationId-without-action.arazzo.yaml": {"async-action"},
    "characterization-openapi-operationId-with-action.arazzo.yaml": {"async-action"},
    "characterization-openapi-receive-with-correlationId.arazzo.yaml": {"async-action"},
}


def _async_fixtures(kind: str) -> list:
    if not FIXTURES.is_dir():  # one case, skipped by needs_shared with its reason
        return [pytest.param(None, id="no-shared")]
    found = sorted((FIXTURES / kind).glob("*.yaml"))
    return [p for p in found if any(word in p.read_text() for word in ASYNC_WORDS)]


def _errors(report) -> set[str]:
    return {f.rule for f in report.findings if f.severity == "error"}


@needs_shared
@pytest.mark.parametrize("path", _async_fixtures("pass"), ids=lambda p: p.name)
def test_every_official_passing_async_fixture_validates(path: Path) -> None:
    report = validate_path(path, remote=False)
    assert _errors(report) == CHARACTERIZATION.get(path.name, set()), [str(f) for f in report.findings]


@needs_shared
@pytest.mark.parametrize("path", _async_fixtures("fail"), ids=lambda p: p.name)
def test_every_official_failing_async_fixture_is_refused(path: Path) -> None:
    assert _errors(validate_path(path, remote=False))


@needs_shared
def test_there_are_async_fixtures_to_check() -> None:
    assert len(_async_fixtures("pass")) >= 14 and len(_async_fixtures("fail")) >= 10


@needs_shared
def test_the_official_asyncapi_example_loads_with_its_reply_and_correlation_locations() -> None:
    description = load_asyncapi(str(SHARED / "examples" / "1.1.0" / "pet-asyncapi.yaml"))
    assert description.version == "3.0.0"
    operation = description.operation("placeOrder")
    assert (operation.action, operation.channel.address) == ("receive", "place-order")
    assert operation.reply.channel.address == "confirm-order"
    assert [m.correlation_location for m in operation.reply.messages] == ["$message.header#/orderRequestId"]
    assert operation.messages[0].payload["required"] == ["petId"]
    server = description.servers["localKafka"]
    assert (server.protocol, server.host) == ("kafka", "localhost:9092")


def _check(tmp_path: Path, doc: dict, asyncapi: dict | None = None):
    (tmp_path / "orders.asyncapi.yaml").write_text(yaml.safe_dump(asyncapi or orders_asyncapi("mqtt")))
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    report = validate_path(path)
    return [(f.rule, f.severity, f.message) for f in report.findings]


def test_a_well_formed_send_and_receive_pair_is_clean(tmp_path: Path) -> None:
    assert _check(tmp_path, events_doc(send_step("place"), receive_step("confirm"))) == []


def test_a_step_action_opposite_to_the_operations_is_not_flagged(tmp_path: Path) -> None:
    """placeOrder is `receive` (the service's side): a workflow sends to it and receives its reply."""
    doc = events_doc(send_step("place"), receive_step("confirm"))
    assert not [f for f in _check(tmp_path, doc) if "action" in f[0]]


def test_an_unknown_operation_or_channel(tmp_path: Path) -> None:
    missing = {**send_step("place"), "operationId": "placeOrdr"}
    channel = {**receive_step("confirm"), "operationId": None}
    channel.pop("operationId")
    channel["channelPath"] = "{$sourceDescriptions.orders.url}#/channels/nope"
    found = _check(tmp_path, events_doc(missing, channel))
    rules = [(rule, message) for rule, _, message in found if rule == "async-target-exists"]
    assert len(rules) == 2
    assert "AsyncAPI operation 'placeOrdr' was not found" in rules[0][1]
    assert "does not point to a channel of 'orders'" in rules[1][1]


def test_correlation_id_on_a_send_step_and_without_a_location(tmp_path: Path) -> None:
    asyncapi = orders_asyncapi("mqtt")
    del asyncapi["components"]["messages"]["OrderReply"]["correlationId"]
    doc = events_doc({**send_step("place"), "correlationId": "x"}, receive_step("confirm"))
    found = {rule: severity for rule, severity, _ in _check(tmp_path, doc, asyncapi)}
    assert found["correlation-id-receive"] == "error"
    assert found["correlation-id-location"] == "warning"


def test_a_receive_step_without_timeout_is_warned_about(tmp_path: Path) -> None:
    found = _check(tmp_path, events_doc(send_step("place"), receive_step("confirm", timeout=None)))
    assert [(r, s) for r, s, _ in found] == [("async-timeout", "warning")]
    assert "30000 ms" in found[0][2]


def test_a_payload_that_does_not_fit_the_message_schema(tmp_path: Path) -> None:
    step = send_step("place")
    step["requestBody"]["payload"]["petId"] = "seven"
    found = [(r, m) for r, _, m in _check(tmp_path, events_doc(step))]
    assert found and found[0][0] == "message-payload"
    assert "channel 'orderRequests'" in found[0][1] and '"seven" is not of type "integer"' in found[0][1]


def test_message_expressions_outside_async_steps_and_query_parameters_in_async_steps(tmp_path: Path) -> None:
    doc = events_doc(send_step("place", parameters=[{"name": "q", "in": "query", "value": 1}]))
    doc["sourceDescriptions"].append({"name": "pets", "url": "./pets.yaml", "type": "openapi"})
    doc["workflows"][0]["steps"].append(
        {
            "stepId": "http",
            "operationId": "$sourceDescriptions.pets.listPets",
            "outputs": {"x": "$message.payload#/a"},
        }
    )
    (tmp_path / "pets.yaml").write_text(
        yaml.safe_dump(
            {
                "openapi": "3.1.0",
                "info": {"title": "p", "version": "1"},
                "paths": {
                    "/p": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok"}}}}
                },
            }
        )
    )
    found = {rule for rule, _, _ in _check(tmp_path, doc)}
    assert {"async-parameter-in", "message-expression"} <= found
