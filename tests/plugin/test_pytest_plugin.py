"""The pytest plugin: Arazzo documents collected as tests, one item per workflow, run for real."""

from __future__ import annotations

import textwrap
from pathlib import Path

import httpcore  # noqa: F401  imported here, not first inside a pytester run (see below)
import httpx  # noqa: F401  (as httpcore)
import pytest
import yaml  # noqa: F401  (as httpcore)

# pytester's in-process runs drop the modules a run imported. Some keep objects of their first import
# where a later import would make new classes: libyaml's parser cannot be imported again; httpx maps
# httpcore's exceptions with a table built on its first request; the engine caches `httpx.Timeout`
# objects. Any of them first imported inside a run would give later tests (of this file or any other)
# objects of classes the code no longer knows (`httpcore.ConnectError` where `httpx.ConnectError` was
# expected, a `Timeout` that is not an `httpx.Timeout`).
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
  - workflowId: pet-exists
    inputs: {type: object, required: [id], properties: {id: {type: integer}}}
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: id, in: path, value: $inputs.id}]
        successCriteria: [{condition: $statusCode == 200}, {condition: $response.body#/id == $inputs.id}]
  - workflowId: pet-is-a-cat
    inputs: {type: object, required: [id], properties: {id: {type: integer}}}
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: id, in: path, value: $inputs.id}]
        successCriteria: [{condition: $response.body#/kind == 'cat'}]
"""

CONFTEST = """\
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class Pets(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"id": int(self.path.rsplit("/", 1)[1]), "kind": "dog"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def pets_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pets)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def arazzo_servers(pets_url):
    return {"pets": pets_url}
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "pets.openapi.yaml").write_text(OPENAPI)
    (pytester.path / "checks.arazzo.yaml").write_text(ARAZZO)
    pytester.makeconftest(CONFTEST)
    return pytester


def test_one_item_per_workflow_run_for_real(project: pytest.Pytester) -> None:
    result = project.runpytest("-v", "--arazzo-input", "id=7")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*checks.arazzo.yaml::pet-exists PASSED*",
            "*checks.arazzo.yaml::pet-is-a-cat FAILED*",
            "*workflow pet-is-a-cat: failed*",
            "*failed get HTTP 200*",
            "*$response.body#/kind == 'cat': got 'dog'*",
        ]
    )


def test_inputs_from_a_conftest_fixture_per_workflow(project: pytest.Pytester) -> None:
    project.makeconftest(
        CONFTEST
        + textwrap.dedent(
            """
            @pytest.fixture
            def arazzo_inputs(request):
                return {"id": 3} if request.node.workflow_id == "pet-exists" else {"id": "x"}
            """
        )
    )
    result = project.runpytest("-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*invalid inputs for workflow 'pet-is-a-cat'*"])


def test_inputs_and_servers_from_ini(project: pytest.Pytester) -> None:
    project.makeini('[pytest]\narazzo_inputs = {"id": 5}\n')
    result = project.runpytest("-v", "-k", "pet-exists")
    result.assert_outcomes(passed=1, deselected=1)


def test_a_broken_document_is_a_collection_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "broken.arazzo.yaml").write_text("arazzo: 1.0.1\ninfo: {title: t\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*broken.arazzo.yaml:*"])


def test_failure_reports_are_masked(project: pytest.Pytester) -> None:
    (project.path / "secret.arazzo.yaml").write_text(
        ARAZZO.replace("pet-exists", "secret-login").replace(
            "required: [id], properties: {id: {type: integer}}",
            "required: [id], properties: {id: {type: integer}, "
            "password: {type: string, format: password, maxLength: 3}}",
        )
    )
    result = project.runpytest(
        "-v", "-k", "secret-login", "--arazzo-input", "id=7", "--arazzo-input", "password=letmein-123"
    )
    result.assert_outcomes(failed=1, deselected=3)
    result.stdout.fnmatch_lines(['*"***" is too long*'])
    assert "letmein-123" not in result.stdout.str()


