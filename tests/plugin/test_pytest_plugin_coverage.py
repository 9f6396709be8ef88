"""The pytest plugin's API coverage (`--arazzo-coverage`, `--arazzo-min-coverage`, ini keys
`arazzo_coverage` and `arazzo_min_coverage`), against the real drifting server (`tests/servers/
drifting.py`, nine operations): the table in the terminal summary, and a session whose tests all pass
failing (exit 1) below the minimum, the figure said with what was missed."""

from __future__ import annotations

import pytest

from tests.plugin.drift_project import drift_project

pytest_plugins = ["pytester"]

ARAZZO = """\
arazzo: 1.1.0
info: {title: drift, version: '1'}
sourceDescriptions: [{name: api, url: ./api.openapi.yaml, type: openapi}]
workflows:
  - workflowId: fine
    steps:
      - {stepId: fine, operationId: fine}
  - workflowId: nested
    steps:
      - {stepId: nested, operationId: nested}
"""

TOTALS = "*operations 2/9 (22.2%), statuses 2/9 (22.2%), parameters -, body properties -"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    return drift_project(pytester, ARAZZO)


def test_the_option_prints_the_table_of_the_session(project: pytest.Pytester) -> None:
    without = project.runpytest("--arazzo-contract", "off")
    without.assert_outcomes(passed=2)
    assert "API coverage" not in without.stdout.str()
    result = project.runpytest("--arazzo-coverage", "--arazzo-contract", "off")
    result.assert_outcomes(passed=2)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*arazzo API coverage*",
            "  api (./api.openapi.yaml)",
            "*GET /bird*bird*0*0/1*",
            "*GET /fine*fine*1*1/1*",
            "*GET /nested*nested*1*1/1*",
            "*GET /wrong-type*wrongType*0*0/1*",
            TOTALS,
        ]
    )


def test_the_ini_key_and_the_minimum_fail_a_passing_session(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\narazzo_coverage = true\n")
    shown = project.runpytest("--arazzo-contract", "off")
    shown.stdout.fnmatch_lines([TOTALS])
    assert shown.ret == 0
    below = project.runpytest("--arazzo-contract", "off", "--arazzo-min-coverage", "ops:30")
    below.assert_outcomes(passed=2)
    assert below.ret == 1
    below.stdout.fnmatch_lines(
        [
            "coverage: operations 2/9 (22.2%) is below the minimum of 30%; missed: GET /bird, GET /limited, "
            "GET /nullable, GET /pet, GET /undocumented, GET /user, GET /wrong-type"
        ]
    )
    project.makeini("[pytest]\narazzo_min_coverage = 20\n")  # implies the table
    above = project.runpytest("--arazzo-contract", "off")
    assert above.ret == 0
    above.stdout.fnmatch_lines([TOTALS])


def test_a_malformed_minimum_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--arazzo-min-coverage", "ops:most")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'most' is not a percentage from 0 to 100*"])
