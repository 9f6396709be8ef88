"""The contract checks of a step's response (`http/contract.py`), as the step sees them: the mode of the
run, a warning per violation naming the step and where it is written, or the step's failure, and the
violations on the exchange for the reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import SourceError
from ...http.contract import check, mode_of

if TYPE_CHECKING:
    from ...http.exchange import Exchange
    from ...http.security import HttpSession
    from ...http.transport import Response
    from ...workspace.plan import CompiledStep
    from .base import Host


def check_contract(
    host: Host,
    session: HttpSession,
    target: Any,
    exchange: Exchange,
    response: Response,
    warnings: list[str],
    step: tuple[CompiledStep, Any],
) -> str | None:
    """The contract checks of a response (`http/contract.py`): each violation is a warning naming the
    step and where it is written (`warn`), or the step's failure (`fail`); recorded on the exchange for
    the reports either way. A body not read whole is not checked, and said so when one is documented."""
    mode = mode_of(host.options)
    if mode == "off" or response.error or target.source is None:  # an x-operation has no description
        return None
    try:
        if response.oversize:
            if _documents_bodies(target.operation):
                warnings.append(
                    f"contract: {_where(*step)}: not checked, the response body was not read whole"
                )
            return None
        violations = check(session.validators, target.description, target.operation, response)
    except SourceError as exc:  # the description's responses cannot be read: its fault, not the server's
        warnings.append(
            f"contract: {_where(*step)}: not checked, the operation's responses cannot be read: {exc}"
        )
        return None
    if not violations:
        return None
    from ...http.validation import redact

    lines = [redact(v.text(), session.secrets) for v in violations]
    exchange.contract = [
        {**v.to_dict(), "wanted": redact(v.wanted, session.secrets), "got": redact(v.got, session.secrets)}
        for v in violations
    ]
    if mode == "fail":  # the step's error says them (each is on the exchange too)
        return "contract violated: " + "; ".join(lines)
    where = _where(*step)
    warnings.extend(f"contract: {where}: {line}" for line in lines)
    return None


def _documents_bodies(operation: Any) -> bool:
    responses = operation.responses or {}
    return any(isinstance(r, dict) and r.get("content") for r in responses.values())


def _where(cstep: CompiledStep, workspace: Any) -> str:
    """`step 'id' (file:line)`: where a contract violation's step is written."""
    try:
        line, _ = workspace.loaded.positions.locate(cstep.step.at)
        return f"step '{cstep.step_id}' ({workspace.file}:{line})"
    except Exception:  # a workspace without positions (built in code): the step's id alone
        return f"step '{cstep.step_id}'"
