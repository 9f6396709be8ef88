"""The pytest plugin's API coverage (`--arazzo-coverage`, `--arazzo-min-coverage`, the ini options
`arazzo_coverage` and `arazzo_min_coverage`): each workflow's run kept with its document, the coverage of
the session merged over the collected documents at its end (`report/coverage.py`), printed in the
terminal summary, the session failed below the minimum (exit 1, as `arazzo run --min-coverage`). Its
hooks are the plugin's (`pytest_plugin` re-exports them)."""

from __future__ import annotations

from typing import Any

import pytest

# the state of the session: on, the minimum (None: no minimum), each run's (workspace, result), the
# collected documents, the section once made
COVERAGE = pytest.StashKey[dict[str, Any]]()


def add_options(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--arazzo-coverage",
        action="store_true",
        default=None,
        help="print the API coverage of the workflows run: operations called, statuses seen, parameters "
        "and body properties sent, per source description",
    )
    group.addoption(
        "--arazzo-min-coverage",
        metavar="PCT",
        help="fail the session below this API coverage: PCT (operations) or ops:80,status:60; implies "
        "--arazzo-coverage",
    )
    parser.addini("arazzo_coverage", "print the API coverage of the session (true/false)", type="bool")
    parser.addini("arazzo_min_coverage", "fail the session below this API coverage: PCT or ops:80,status:60")


def record(config: pytest.Config, workspace: Any, result: Any) -> None:
    """A workflow's run, kept with its document for the session's coverage (when it is counted)."""
    state = config.stash[COVERAGE]
    if state["on"]:
        state["runs"].append((workspace, result))


def coverage_state(config: pytest.Config) -> dict[str, Any]:
    """Whether the session counts API coverage, and its minimum (a usage error when malformed)."""
    from .errors import UsageError
    from .report.coverage_text import parse_minimum

    given = config.getoption("arazzo_min_coverage") or config.getini("arazzo_min_coverage") or None
    try:
        minimum = parse_minimum(given) if given else None
    except UsageError as exc:
        raise pytest.UsageError(f"arazzo min coverage: {exc}") from None
    wanted = config.getoption("arazzo_coverage")
    wanted = config.getini("arazzo_coverage") if wanted is None else wanted
    return {
        "on": bool(wanted) or minimum is not None,
        "minimum": minimum,
        "runs": [],
        "section": None,
        "workspaces": [],
    }


def _session_coverage(config: pytest.Config) -> dict[str, Any] | None:
    """The coverage section of the session's runs, merged over the collected documents (a document whose
    workflows did not run still has operations to count); made once, None when not asked for."""
    state = config.stash.get(COVERAGE, None)
    if not state or not state["on"]:
        return None
    if state["section"] is None:
        from .report.coverage import coverage, merge

        groups: dict[int, tuple[Any, list[Any]]] = {}
        for workspace, result in state["runs"]:
            groups.setdefault(id(workspace), (workspace, []))[1].append(result)
        for workspace in state["workspaces"]:
            groups.setdefault(id(workspace), (workspace, []))
        state["section"] = merge(coverage(workspace, results) for workspace, results in groups.values())
    return state["section"]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Below `--arazzo-min-coverage`, the session fails (exit 1) even when every test passed."""
    section = _session_coverage(session.config)
    minimum = session.config.stash[COVERAGE]["minimum"]
    if section is None or not minimum or exitstatus != 0:
        return
    from .report.coverage_text import below

    if below(section, minimum):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The table (`arazzo run --coverage`'s), then each figure below the minimum with what was missed."""
    section = _session_coverage(config)
    if section is None:
        return
    from .report.coverage_text import below, table

    terminalreporter.section("arazzo API coverage")
    for line in table(section)[1:]:
        terminalreporter.write_line(line)
    minimum = config.stash[COVERAGE]["minimum"]
    for line in below(section, minimum) if minimum else []:
        terminalreporter.write_line(line, red=True)
