"""Optional parameters left out because the caller did not give the declared inputs they read (issue 37,
point 3): a real API has many (`tag`, `sort`, `limit`...), and a line for each on every step buried
what mattered. They make one warning per step execution, which the console shows only with --verbose
and the JSON keeps; what is worth acting on stays loud: a parameter whose value went missing any other
way (a step output, a member of an input, an input of a workflow that declares none) has its own
warning, always shown, and a required parameter or a required input that is missing fails before
anything is sent. Real requests to a real local server."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow

STRING = {"type": "string"}
LEFT_OUT = (
    "parameters 'tag' (in query), 'sort' (in query, input 'sortOrder'), 'limit' (in query) not sent: "
    "their inputs were not provided"
)
FROM_A_STEP = (
    "parameter 'owner' (in query) not sent: $steps.first.outputs.body#/owner: no member 'owner' at the root"
)
FROM_AN_INPUT = "parameter 'color' (in query) not sent: $inputs.filter#/color: no member 'color' at the root"


def _openapi() -> dict[str, Any]:
    api = copy.deepcopy(PETS_OPENAPI)
    optional = [{"name": name, "in": "query", "schema": STRING} for name in ("tag", "sort", "owner", "color")]
    api["paths"]["/pets"]["get"]["parameters"] += optional
    api["paths"]["/pets"]["get"]["parameters"].append(
        {"name": "X-Req", "in": "header", "required": True, "schema": STRING}
    )
    return api


def _doc(required: list[str] | None = None, declared: bool = True) -> dict[str, Any]:
    first = op_step(
        "first",
        "listPets",
        parameters=[{"name": "X-Req", "in": "header", "value": "r"}],
        outputs={"body": "$response.body"},
    )
    values = {
        "tag": "$inputs.tag",
        "sort": "$inputs.sortOrder",
        "limit": "$inputs.limit",
        "owner": "$steps.first.outputs.body#/owner",  # the response has no owner
        "color": "$inputs.filter#/color",  # the input given has no color
        "X-Req": "$inputs.req",
    }
    params = [
        {"name": name, "in": "header" if name == "X-Req" else "query", "value": value}
        for name, value in values.items()
    ]
    names = ("tag", "sortOrder", "limit", "filter", "req")
    inputs: dict[str, Any] = {"type": "object", "properties": {name: {} for name in names}}
    if required:
        inputs["required"] = required
    fields = {"inputs": inputs} if declared else {}
    return arazzo_doc(workflow("flow", first, op_step("list", "listPets", parameters=params), **fields))


def _serve(server: Any) -> None:
    server.reply("GET", "/pets", (200, {"count": 0}))


def _warnings(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("warning:")]


def test_optional_parameters_left_out_with_their_inputs_say_nothing_but_what_is_worth_acting_on(
    capsys, write, server
) -> None:
    _serve(server)
    path = write(_doc(), openapi=_openapi())
    given = ("--input", "req=r", "--inputs", json.dumps({"filter": {}}))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", *given)
    assert result.code == 0, result.out + result.err
    assert _warnings(result.out) == [f"warning: {FROM_A_STEP}", f"warning: {FROM_AN_INPUT}"]
    assert [r.raw_query for r in server.requests] == ["", ""]  # nothing of the left-out ones was sent


def test_verbose_shows_them_in_one_line_per_step_and_the_json_keeps_it(capsys, write, server) -> None:
    _serve(server)
    path = write(_doc(), openapi=_openapi())
    given = ("--input", "req=r", "--inputs", json.dumps({"filter": {}}))
    verbose = cli(capsys, "run", path, "--server", f"pets={server.url}", *given, "--verbose")
    assert verbose.code == 0, verbose.out + verbose.err
    assert _warnings(verbose.out) == [
        f"warning: {FROM_A_STEP}",
        f"warning: {FROM_AN_INPUT}",
        f"warning: {LEFT_OUT}",  # one line for the three
    ]
    as_json = run_json(capsys, path, *given, server=server)
    assert as_json.json["workflows"][0]["steps"][1]["warnings"] == [FROM_A_STEP, FROM_AN_INPUT, LEFT_OUT]

    more = ("--input", "tag=t", "--input", "sortOrder=asc", "--verbose")
    one = cli(capsys, "run", path, "--server", f"pets={server.url}", *given, *more)
    assert one.code == 0, one.out + one.err
    left = "warning: parameter 'limit' (in query) not sent: input 'limit' was not provided"
    assert left in _warnings(one.out)
    assert server.requests[-1].raw_query == "tag=t&sort=asc"


def test_an_input_of_a_workflow_that_declares_none_stays_a_warning_of_its_own(capsys, write, server) -> None:
    _serve(server)
    path = write(_doc(declared=False), openapi=_openapi())
    given = ("--input", "req=r", "--inputs", json.dumps({"filter": {}}))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", *given)
    assert result.code == 0, result.out + result.err
    assert _warnings(result.out)[:3] == [
        "warning: parameter 'tag' (in query) not sent: input 'tag' was not provided",
        "warning: parameter 'sort' (in query) not sent: input 'sortOrder' was not provided",
        "warning: parameter 'limit' (in query) not sent: input 'limit' was not provided",
    ]


def test_a_required_parameter_or_input_left_out_still_fails_loudly(capsys, write, server) -> None:
    _serve(server)
    path = write(_doc(), openapi=_openapi())
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--inputs", json.dumps({"filter": {}})
    )
    assert result.code == 1
    assert (
        "request not sent: required parameter 'X-Req' (in header) has no value: $inputs.req: "
        "input 'req' was not provided"
    ) in result.out
    assert len(server.requests) == 1  # the first step's only

    required = write(_doc(required=["tag"]), openapi=_openapi(), name="required.arazzo.yaml")
    refused = cli(capsys, "run", required, "--server", f"pets={server.url}", "--input", "req=r")
    assert refused.code == 2
    assert "error: workflow 'flow' needs inputs that were not given:\n  tag " in refused.err
    assert len(server.requests) == 1


def test_the_dry_run_shows_the_line_under_the_request_it_concerns(capsys, write, server) -> None:
    path = write(_doc(), openapi=_openapi())
    given = ("--input", "req=r", "--inputs", json.dumps({"filter": {}}))
    dry = cli(capsys, "run", path, "--server", f"pets={server.url}", *given, "--dry-run")
    assert dry.code == 0, dry.out + dry.err
    lines = [line.strip() for line in dry.out.splitlines()]
    second = lines.index(f"list  GET {server.url}/pets?owner=<$steps.first.outputs.body#/owner>")
    assert lines[second + 1 :] == ["> X-Req: r", f"warning: {FROM_AN_INPUT}", f"warning: {LEFT_OUT}"]
    assert server.requests == []
