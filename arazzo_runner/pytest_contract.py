"""The pytest plugin's contract checks (`docs/testing.md`): `--arazzo-contract warn|fail|off` and the ini
option `arazzo_contract` (default warn), read once a session; under warn each violation of a workflow
that passed is a `ContractWarning` in pytest's warnings summary (under fail the run's step fails, so the
test does: nothing to add here)."""

from __future__ import annotations

from typing import Any

import pytest

CONTRACT = pytest.StashKey[str]()


def add_options(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--arazzo-contract",
        default=None,
        metavar="warn|fail|off",
        help="contract checks of every response against its OpenAPI description, as `arazzo run "
        "--contract` (default warn: each violation a pytest warning; fail: it fails the step)",
    )
    parser.addini("arazzo_contract", "contract checks of responses: warn (default), fail or off")


def contract_mode(config: pytest.Config) -> str:
    """`--arazzo-contract`, else the ini's `arazzo_contract`, else warn; another word is a usage error."""
    from .http.contract import DEFAULT_MODE, MODES

    given = config.getoption("arazzo_contract")
    text = (given if given is not None else config.getini("arazzo_contract") or DEFAULT_MODE).strip()
    if text not in MODES:
        raise pytest.UsageError(f"arazzo contract: {text!r} is not one of {', '.join(MODES)}")
    return text


class ContractWarning(UserWarning):
    """A response that departs from its OpenAPI description, in a workflow that passed (`warn` mode):
    listed in pytest's warnings summary (`-W error::arazzo_runner.pytest_plugin.ContractWarning` makes
    it fail the test; the plugin's module re-exports the class under that name)."""


def warn_contract(result: dict[str, Any]) -> None:
    """A `ContractWarning` per contract line of the (masked) result's steps, escaped for the terminal."""
    import warnings

    from .report.terminal import escape

    for workflow in result["workflows"]:
        for step in workflow.get("steps") or ():
            for line in step.get("warnings") or ():
                if str(line).startswith("contract: "):
                    warnings.warn(ContractWarning(escape(str(line))), stacklevel=2)
