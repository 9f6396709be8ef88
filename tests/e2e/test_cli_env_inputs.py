"""Inputs from the environment (`ARAZZO_INPUT_<NAME>`, `--inputs-env PREFIX`) and from a `.env` file next
to the workflow; their precedence; and the message for missing required inputs."""

from __future__ import annotations

import json
import os

import pytest

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, subprocess_cli, workflow

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon"]
SCHEMA = {
    "type": "object",
    "required": ["alpha"],
    "properties": {
        **{name: {"type": "string"} for name in NAMES[:4]},
        "epsilon": {"type": "string", "default": "from-default"},
        "user-id": {"type": "integer", "description": "who"},
        "flag": {"type": "boolean"},
    },
}


def _doc() -> dict:
    payload = {name: f"$inputs.{name}" for name in [*NAMES, "user-id", "flag"]}
    return arazzo_doc(
        workflow("flow", op_step("create", "createPet", requestBody={"payload": payload}), inputs=SCHEMA)
    )


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in [n for n in os.environ if n.upper().startswith(("ARAZZO_INPUT_", "MY_"))]:
        monkeypatch.delenv(name)


@pytest.fixture
def flow(write, server):
    server.reply("POST", "/pets", (201, {}))
    return write(_doc())


def _sent(server) -> dict:
    assert len(server.requests) == 1
    return json.loads(server.requests[0].body)


def test_precedence_input_over_inputs_over_environment_over_dotenv_over_defaults(
    capsys, monkeypatch, flow, server
):
    (flow.parent / ".env").write_text(
        "ARAZZO_INPUT_ALPHA=dotenv\nARAZZO_INPUT_BETA=dotenv\nARAZZO_INPUT_GAMMA=dotenv\nARAZZO_INPUT_DELTA=dotenv\n"
    )
    for name in ("ALPHA", "BETA", "GAMMA"):
        monkeypatch.setenv(f"ARAZZO_INPUT_{name}", "env")
    argv = ["--inputs", '{"alpha": "inputs", "beta": "inputs"}', "--input", "alpha=input"]
    result = run_json(capsys, flow, *argv, server=server)
    assert result.code == 0, result.err
    assert _sent(server) == {
        "alpha": "input",
        "beta": "inputs",
        "gamma": "env",
        "delta": "dotenv",
        "epsilon": "from-default",
    }


def test_names_match_case_insensitively_and_values_are_coerced(capsys, monkeypatch, flow, server):
    monkeypatch.setenv("arazzo_input_Alpha", "a")  # both the prefix and the name, in any case
    monkeypatch.setenv("ARAZZO_INPUT_USER_ID", "42")  # `user-id`: other characters as `_`
    monkeypatch.setenv("ARAZZO_INPUT_FLAG", "true")
    monkeypatch.setenv("ARAZZO_INPUT_UNDECLARED", "ignored")
    result = run_json(capsys, flow, server=server)
    assert result.code == 0, result.err
    assert _sent(server) == {"alpha": "a", "user-id": 42, "flag": True, "epsilon": "from-default"}


def test_a_custom_prefix_replaces_the_default_and_the_environment_can_be_turned_off(
    capsys, monkeypatch, flow, server
):
    monkeypatch.setenv("MY_ALPHA", "mine")
    monkeypatch.setenv("ARAZZO_INPUT_ALPHA", "default-prefix")
    result = run_json(capsys, flow, "--inputs-env", "MY_", server=server)
    assert result.code == 0, result.err
    assert _sent(server)["alpha"] == "mine"
    off = cli(capsys, "run", flow, "--server", f"pets={server.url}", "--no-inputs-env")
    assert off.code == 2 and "alpha (string)" in off.err
    assert len(server.requests) == 1  # the second run sent nothing


