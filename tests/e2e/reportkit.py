"""A run worth a report, for the tests of `arazzo run --html` and `arazzo report`: against a real local
server, workflow `flow` creates a pet (a `format: password` input in its body and a header), polls a
flaky endpoint that answers 503 once (a retry), calls workflow `child` (HTTP basic credentials), then
`check` fails its criteria on a body that holds `</script>` and the secret echoed back.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

from arazzo_runner.masking.secrets import variants
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

SECRET = "Sup3r/Secret+Value"
PASSWORD = "b4sic-Pa55word"  # the HTTP basic password (--auth)
USER = "alice"
BREAKOUT = "</script><script>document.title='pwned'</script><!--"
SECRET_INPUTS = {
    "type": "object",
    "properties": {"password": {"type": "string", "format": "password"}, "name": {"type": "string"}},
}


def secret_forms() -> set[str]:
    """Every form the masker knows of the secrets, and the basic-auth pair as it is sent."""
    pair = f"{USER}:{PASSWORD}".encode()
    forms = set(variants(SECRET)) | set(variants(PASSWORD))
    forms |= {base64.b64encode(pair).decode(), base64.urlsafe_b64encode(pair).decode().rstrip("=")}
    return {form for form in forms if len(form) >= 4}


def openapi() -> dict[str, Any]:
    api = copy.deepcopy(PETS_OPENAPI)
    api["components"] = {"securitySchemes": {"basic": {"type": "http", "scheme": "basic"}}}
    api["paths"]["/pets/{petId}"]["get"]["security"] = [{"basic": []}]
    return api


def document() -> dict[str, Any]:
    create = op_step(
        "create",
        "createPet",
        requestBody={"payload": {"name": "$inputs.name", "password": "$inputs.password"}},
        successCriteria=[{"condition": "$statusCode == 201"}],
        outputs={"id": "$response.body#/id", "echo": "$response.body#/stored/name"},
    )
    poll = op_step(
        "poll",
        "flaky",
        successCriteria=[{"condition": "$statusCode == 200"}],
        onFailure=[
            {
                "name": "busy",
                "type": "retry",
                "retryAfter": 0,
                "retryLimit": 2,
                "criteria": [{"condition": "$statusCode == 503"}],
            }
        ],
        outputs={"state": "$response.body#/state"},
    )
    call = {
        "stepId": "call",
        "workflowId": "child",
        "parameters": [{"name": "id", "value": "$steps.create.outputs.id"}],
    }
    check = op_step(
        "check",
        "listPets",
        parameters=[{"name": "limit", "in": "query", "value": 5}],
        successCriteria=[
            {"condition": "$statusCode == 200"},
            {"condition": "$response.body#/count > 0"},
        ],
    )
    inner = op_step(
        "inner",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "$inputs.id"},
            {"name": "X-Trace", "in": "header", "value": "trace-{$inputs.id}"},
        ],
        outputs={"kind": "$response.body#/kind"},
    )
    child_inputs = {"type": "object", "properties": {"id": {"type": "integer"}}}
    return arazzo_doc(
        workflow("flow", create, poll, call, check, inputs=SECRET_INPUTS),
        workflow("child", inner, inputs=child_inputs, outputs={"kind": "$steps.inner.outputs.kind"}),
    )


def serve(server: Any, *, count: int = 0) -> None:
    server.route("POST", "/pets")(lambda r: (201, {"id": 7, "stored": r.json()}))
    server.reply("GET", "/flaky", (503, {"state": "busy"}), (200, {"state": "ready"}))
    server.route("GET", "/pets/{petId}")(
        lambda r: (200, {"id": 7, "kind": "cat", "auth": r.headers.get("authorization")})
    )
    body = {"count": count, "note": BREAKOUT, "echo": SECRET}
    server.route("GET", "/pets")(lambda r: (200, body))


def run_with_reports(capsys: Any, write: Any, server: Any, folder: Path, *extra: Any, count: int = 0) -> Any:
    """`arazzo run` of the document with --html, --report-json and --summary into `folder`."""
    serve(server, count=count)
    path = write(document(), openapi=openapi())
    return cli(
        capsys,
        "run",
        path,
        "--server",
        f"pets={server.url}",
        "--input",
        f"password={SECRET}",
        "--input",
        "name=rex",
        "--auth",
        f"basic.username={USER}",
        "--auth",
        f"basic.password={PASSWORD}",
        "--html",
        folder / "report.html",
        "--report-json",
        folder / "report.json",
        "--summary",
        folder / "summary.md",
        "--github",
        "off",
        *extra,
    )


def page_json(html: str) -> Any:
    """The data block of a report page, parsed."""
    found = re.search(r'<script type="application/json" id="arazzo-data">(.*?)</script>', html, re.S)
    assert found, "no data block"
    return json.loads(found.group(1))


def two_runs(capsys: Any, write: Any, server: Any, other_server: Any, folder: Path) -> tuple[Path, Path]:
    """The saved reports of two runs of `flow`: `before.json` (failed at `check`) and `after.json`
    (passed), each against its own server."""
    run_with_reports(capsys, write, server, folder, "-w", "flow")
    before = (folder / "report.json").rename(folder / "before.json")
    run_with_reports(capsys, write, other_server, folder, "-w", "flow", count=2)
    return before, (folder / "report.json").rename(folder / "after.json")


def events_report() -> dict[str, Any]:
    """A saved run (as issue 22's `arazzo run` writes one) of an event-driven workflow: a send and a
    non-blocking receive on two channels, and a workflow `arazzo run` did not run for a document problem."""

    def message(direction: str, channel: str, at: str, payload: str) -> dict[str, Any]:
        broker = {"protocol": "mqtt", "server": "mqtt://127.0.0.1:1883"}
        return {
            "direction": direction,
            **broker,
            "channel": channel,
            "headers": [],
            "payload": payload,
            "at": at,
        }

    def step(step_id: str, kind: str, at: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"stepId": step_id, "status": "passed", "attempts": 1, "statusCode": None, "outputs": {},
                "durationMs": 40.0, "startedAt": at, "messageAction": kind, "messages": messages}  # fmt: skip

    send = step("placeOrder", "send", "2026-01-01T00:00:00.010Z",
                [message("send", "orders/new", "2026-01-01T00:00:00.020Z", '{"id": 1}')])  # fmt: skip
    shipped = message("receive", "orders/shipped", "2026-01-01T00:00:00.040Z", '{"id": 1, "ok": true}')
    receive = step("awaitShipment", "receive", "2026-01-01T00:00:00.005Z", [shipped])
    flow = {"workflowId": "order", "status": "passed", "outputs": {}, "error": None, "steps": [send, receive],
            "durationMs": 60.0, "startedAt": "2026-01-01T00:00:00.000Z"}  # fmt: skip
    problem = {"rule": "step-target", "message": "operationId 'nope' is not in any source",
               "path": "/workflows/1", "file": "orders.arazzo.yaml", "line": 42, "column": 9}  # fmt: skip
    broken = {"workflowId": "refund", "status": "not_run", "outputs": {}, "steps": [], "durationMs": 0.0,
              "error": {"stepId": None, "message": "not run: 1 problem"}, "problems": [problem]}  # fmt: skip
    return {"masked": True, "status": "failed", "workflows": [flow, broken]}
