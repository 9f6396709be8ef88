"""The pytest plugin's `--arazzo-parallel N` and ini key `arazzo_parallel` (issue 36): a workflow's
independent steps are sent side by side. The server answers each GET only once two are in flight (or
after 30 s, with a 503): a run that sends one at a time fails."""

from __future__ import annotations

import pytest

from tests.plugin.test_pytest_plugin import OPENAPI

pytest_plugins = ["pytester"]

ARAZZO = """\
arazzo: 1.1.0
info: {title: pair, version: '1'}
sourceDescriptions: [{name: pets, url: ./pets.openapi.yaml, type: openapi}]
workflows:
  - workflowId: pair
    steps:
      - {stepId: one, operationId: getPet, parameters: [{name: id, in: path, value: 1}],
         successCriteria: [{condition: $statusCode == 200}]}
      - {stepId: two, operationId: getPet, parameters: [{name: id, in: path, value: 2}],
         successCriteria: [{condition: $statusCode == 200}]}
"""

CONFTEST = """\
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

BARRIER = threading.Barrier(2, timeout=30)


class Pets(BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            BARRIER.wait()
            status = 200
        except threading.BrokenBarrierError:
            BARRIER.reset()
            status = 503
        body = json.dumps({"id": int(self.path.rsplit("/", 1)[1])}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def pets_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pets)
    server.daemon_threads = True
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
    (pytester.path / "pair.arazzo.yaml").write_text(ARAZZO)
    pytester.makeconftest(CONFTEST)
    return pytester


def test_the_option_sends_independent_steps_side_by_side(project: pytest.Pytester) -> None:
    result = project.runpytest("-v", "--arazzo-parallel", "2")
    result.assert_outcomes(passed=1)


def test_the_ini_key_does_too(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\narazzo_parallel = 2\n")
    result = project.runpytest("-v")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("value", ["0", "two"])
def test_a_value_that_is_not_a_whole_number_of_at_least_1_is_a_usage_error(project, value) -> None:
    project.makeini(f"[pytest]\narazzo_parallel = {value}\n")
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*arazzo parallel: '{value}' is not a whole number of at least 1*"])
