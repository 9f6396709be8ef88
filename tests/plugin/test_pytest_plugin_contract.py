"""The pytest plugin's contract checks (`--arazzo-contract`, ini key `arazzo_contract`), against the real
drifting server (`tests/servers/drifting.py`): warn (the default) passes the test with a ContractWarning
per violation in pytest's warnings summary, fail fails it with the violation, off says nothing; the ini
key sets the mode, the option wins over it."""

from __future__ import annotations

import pytest

from tests.plugin.drift_project import drift_project

pytest_plugins = ["pytester"]

ARAZZO = """\
arazzo: 1.1.0
info: {title: drift, version: '1'}
sourceDescriptions: [{name: api, url: ./api.openapi.yaml, type: openapi}]
workflows:
  - workflowId: nested
    steps:
      - {stepId: nested, operationId: nested}
"""

VIOLATION = 'response 200 application/json: body /order/lines/1/qty: wanted type integer, got string "two"'


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return drift_project(pytester, ARAZZO)


def test_warn_is_the_default_a_warning_per_violation(project: pytest.Pytester) -> None:
    result = project.runpytest("-v")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*ContractWarning: contract: step 'nested' (*drift.arazzo.yaml:7): " + VIOLATION]
    )


def test_fail_fails_the_test_with_the_violation(project: pytest.Pytester) -> None:
    result = project.runpytest("-v", "--arazzo-contract", "fail")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*HTTP 200: contract violated: " + VIOLATION])


def test_the_ini_key_sets_the_mode_and_the_option_wins(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\narazzo_contract = fail\n")
    result = project.runpytest("-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*HTTP 200: contract violated: " + VIOLATION])
    result = project.runpytest("-v", "--arazzo-contract", "off")
    result.assert_outcomes(passed=1)
    assert "ContractWarning" not in result.stdout.str()


def test_another_word_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--arazzo-contract", "loud")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*arazzo contract: 'loud' is not one of warn, fail, off*"])
