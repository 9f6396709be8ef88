"""The seed flavour (the default) keeps the contract's wire where the OpenAI flavour differs, and the
command line starts either."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from arazzo_runner.reference import ReferenceServer
from tests.unit.reference.openai_kit import WEATHER, free_port, user

AUTH = {"Authorization": "Bearer k"}


@pytest.fixture(scope="module")
def seed() -> Iterator[ReferenceServer]:
    with ReferenceServer() as running:
        yield running


def post(server: ReferenceServer, payload: Any, headers: dict[str, str] = AUTH) -> httpx.Response:
    return httpx.post(server.url + "/chat/completions", json=payload, headers=headers)


def test_the_default_is_the_seed_flavour(seed: ReferenceServer) -> None:
    assert seed.flavor == "seed" and seed.streams_by_default is True
    response = post(seed, {"messages": user("hi")})  # no `model`: it defaults to agentaus
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = [json.loads(line[6:]) for line in response.text.split("\n") if line.startswith("data: {")]
    assert chunks[-1]["choices"] == [] and set(chunks[-1]["usage"]) == {
        "input_tokens",
        "output_tokens",
        "total_tokens",
    }
    assert chunks[0]["model"] == "agentaus" and "text" in chunks[1]["choices"][0]


def test_unknown_members_are_ignored_by_the_seed_flavour(seed: ReferenceServer) -> None:
    # The contract lists no other members; the seed flavour neither rejects nor applies them.
    payload = {
        "messages": user("Hello there"),
        "stream": False,
        "temperature": 9,
        "frobnicate": 1,
        "max_tokens": 1,
    }
    answer = post(seed, payload).json()
    assert answer["choices"][0]["finish_reason"] == "stop"
    assert answer["usage"]["output_tokens"] == 11  # max_tokens not applied
    assert answer["choices"][0]["message"]["tool_calls"] == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"messages": [{"role": "developer", "content": "x"}, *user("hi")]}, "messages[0].role"),
        (
            {
                "messages": user("hi"),
                "tools": [WEATHER],
                "tool_choice": {"type": "function", "function": {"name": "get_current_weather"}},
            },
            "tool_choice",
        ),
    ],
)
def test_openai_only_forms_are_400_in_the_contract_shape(
    seed: ReferenceServer, payload: dict[str, Any], field: str
) -> None:
    response = post(seed, {**payload, "stream": False})
    assert response.status_code == 400
    assert set(response.json()) == {"status", "message", "data"} and field in response.json()["data"]


def test_no_model_endpoint_in_the_seed_flavour(seed: ReferenceServer) -> None:
    response = httpx.get(seed.url + "/models", headers=AUTH)
    assert response.status_code == 405
    assert response.json() == {
        "status": 405,
        "message": "Method not allowed",
        "data": {"method": ["use POST"]},
    }


def test_an_api_key_is_checked_in_both_flavours() -> None:
    for flavor in ("seed", "openai"):
        with ReferenceServer(flavor=flavor, api_key="sk-right") as server:
            payload = {"model": "m", "messages": user("hi"), "stream": False}
            assert post(server, payload, {"Authorization": "Bearer sk-right"}).status_code == 200
            wrong = post(server, payload, {"Authorization": "Bearer sk-wrong"})
            assert wrong.status_code == 401 and "sk-wrong" not in wrong.text


def _serve(*flags: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arazzo_runner.reference", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_command_line_openai_flavour_with_an_api_key_from_the_environment() -> None:
    port = free_port()
    process = _serve(
        "--port", str(port), "--flavor", "openai", "--api-key-env", "REF_KEY", env={"REF_KEY": "sk-x"}
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"http://127.0.0.1:{port}/v1 (openai flavour" in line
        base = f"http://127.0.0.1:{port}/v1"
        models = httpx.get(base + "/models", headers={"Authorization": "Bearer sk-x"})
        assert models.json()["data"][0]["id"] == "agentaus"
        answer = httpx.post(base + "/chat/completions", json={"model": "m", "messages": user("hi")},
                            headers={"Authorization": "Bearer sk-x"})  # fmt: skip
        assert answer.headers["content-type"] == "application/json"  # stream defaults to false
        refused = httpx.get(base + "/models", headers={"Authorization": "Bearer sk-y"})
        assert refused.json()["error"]["code"] == "invalid_api_key"
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "sk-x" not in line + err


def test_command_line_refuses_an_unset_key_variable_and_an_unknown_flavour() -> None:
    unset = _serve("--port", "0", "--api-key-env", "REF_KEY_NOT_SET_ANYWHERE")
    _, err = unset.communicate(timeout=30)
    assert unset.returncode == 2 and "REF_KEY_NOT_SET_ANYWHERE is not set" in err
    unknown = _serve("--port", "0", "--flavor", "gemini")
    _, err = unknown.communicate(timeout=30)
    assert unknown.returncode == 2 and "invalid choice: 'gemini'" in err


def test_a_reset_connection_prints_no_traceback(
    seed: ReferenceServer, capsys: pytest.CaptureFixture[str]
) -> None:
    httpd = seed._httpd
    for error in (ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe")):
        try:
            raise error
        except OSError:
            httpd.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise RuntimeError("a real bug")
    except RuntimeError:
        httpd.handle_error(None, ("127.0.0.1", 1))
    assert "RuntimeError: a real bug" in capsys.readouterr().err
