"""The load test's fast lane and httpx, request for request (`fast_lane_diff.py`, in a child process:
Locust patches the process that imports it): random methods, paths, headers, bodies and server answers
or failures, then the cases a mutation round showed the suite did not pin down."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.e2e.helpers import ROOT
from tests.timeouts import long_test


@pytest.fixture(scope="module")
def checks() -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "tests.e2e.fast_lane_diff"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@long_test
@pytest.mark.parametrize(
    "check",
    [
        "defaults_a_step_sets_are_sent_once",  # Accept, User-Agent, ... set by a step: one line each
        "patch_without_body",  # `Content-Length: 0`, as httpx sends it
        "dot_segments",  # `/a/./b/../c` is sent as httpx sends it (`/a/c`)
        "utf8_response_header",  # read as httpx reads it: utf-8, else latin-1
        "connection_refused",
        "connect_timeout",  # reported as a connect timeout, not as a refused connection
        "a_body_after_a_bodiless_answer",  # a 204 or 304 followed by a body: read without it
        "property",
    ],
)
def test_the_fast_lane_sends_and_reads_as_httpx(checks: dict[str, Any], check: str) -> None:
    assert check in checks
    assert checks[check] is None, checks[check]
