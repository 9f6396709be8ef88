"""What a document computes from a credential the engine added stays with that credential's origin
(issue 23, point 2).

The outbound guard finds a credential in a request by the forms masking knows. A document can compute
others from a reflection of it: XPath `string-to-codepoints` (numbers), `reverse` (the characters
backwards), pieces of 1-3 characters. Those are masked in every printed form (values derived from a
secret, `docs/security.md`); they must not be sent to another origin either. The taint marks them,
the mark travels with the outputs (step to step, to the workflow's outputs), and the guard reads it:
the step fails unsent, and the second server receives nothing. Two real local servers are the two
origins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, step

TOKEN = "Tk9f3c2a7e51d04b8c"
XPATH31 = {"type": "xpath", "version": "xpath-31"}
BODY = {"requestBody": {"content": {"application/json": {"schema": {}}}}}
DERIVATIONS = {
    "code points": "string-to-codepoints(string(/r/t))",
    "reversed": "codepoints-to-string(reverse(string-to-codepoints(string(/r/t))))",
    "pieces": "for $i in 1 to 6 return substring(string(/r/t), $i*3-2, 3)",
    "upper-cased": "upper-case(string(/r/t))",
}


def _reflect(server: Any) -> None:
    """Origin a reflects the bearer token it received, as XML; it accepts anything POSTed."""

    def xml(request: Any) -> tuple:
        token = request.headers.get("authorization", "").partition(" ")[2]
        return 200, f"<r><t>{token}</t></r>", {"Content-Type": "application/xml"}

    server.route("GET", "/a")(xml)
    server.route("POST", "/.*")(lambda request: (200, {}))


def _write(folder: Path, a: Any, b: Any, derivation: str, steps: list[dict], **workflow: Any) -> Path:
    api_a = openapi(
        {"/a": {"get": op("opA", security=[{"cred": []}])}, "/open": {"post": op("openA", **BODY)}},
        components={"securitySchemes": {"cred": {"type": "http", "scheme": "bearer"}}},
    )
    api_a["servers"] = [{"url": a.url}]
    api_b = openapi({"/b": {"post": op("opB", **BODY)}})
    api_b["servers"] = [{"url": b.url}]
    (folder / "a.openapi.yaml").write_text(yaml.safe_dump(api_a, sort_keys=False))
    (folder / "b.openapi.yaml").write_text(yaml.safe_dump(api_b, sort_keys=False))
    selector = {"context": "$response.body", "selector": derivation, "type": XPATH31}
    one = step("one", "$sourceDescriptions.a.opA", outputs={"derived": selector})
    doc = {
        "arazzo": "1.1.0",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [
            {"name": "a", "url": "./a.openapi.yaml", "type": "openapi"},
            {"name": "b", "url": "./b.openapi.yaml", "type": "openapi"},
        ],
        "workflows": [{"workflowId": "flow", **workflow, "steps": [one, *steps]}],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _post(step_id: str, operation: str, value: str, **fields: Any) -> dict:
    payload = {"contentType": "application/json", "payload": {"x": value}}
    return step(step_id, operation, requestBody=payload, **fields)


def _run(path: Path, **options: Any) -> dict[str, Any]:
    options.setdefault("environ", {})
    [workflow] = arazzo_runner.run(path, None, {}, options=RunOptions(**options)).to_dict()["workflows"]
    return workflow


def _refused(server: Any, other: Any) -> str:
    return (
        "request not sent: it carries a value derived from the credential of security scheme 'cred' of "
        f"source a, which stays with {server.url}: the engine never sends a credential it added, or what "
        f"is computed from it, to another origin ({other.url})"
    )


@pytest.mark.parametrize("derivation", sorted(DERIVATIONS))
def test_a_value_computed_from_a_credential_is_not_sent_to_another_origin(
    tmp_path, server, other_server, derivation
):
    _reflect(server), _reflect(other_server)
    forward = _post("two", "$sourceDescriptions.b.opB", "$steps.one.outputs.derived")
    path = _write(tmp_path, server, other_server, DERIVATIONS[derivation], [forward])
    workflow = _run(path, auth={"a:cred": TOKEN})
    one, two = workflow["steps"]
    assert one["status"] == "passed" and one["outputs"]["derived"]  # computed (printed masked)
    assert two["status"] == "failed"
    assert two["error"] == _refused(server, other_server)
    assert other_server.requests == []


def test_the_mark_travels_through_outputs_and_the_command_line_says_the_same(
    tmp_path, capsys, server, other_server
):
    """Derived, copied into a later step's output (sent to its own origin meanwhile), then sent on: still
    refused, from the command line as from the library."""
    _reflect(server), _reflect(other_server)
    again = _post("again", "$sourceDescriptions.a.openA", "$steps.one.outputs.derived")
    again["outputs"] = {"copy": "$steps.one.outputs.derived"}
    forward = _post("two", "$sourceDescriptions.b.opB", "{$steps.again.outputs.copy}")
    path = _write(tmp_path, server, other_server, DERIVATIONS["code points"], [again, forward])
    result = cli(capsys, "run", path, "--auth", f"a:cred={TOKEN}", "--format", "json")
    assert result.code == 1
    steps = result.json["workflows"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed", "passed", "failed"]
    assert steps[2]["error"] == _refused(server, other_server)
    assert [r.path for r in server.requests] == ["/a", "/open"]  # its own origin: sent
    assert server.requests[1].json()["x"][0] == ord(TOKEN[0])
    assert other_server.requests == []
    assert TOKEN not in result.out + result.err


def test_a_derived_header_or_query_parameter_is_refused_too(tmp_path, server, other_server):
    _reflect(server), _reflect(other_server)
    params = [{"name": "X-Fwd", "in": "header", "value": "$steps.one.outputs.derived"}]
    forward = step("two", "$sourceDescriptions.b.opB", parameters=params)
    path = _write(tmp_path, server, other_server, DERIVATIONS["reversed"], [forward])
    workflow = _run(path, auth={"a:cred": TOKEN})
    assert workflow["steps"][1]["error"] == _refused(server, other_server)
    assert other_server.requests == []


def test_what_the_document_derives_from_its_own_input_goes_where_it_likes(tmp_path, server, other_server):
    """A credential given as an input is the document's own (it can read `$inputs`): no origin binds it,
    and what it computes from it is sent (still masked where printed)."""
    _reflect(server), _reflect(other_server)
    forward = _post("two", "$sourceDescriptions.b.opB", "$steps.one.outputs.derived")
    schema = {"type": "object", "properties": {"cred": {"type": "string"}}}
    path = _write(tmp_path, server, other_server, DERIVATIONS["code points"], [forward], inputs=schema)
    result = arazzo_runner.run(path, None, {"cred": TOKEN}, options=RunOptions(environ={})).to_dict()
    assert result["workflows"][0]["status"] == "passed"
    assert other_server.requests[0].json()["x"][0] == ord(TOKEN[0])