@pytest.fixture
def elsewhere(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """project/workflows/ (the document, reading ../openapi/) and project/openapi/; pytest starts in run/."""
    project = pytester.path / "project"
    (project / "workflows").mkdir(parents=True)
    (project / "openapi").mkdir()
    (project / "openapi/pets.openapi.yaml").write_text(OPENAPI)
    text = ARAZZO.replace("./pets.openapi.yaml", "../openapi/pets.openapi.yaml")
    (project / "workflows/checks.arazzo.yaml").write_text(text)
    (project / "workflows/conftest.py").write_text(CONFTEST)
    monkeypatch.chdir(pytester.mkdir("run"))
    return project


def test_a_document_in_another_folder_reads_its_sources(pytester: pytest.Pytester, elsewhere: Path) -> None:
    result = pytester.runpytest(elsewhere / "workflows", "-v", "-k", "pet-exists", "--arazzo-input", "id=7")
    result.assert_outcomes(passed=1, deselected=1)


def test_the_sandbox_option_refuses_reads_outside_it(pytester: pytest.Pytester, elsewhere: Path) -> None:
    argv = [elsewhere / "workflows", "-k", "pet-exists", "--arazzo-input", "id=7"]
    refused = pytester.runpytest(*argv, "--arazzo-sandbox", "../project/workflows")  # from run/
    refused.assert_outcomes(failed=1, deselected=1)
    outside = f"{elsewhere / 'openapi/pets.openapi.yaml'} is outside the sandbox ({elsewhere / 'workflows'})"
    refused.stdout.fnmatch_lines([f"*{outside}*"])

    wider = ["--arazzo-sandbox", "../project/workflows", "--arazzo-sandbox", str(elsewhere / "openapi")]
    pytester.runpytest(*argv, *wider).assert_outcomes(passed=1, deselected=1)

    missing = pytester.runpytest(*argv, "--arazzo-sandbox", "nowhere")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines([f"*arazzo sandbox: {Path.cwd() / 'nowhere'} is not an existing folder*"])


def test_the_sandbox_ini_option_is_relative_to_the_ini_file(
    pytester: pytest.Pytester, elsewhere: Path
) -> None:
    argv = [elsewhere / "workflows", "-k", "pet-exists", "--arazzo-input", "id=7"]
    (elsewhere / "pytest.ini").write_text("[pytest]\narazzo_sandbox = workflows\n")
    refused = pytester.runpytest(*argv)
    refused.assert_outcomes(failed=1, deselected=1)
    refused.stdout.fnmatch_lines(["*is outside the sandbox*"])

    (elsewhere / "pytest.ini").write_text("[pytest]\narazzo_sandbox =\n    workflows\n    openapi\n")
    pytester.runpytest(*argv).assert_outcomes(passed=1, deselected=1)


TWO_NAMES = """\
arazzo: 1.0.1
info: {title: checks, version: '1'}
sourceDescriptions: [{name: pets, url: ./pets.openapi.yaml, type: openapi}]
workflows:
  - workflowId: by-id
    inputs: {type: object, required: [id], properties: {id: {type: integer}}}
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: id, in: path, value: $inputs.id}]
        successCriteria: [{condition: $response.body#/id == 7}]
  - workflowId: by-pet-id
    inputs: {type: object, required: [petId], properties: {petId: {type: integer}}}
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: id, in: path, value: $inputs.petId}]
        successCriteria: [{condition: $response.body#/id == 8}]
"""


def test_shared_inputs_reach_each_workflow_as_far_as_it_declares_them(project: pytest.Pytester) -> None:
    # `run` refuses an input its workflow does not declare; the plugin's inputs serve every workflow, so
    # each one receives the names it declares.
    (project.path / "checks.arazzo.yaml").write_text(TWO_NAMES)
    result = project.runpytest("-v", "--arazzo-input", "id=7", "--arazzo-input", "petId=8")
    result.assert_outcomes(passed=2)


def test_a_workflow_that_cannot_run_fails_its_item_and_the_others_run(project: pytest.Pytester) -> None:
    """Issue 22: a workflow that cannot run with one meaning fails its own test with its findings; the
    document's other workflows are tested as ever."""
    broken = """\
  - workflowId: broken
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: id, in: path, value: 7}]
        outputs: {kind: $respons.body#/kind}
"""
    (project.path / "checks.arazzo.yaml").write_text(ARAZZO + broken)
    result = project.runpytest("-v", "--arazzo-input", "id=7")
    result.assert_outcomes(passed=1, failed=2)  # pet-is-a-cat fails on its own criterion, as ever
    result.stdout.fnmatch_lines(
        [
            "*checks.arazzo.yaml::pet-exists PASSED*",
            "*checks.arazzo.yaml::broken FAILED*",
            "*no selected workflow can run with one meaning ('broken')",
            "workflow 'broken' cannot run:",
            "*checks.arazzo.yaml:*: output-value: output 'kind' is not a runtime expression*",
        ]
    )