def test_dotenv_is_read_next_to_the_workflow_not_from_the_working_directory(
    capsys, monkeypatch, flow, server, tmp_path_factory
):
    elsewhere = tmp_path_factory.mktemp("cwd")
    (elsewhere / ".env").write_text("ARAZZO_INPUT_ALPHA=wrong-folder\n")
    (flow.parent / ".env").write_text("# inputs\nexport ARAZZO_INPUT_ALPHA='from .env'\n")
    monkeypatch.chdir(elsewhere)
    result = run_json(capsys, flow, server=server)
    assert result.code == 0, result.err
    assert _sent(server)["alpha"] == "from .env"


def test_dotenv_is_read_in_the_folder_named_not_beside_a_symlink_s_target(
    capsys, monkeypatch, flow, server, tmp_path_factory
):
    """`linked/flow.arazzo.yaml -> real/flow.arazzo.yaml`: the command names `linked/`, so its `.env` is
    read (the folder a relative path in the command means), never the target's."""
    linked = tmp_path_factory.mktemp("linked")
    (linked / "flow.arazzo.yaml").symlink_to(flow)
    (flow.parent / ".env").write_text("ARAZZO_INPUT_ALPHA=beside-the-target\n")
    (linked / ".env").write_text("ARAZZO_INPUT_ALPHA=in-the-folder-named\n")
    monkeypatch.chdir(linked)
    result = run_json(capsys, "flow.arazzo.yaml", server=server)
    assert result.code == 0, result.err
    assert _sent(server)["alpha"] == "in-the-folder-named"


def test_no_dotenv_skips_the_file_even_a_malformed_one(capsys, flow, server):
    (flow.parent / ".env").write_text("ARAZZO_INPUT_ALPHA=x\nthis is not a pair\n")
    broken = cli(capsys, "run", flow, "--server", f"pets={server.url}")
    assert broken.code == 2 and ".env:2: expected KEY=VALUE" in broken.err
    skipped = cli(capsys, "run", flow, "--server", f"pets={server.url}", "--no-dotenv", "--input", "alpha=a")
    assert skipped.code == 0, skipped.err


def test_missing_required_inputs_say_how_to_supply_each_and_nothing_is_sent(capsys, write, server):
    schema = {
        "type": "object",
        "required": ["apiKey", "model", "temperature"],
        "properties": {
            "apiKey": {"type": "string", "description": "the API key"},
            "model": {"type": "string"},
            "temperature": {"type": "number", "default": 0.5},  # required, but has a default
        },
    }
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"), inputs=schema)))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", "model=m")
    assert result.code == 2
    assert result.out == ""
    assert server.requests == []
    dotenv = path.parent / ".env"
    assert result.err.splitlines() == [
        "error: workflow 'flow' needs inputs that were not given:",
        "  apiKey (string) - the API key",
        f"      give it with --input apiKey=..., or ARAZZO_INPUT_APIKEY=... in the environment or {dotenv}",
        "nothing was sent",
    ]
    quiet = cli(capsys, "run", path, "--server", f"pets={server.url}", "--no-dotenv", "--no-inputs-env")
    assert "give it with --input apiKey=...\n" in quiet.err and "ARAZZO_INPUT" not in quiet.err
    assert "model (string)" in quiet.err


def test_dotenv_also_supplies_credentials_and_the_real_environment_wins(capsys, monkeypatch, write, server):
    openapi = {
        **PETS_OPENAPI,
        "security": [{"bearer": []}],
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
    server.reply("GET", "/pets", (200, []))
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))), openapi=openapi)
    (path.parent / ".env").write_text("ARAZZO_AUTH_BEARER_TOKEN=from-dotenv\n")
    assert run_json(capsys, path, server=server).code == 0
    monkeypatch.setenv("ARAZZO_AUTH_BEARER_TOKEN", "from-env")
    assert run_json(capsys, path, server=server).code == 0
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer from-dotenv", "Bearer from-env"]


def test_environment_inputs_in_a_real_process(flow, server):
    env = {"ARAZZO_INPUT_ALPHA": "proc", "ARAZZO_INPUT_USER_ID": "7"}
    result = subprocess_cli("run", flow, "--server", f"pets={server.url}", "--format", "json", env=env)
    assert result.code == 0, result.err
    assert _sent(server) == {"alpha": "proc", "user-id": 7, "epsilon": "from-default"}
