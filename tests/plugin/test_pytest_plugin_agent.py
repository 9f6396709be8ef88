"""The pytest plugin's `arazzo_agent_replay`: an agent scenario run from its recording in a pytest run of
its own (a subprocess), the tools' workflows against a real local server, no model and no key; a
changed workflow output fails the test with the turn and the value; `--arazzo-agent-chat` records the
scenario again."""

from __future__ import annotations

import json

import pytest

from tests.e2e.agentkit import BOTH, OWNER_KEY, SECRETS, TOKEN, serve_shop, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

pytest_plugins = ["pytester"]
ONLY = ("-p", "no:cacheprovider", "test_scenario.py")  # not the shop's workflows as tests of their own

SCENARIO = f"""\
import pytest


def test_the_pet_and_its_owner(arazzo_agent_replay):
    result = arazzo_agent_replay(
        "recordings/pets.json",
        "shop.arazzo.yaml",
        inputs={{"token": "{TOKEN}"}},
        auth={{"ownerKey": "{OWNER_KEY}"}},
    )
    assert result.turns == 2
    assert {{call.outcome.name: call.outcome.outputs for call in result.tool_calls}}["pet_details"] == {{
        "name": "Rex",
        "seen": "***",
    }}


def test_without_a_document(arazzo_agent_replay):
    with pytest.raises(pytest.fail.Exception, match="name the Arazzo document"):
        arazzo_agent_replay("recordings/pets.json")
"""


@pytest.fixture
def suite(pytester, capsys):
    """A test suite: the shop's document, a recording of the agent run against the bundled reference
    server, and a test module replaying it."""
    folder = pytester.path
    path = write_shop(folder)
    (folder / "recordings").mkdir()
    recording = folder / "recordings" / "pets.json"
    with ScriptedServer() as shop:
        serve_shop(shop)
        made = cli(capsys, "agent", *tool_args(path, shop), "--prompt", BOTH, "--record", str(recording))
    assert made.code == 0, made.err
    pytester.makepyfile(test_scenario=SCENARIO)
    return recording


def test_a_scenario_passes_from_its_recording_with_no_model_and_no_key(pytester, suite, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedServer() as shop:
        serve_shop(shop)
        result = pytester.runpytest_subprocess(*ONLY, "--arazzo-server", f"shop={shop.url}")
        assert len(shop.requests) == 2  # the tools ran their workflows, for real
    result.assert_outcomes(passed=2)


def test_a_changed_workflow_output_fails_the_test_saying_where(pytester, suite):
    with ScriptedServer() as shop:

        @shop.route("GET", "/pets/{petId}")
        def renamed(request):
            return 200, {"id": 1, "name": "Max", "seenAuthorization": request.headers.get("authorization")}

        serve_shop(shop)
        result = pytester.runpytest_subprocess(*ONLY, "--arazzo-server", f"shop={shop.url}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "replay of *pets.json: turn 2: messages?2? (tool of call call_*).content.outputs.name: "
            'the recording has "Rex", this run "Max"'
        ]
    )
    output = result.stdout.str() + result.stderr.str()
    assert not any(secret in output for secret in SECRETS)


def test_the_chat_options_record_the_scenario_again(pytester, suite, monkeypatch):
    from arazzo_runner.reference import ReferenceServer

    before = json.loads(suite.read_text())
    suite.write_text(json.dumps({**before, "exchanges": before["exchanges"][:1]}))  # stale: one turn
    monkeypatch.setenv("OPENAI_API_KEY", "sk-rerecord-7f3a9c")
    with ScriptedServer() as shop, ReferenceServer() as chat:
        serve_shop(shop)
        again = ["--arazzo-agent-chat", chat.url, "--arazzo-agent-model", "agentaus"]
        flags = [*ONLY, "--arazzo-server", f"shop={shop.url}", "-k", "pet_and"]
        result = pytester.runpytest_subprocess(*flags, *again)
        result.assert_outcomes(passed=1)
        after = json.loads(suite.read_text())
        assert len(after["exchanges"]) == 2 and after["endpoint"] == chat.url
        assert (
            after["exchanges"][1]["completion"]["content"] == before["exchanges"][1]["completion"]["content"]
        )
        assert "sk-rerecord-7f3a9c" not in suite.read_text()
        monkeypatch.delenv("OPENAI_API_KEY")
        pytester.runpytest_subprocess(*flags).assert_outcomes(passed=1)  # and it replays


def test_the_chat_options_need_a_model_and_a_key(pytester, suite, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = pytester.runpytest_subprocess(
        *ONLY, "--arazzo-agent-chat", "http://127.0.0.1:9/v1", "-k", "pet_and"
    )
    output = result.stdout.str() + result.stderr.str()
    assert "--arazzo-agent-chat needs --arazzo-agent-model and OPENAI_API_KEY" in output
    assert result.ret != 0
