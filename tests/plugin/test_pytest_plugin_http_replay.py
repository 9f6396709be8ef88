"""The pytest plugin offline: a suite's workflows answered from a HAR file recorded by `arazzo run
--record-http` against a real server, the server gone (ini key `arazzo_http_replay`, option
`--arazzo-http-replay`, fixture `arazzo_http_replay` overridden in a conftest.py)."""

from __future__ import annotations

import textwrap

import httpcore  # noqa: F401  imported here, not first inside a pytester run (test_pytest_plugin.py)
import httpx  # noqa: F401
import pytest
import yaml  # noqa: F401

from arazzo_runner.cli import main
from tests.servers.scripted import ScriptedServer

pytest_plugins = ["pytester"]

OPENAPI = """\
openapi: 3.1.0
info: {title: pets, version: '1'}
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses: {'200': {description: ok}}
"""

ARAZZO = """\
arazzo: 1.0.1
info: {title: checks, version: '1'}
sourceDescriptions: [{name: pets, url: ./pets.openapi.yaml, type: openapi}]
workflows:
  - workflowId: pet-is-a-dog
    inputs: {type: object, properties: {id: {type: integer, default: 7}}}
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: id, in: path, value: $inputs.id}]
        successCriteria: [{condition: $response.body#/kind == 'dog'}]
"""


@pytest.fixture
def project(pytester: pytest.Pytester, capsys) -> tuple[pytest.Pytester, str]:
    """The suite, and `api.har` recorded from a real server that is stopped before the suite runs."""
    (pytester.path / "pets.openapi.yaml").write_text(OPENAPI)
    (pytester.path / "checks.arazzo.yaml").write_text(ARAZZO)
    (pytester.path / "recorded").mkdir()
    with ScriptedServer() as server:
        server.route("GET", "/pets/{id}")(lambda r: (200, {"id": int(r.params["id"]), "kind": "dog"}))
        url = server.url
        code = main(["run", str(pytester.path / "checks.arazzo.yaml"), "--server", f"pets={url}",
                     "--record-http", str(pytester.path / "recorded" / "api.har")])  # fmt: skip
        assert code == 0 and len(server.requests) == 1
    capsys.readouterr()
    return pytester, url


def test_the_ini_key_runs_the_suite_offline(project) -> None:
    pytester, url = project
    pytester.makeini(f"[pytest]\narazzo_servers = pets={url}\narazzo_http_replay = recorded/api.har\n")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    # a request the file does not hold fails the test with the closest entry and the first difference
    result = pytester.runpytest("-v", "--arazzo-input", "id=8")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*no exchange of *api.har answers GET {url}/pets/8: the closest is entry 1 (GET {url}/pets/7*"
            '*path: the recording has "/pets/7", this run "/pets/8"*'
        ]
    )
    # without the key the suite goes to the network, where the server is gone
    pytester.makeini(f"[pytest]\narazzo_servers = pets={url}\n")
    pytester.runpytest("-v").assert_outcomes(failed=1)
    result = pytester.runpytest("-v", "--arazzo-http-replay", "recorded/api.har")
    result.assert_outcomes(passed=1)


def test_the_fixture_overridden_in_a_conftest(project) -> None:
    pytester, url = project
    pytester.makeini(f"[pytest]\narazzo_servers = pets={url}\n")
    pytester.makeconftest(
        textwrap.dedent(
            """
            import pytest

            @pytest.fixture
            def arazzo_http_replay(request):
                return request.config.rootpath / "recorded" / "api.har"
            """
        )
    )
    pytester.runpytest("-v").assert_outcomes(passed=1)
    (pytester.path / "recorded" / "api.har").write_text("[]")
    result = pytester.runpytest("-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*arazzo_http_replay *api.har: not a HAR file (no /log/entries list)*"])
