"""What a model's proposal may not send: a request to a URL of the model's choosing, credentials of its
choosing, or parameters no operation it calls declares. A proposal may call only the descriptions'
operations, with their parameters; the engine applies the descriptions' security schemes itself.

A step with Respect's `x-operation` (which `arazzo run` runs: its method and URL instead of an operation)
drops the proposal with the reason (`docs/generate.md`, *Proposals of a model*); `x-security` and a
workflow parameter that not every operation declares are left out, each said in the workflow's comment.
"""

from __future__ import annotations

from typing import Any

from ..http.x_security import XSECURITY
from ..masking.secrets import clip, mask_userinfo
from ..sources.x_operation import XOPERATION


def sends_elsewhere(steps: list[dict[str, Any]]) -> str | None:
    """Why a proposal cannot be kept when one of its steps sends its request to a URL of the model's
    choosing (Respect's `x-operation`, which `arazzo run` runs): a proposal may call only the operations
    of the descriptions, where the user's inputs and the API's answers are meant to go. No repair
    keeps the step's meaning, and dropping the step alone would change the flow, so the proposal goes."""
    for step in steps:
        if XOPERATION not in step:
            continue
        target = step[XOPERATION]
        said = "a URL of its own"
        if isinstance(target, dict) and "url" in target:  # shown as URLs are (userinfo masked, clipped);
            url = clip(mask_userinfo(str(target["url"])), 200)  # repr: control characters inert
            said = f"{str(target.get('method', '')).upper()[:20]} {url!r}".lstrip()
        name = str(step.get("stepId") or "?")[:60]
        return (
            f"step {name!r} calls {said} through {XOPERATION}: a proposal may call only the "
            "descriptions' operations"
        )
    return None


def without_x_security(node: dict[str, Any], notes: list[str], where: str) -> None:
    """Respect's `x-security` chooses the credentials sent with a request; the engine applies the
    descriptions' own security schemes (as a credential parameter is left out, so is this)."""
    if XSECURITY in node:
        del node[XSECURITY]
        notes.append(f"{where}: {XSECURITY} left out (the engine applies the descriptions' security schemes)")


def shared_parameters(workflow: dict[str, Any], plans: dict[str, Any], notes: list[str], need: Any) -> None:
    """The workflow's own `parameters` are sent with every step: one with `in` goes to every
    operation the workflow calls, so it is kept only when each of them has that parameter (a credential
    never is one: the engine sets it), else the model would send a header, query or path value no
    operation declares (`Host` included). One without `in` is for the steps that call workflows, and
    kept. `need(value, spec)` types the input a kept parameter reads like the parameter."""
    given = workflow.get("parameters")
    if given is None:
        return
    kept = []
    for item in given if isinstance(given, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            notes.append("a workflow parameter without a name left out")
            continue
        where, name = item.get("in"), item["name"]
        specs = {step_id: _declared(plan, where, name) for step_id, plan in plans.items()}
        missing = [step_id for step_id, spec in specs.items() if spec is None]
        if where is not None and missing:
            notes.append(
                f"workflow parameter {name!r} ({where}) left out (not a parameter of the operation of step "
                f"{missing[0]!r}; the engine sends a workflow's parameters with each of its steps)"
            )
            continue
        kept.append(item)
        for spec in specs.values():
            if spec is not None:  # (one without `in` fills no operation's parameter)
                need(item.get("value"), spec)
    if not isinstance(given, list):
        notes.append("workflow parameters that are not a list left out")
    if kept:
        workflow["parameters"] = kept
    else:
        workflow.pop("parameters", None)


def _declared(plan: Any, where: Any, name: str) -> Any:
    """The operation's input spec of parameter `name` in `where`, or None."""
    return next((s for s in plan.inputs if s.target[0] == "param" and s.target[1:] == (where, name)), None)
