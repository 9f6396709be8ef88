"""An input no workflow declares (`--input modle=gpt` for `model`) is a usage error with a did-you-mean,
when the workflows declare their inputs; environment and `.env` inputs stay lenient (issue 12)."""

from __future__ import annotations

import json
import os

import pytest

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow

SCHEMA = {
    "type": "object",
    "required": ["model"],
    "properties": {"model": {"type": "string"}, "prompt": {"type": "string", "default": "hi"}},
}


def _create(step_id: str = "create", payload: dict | None = None) -> dict:
    payload = payload or {"model": "$inputs.model", "prompt": "$inputs.prompt"}
    return op_step(step_id, "createPet", requestBody={"payload": payload})


def _flow(**fields) -> dict:
    return workflow("flow", _create(), **({"inputs": SCHEMA} | fields))


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in [n for n in os.environ if n.upper().startswith("ARAZZO_INPUT_")]:
        monkeypatch.delenv(name)


@pytest.fixture
def answering(server):
    server.reply("POST", "/pets", (201, {}))
    return server


@pytest.mark.parametrize(
    "argv",
    [
        ["--input", "model=gpt", "--input", "modle=gpt-4"],
        ["--inputs", json.dumps({"model": "gpt", "modle": "gpt-4"})],
    ],
    ids=["--input", "--inputs"],
)
def test_a_typo_of_a_declared_input_is_a_usage_error_with_a_did_you_mean(capsys, write, answering, argv):
    result = run_json(capsys, write(arazzo_doc(_flow())), *argv, server=answering)
    assert result.code == 2
    (error,) = json.loads(result.out)["errors"]  # --format json: the error document
    assert error["kind"] == "usage"
    assert error["message"].startswith("unknown input 'modle': did you mean 'model'?\n")
    assert result.err == (
        "error: unknown input 'modle': did you mean 'model'?\n"
        "workflow 'flow' declares: model, prompt; nothing was sent\n"
    )
    assert answering.requests == []


def test_the_typo_is_named_before_the_missing_input_it_was_meant_for(capsys, write, answering):
    result = run_json(capsys, write(arazzo_doc(_flow())), "--input", "modle=gpt", server=answering)
    assert result.code == 2
    assert "unknown input 'modle': did you mean 'model'?" in result.err
    assert "needs inputs that were not given" not in result.err
    assert answering.requests == []


def test_a_name_far_from_every_declared_one_gets_no_suggestion(capsys, write, answering):
    result = run_json(capsys, write(arazzo_doc(_flow())), "-i", "model=a", "-i", "zzz=1", server=answering)
    assert result.code == 2
    assert result.err.startswith("error: unknown input 'zzz'\n")
    assert answering.requests == []


@pytest.mark.parametrize(
    "schema",
    [
        None,  # no inputs schema: any input is accepted
        {"type": "object"},  # a schema without properties
        {**SCHEMA, "additionalProperties": True},
        {**SCHEMA, "additionalProperties": {"type": "string"}},
        {**SCHEMA, "patternProperties": {"^x-": {}}},
    ],
    ids=["no-schema", "no-properties", "additional-true", "additional-schema", "pattern"],
)
def test_a_workflow_that_does_not_close_its_inputs_stays_lenient(capsys, write, answering, schema):
    flow = workflow("flow", _create(payload={"model": "$inputs.model"}))
    if schema is not None:
        flow["inputs"] = schema
    result = run_json(capsys, write(arazzo_doc(flow)), "-i", "model=m", "-i", "x-extra=1", server=answering)
    assert result.code == 0, result.err
    assert answering.requests[0].json() == {"model": "m"}


def test_a_name_declared_by_another_selected_workflow_or_a_dependency_is_known(capsys, write, answering):
    login = workflow(
        "login",
        _create("auth", {"token": "$inputs.token"}),
        inputs={"type": "object", "properties": {"token": {"type": "string"}}},
    )
    chat = _flow(dependsOn=["login"])
    other = workflow(
        "other",
        _create("again", {"topic": "$inputs.topic"}),
        inputs={"type": "object", "properties": {"topic": {"type": "string"}}},
    )
    path = write(arazzo_doc(login, chat, other))
    given = ["-i", "model=m", "-i", "token=t0k3n", "-i", "topic=cats"]
    result = run_json(capsys, path, "-w", "flow", "-w", "other", *given, server=answering)
    assert result.code == 0, result.err
    assert [r.json() for r in answering.requests] == [
        {"token": "t0k3n"},
        {"model": "m", "prompt": "hi"},
        {"topic": "cats"},
    ]
    typo = run_json(capsys, path, "-w", "flow", "-w", "other", *given, "-i", "tokne=x", server=answering)
    assert typo.code == 2
    assert typo.err == (
        "error: unknown input 'tokne': did you mean 'token'?\n"
        "the workflows that receive the run's inputs (selected, and their dependencies) declare: "
        "model, prompt, token, topic; nothing was sent\n"
    )


def test_environment_and_dotenv_inputs_stay_lenient(capsys, monkeypatch, write, answering, tmp_path):
    path = write(arazzo_doc(_flow()))
    monkeypatch.setenv("ARAZZO_INPUT_MODEL", "from-env")
    monkeypatch.setenv("ARAZZO_INPUT_MODLE", "a typo nobody reads")
    (tmp_path / ".env").write_text("ARAZZO_INPUT_PROMTP=also ignored\n")
    result = run_json(capsys, path, server=answering)
    assert result.code == 0, result.err
    assert answering.requests[0].json() == {"model": "from-env", "prompt": "hi"}


def test_an_inputs_file_row_with_an_unknown_name_is_refused_naming_the_row(
    capsys, write, answering, tmp_path
):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"model": "a"}\n\n{"model": "b", "promt": "hello"}\n')
    result = run_json(capsys, write(arazzo_doc(_flow())), "--inputs-file", rows, server=answering)
    assert result.code == 2
    assert result.err == (
        "error: unknown input 'promt' (--inputs-file row 2, line 3): did you mean 'prompt'?\n"
        "workflow 'flow' declares: model, prompt; nothing was sent\n"
    )
    assert answering.requests == []  # every row is checked before the first request of any


def test_the_library_refuses_an_unknown_input_before_sending(write, answering):
    path = write(arazzo_doc(_flow()))
    with pytest.raises(arazzo_runner.UsageError) as raised:
        arazzo_runner.run(path, "flow", {"model": "m", "modle": "n"}, servers={"pets": answering.url})
    assert str(raised.value).startswith("unknown input 'modle': did you mean 'model'?")
    with pytest.raises(arazzo_runner.UsageError):
        arazzo_runner.plan_requests(path, "flow", {"model": "m", "modle": "n"})
    assert answering.requests == []
    result = arazzo_runner.run(path, "flow", {"model": "m"}, servers={"pets": answering.url})
    assert result.ok, result.to_dict()


def test_the_dry_run_refuses_it_too(capsys, write, answering):
    result = cli(capsys, "run", write(arazzo_doc(_flow())), "--dry-run", "-i", "model=m", "-i", "modle=x")
    assert result.code == 2
    assert "unknown input 'modle': did you mean 'model'?" in result.err
