"""`--chat URL --model M`: a chat model proposes multi-step business flows over the description.

The model is sent the operations (ids, methods, paths, summaries, parameters, body and response members)
and the workflows already generated, and offered one function tool, `propose_workflow`, whose parameters
are an Arazzo workflow; each call is one proposal (a JSON or YAML block in a text answer is read too).
One exchange, through the agent loop's chat client (`llm/chat.py`: pooled client, bounded body, streamed
answers merged, the API key masked in every message).

Each proposal is repaired (`repair.py`; one with a step that sends its request elsewhere is dropped:
`confine.py`) and joins the document; `check.py` then validates everything
and drops, with the validator's own words as the reason, a proposal that is still invalid. Nothing the
model says is run or evaluated: it is data, read by the project's loader.
"""

from __future__ import annotations

import re
from typing import Any

from .check import Dropped

TOOL = "propose_workflow"
MAX_PROPOSALS = 20
MAX_OPERATIONS = 300  # in the prompt; a larger description is cut, and the prompt says so
_FENCE = re.compile(r"```(?:json|yaml|yml)?\s*\n(.*?)```", re.S)

SYSTEM = (
    "You design Arazzo workflows: multi-step business flows over an HTTP API described by OpenAPI. "
    f"Call {TOOL} once per workflow you propose (at most 5). Each step calls one of the listed operations "
    "by its operationId (never a URL of its own: a step with x-operation is dropped); pass values "
    "with runtime expressions: `$inputs.<name>` for a workflow input, "
    "`$steps.<stepId>.outputs.<name>` for an output of an earlier step, and in a step's outputs "
    "`$response.body#/<json pointer>`. Declare every input in `inputs` (a JSON Schema object). Do not "
    "pass credentials: the engine applies the API's security schemes itself. Propose flows that "
    "chain operations, not single calls: one workflow per operation exists already."
)


def workflow_schema() -> dict[str, Any]:
    """The parameters of the `propose_workflow` tool: an Arazzo workflow (a new object each time)."""
    text = {"type": "string"}
    return {
        "type": "object",
        "required": ["workflowId", "steps"],
        "properties": {
            "workflowId": {"type": "string", "description": "letters, digits, '-' and '_'"},
            "summary": text,
            "description": text,
            "inputs": {"type": "object", "description": "JSON Schema: type object, with properties"},
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["stepId", "operationId"],
                    "properties": {
                        "stepId": text,
                        "operationId": text,
                        "description": text,
                        "parameters": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["name", "in", "value"],
                                "properties": {
                                    "name": text,
                                    "in": {"type": "string", "enum": ["path", "query", "header", "cookie"]},
                                    "value": {},
                                },
                            },
                        },
                        "requestBody": {
                            "type": "object",
                            "properties": {"contentType": text, "payload": {}},
                        },
                        "successCriteria": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"condition": text}},
                        },
                        "outputs": {"type": "object", "additionalProperties": text},
                    },
                },
            },
            "outputs": {"type": "object", "additionalProperties": text},
        },
    }


def propose(draft: Any, settings: Any, file: str) -> list[Dropped]:
    """Ask the model; each proposal repaired and added to `draft` (origin "model"). What cannot even be
    read as a workflow is returned as dropped; a chat API failure is a note (the document is still
    generated without proposals)."""
    from ..agents.chat import ChatError
    from .repair import repair

    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": catalog(draft)}]
    tool = {
        "type": "function",
        "function": {
            "name": TOOL,
            "description": "Propose one Arazzo workflow.",
            "parameters": workflow_schema(),
        },
    }
    retried: list[dict[str, Any]] = []
    try:
        completion = _run(_complete(settings, messages, [tool], retried))
    except ChatError as exc:
        draft.notes.append(f"no proposals: {exc}")
        return []
    finally:
        draft.notes.extend(
            f"the chat API was asked again after attempt {r['attempt']} failed ({r['cause']}; waited "
            f"{r['waitedSeconds']:g} s)"
            for r in retried
        )
    dropped = []
    proposals, unreadable = read_proposals(completion)
    for index, unread in unreadable:
        dropped.append(Dropped(f"proposal-{index + 1}", "model", unread))
    said = f"proposed by the model {settings.model}"
    for index, proposal in enumerate(proposals[:MAX_PROPOSALS]):
        workflow, notes, why = repair(draft, proposal)
        if workflow is None:
            dropped.append(Dropped(_name(proposal, index), "model", why or "not a workflow"))
            continue
        comment = said + (f"; repaired: {'; '.join(notes)}" if notes else "")
        draft.add(workflow, "model", [comment])
    if len(proposals) > MAX_PROPOSALS:
        draft.notes.append(f"the model made {len(proposals)} proposals; the first {MAX_PROPOSALS} were read")
    if any(origin == "model" for origin in draft.origin.values()):
        _validator_fixes(draft, file)
    return dropped


def _validator_fixes(draft: Any, file: str) -> None:
    """`arazzo validate --fix` over the document with the proposals in it: the fixes the validator's
    findings carry (dialect forms, accessors, bare expressions...) applied to the proposals."""
    from ..loader import load_text
    from ..validate import validate_loaded
    from ..validate.fix import fix_text
    from .emit import emit

    fixed = fix_text(emit(draft.data()), file, lambda loaded: validate_loaded(loaded, file))
    if not fixed.changed:
        return
    rewritten = load_text(fixed.after, file).data["workflows"]
    for index, workflow in enumerate(draft.workflows):
        workflow_id = workflow["workflowId"]
        if draft.origin.get(workflow_id) != "model":
            continue
        draft.workflows[index] = rewritten[index]
        prefix = f"/workflows/{index}/"
        said = [f"{f.rule} ({f.message})" for f in fixed.fixed if f.path.startswith(prefix)]
        if said and workflow_id in draft.comments:
            draft.comments[workflow_id][-1] += "; fixed by the validator: " + "; ".join(said)


def _run(coroutine: Any) -> Any:
    """The exchange from synchronous code (`generate` is synchronous); inside a running event loop, a
    usage error rather than asyncio's."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    from ..errors import UsageError

    raise UsageError("generate(chat=...) was called inside a running event loop; call it from a thread")


async def _complete(
    settings: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]], retried: list[Any]
) -> Any:
    from ..agents.chat import ChatClient
    from ..bounds.limits import DEFAULT_MAX_BODY
    from ..http.transport import new_client
    from ..masking.secrets import Masker

    client = new_client(settings.timeout)
    try:
        chat = ChatClient(
            settings.url, settings.api_key, settings.model, client=client, masker=Masker({settings.api_key}),
            stream=settings.stream, timeout=settings.timeout, max_body=DEFAULT_MAX_BODY,
            retries=settings.retries, exchange_timeout=settings.exchange_timeout,
        )  # fmt: skip
        try:
            return await chat.complete(messages, tools)
        finally:
            retried.extend(chat.retried)
    finally:
        await client.aclose()


def read_proposals(completion: Any) -> tuple[list[Any], list[tuple[int, str]]]:
    """The workflow objects of the answer: each `propose_workflow` call's arguments, then the JSON or
    YAML blocks of its text. Also (index, why) for each call whose arguments are not an object.

    Both are read as JSON from outside is (`bounds/json_text.py`): at most `MAX_BODY_DEPTH` levels, a
    lone surrogate as U+FFFD (a block is read as a document, at most as deep: one the loader refuses,
    too deep or holding a lone surrogate, is skipped), so the repair's copies and walks of a proposal
    stay far from the recursion limit."""
    from ..bounds import json_text
    from ..bounds.limits import MAX_BODY_DEPTH
    from ..errors import ArazzoError
    from ..loader import load_text
    from ..loader.limits import Limits

    found: list[Any] = []
    unreadable = []
    for index, call in enumerate(completion.tool_calls):
        try:
            arguments = json_text.loads(call.arguments) if call.arguments else None
        except json_text.TooDeep as exc:
            unreadable.append(
                (
                    index,
                    f"the arguments of {call.name} were not read: they nest deeper than {exc.limit} levels",
                )
            )
            continue
        except ValueError as exc:
            unreadable.append((index, f"the arguments of {call.name} are not JSON: {exc}"))
            continue
        found.extend(_workflows_in(arguments))
    for block in _FENCE.findall(completion.content or ""):
        try:
            loaded = load_text(block, "<model answer>", limits=Limits(max_depth=MAX_BODY_DEPTH))
            found.extend(_workflows_in(loaded.data))
        except ArazzoError:
            continue  # a block of another kind (an example request, prose)
    return found, unreadable


def _workflows_in(data: Any) -> list[Any]:
    if isinstance(data, dict) and isinstance(data.get("workflows"), list):
        return list(data["workflows"])
    if isinstance(data, dict) and isinstance(data.get("workflow"), dict):
        return [data["workflow"]]
    if isinstance(data, list):
        return list(data)
    return [data] if data is not None else []


def _name(proposal: Any, index: int) -> str:
    """How a dropped proposal is named: its workflowId fitted (and cut), else its place."""
    from .names import fit_id

    name = proposal.get("workflowId") if isinstance(proposal, dict) else None
    fallback = f"proposal-{index + 1}"
    return fit_id(name, fallback)[:60] if isinstance(name, str) else fallback


def catalog(draft: Any) -> str:
    """What the model is told: the API's operations, and the workflows that exist."""
    lines = ["The API's operations (operationId: METHOD path - summary):"]
    for plan in draft.plans[:MAX_OPERATIONS]:
        operation = plan.operation
        head = f"- {plan.label}: {plan.method.upper()} {plan.path}"
        if operation.summary:
            head += f" - {operation.summary.strip()}"
        lines.append(head)
        params = [
            f"{s.target[2]} ({s.target[1]}{', required' if s.required else ''})"
            for s in plan.inputs
            if s.target[0] == "param"
        ]
        if params:
            lines.append(f"    parameters: {', '.join(params)}")
        body = [s.target[1] + ("*" if s.required else "") for s in plan.inputs if len(s.target) == 2]
        if body:
            lines.append(f"    request body ({plan.content_type}): {', '.join(body)} (* required)")
        elif plan.body == "whole":
            lines.append(f"    request body ({plan.content_type}): one value")
        if plan.outputs:
            answered = ", ".join(f"{name} ({value})" for name, value in plan.outputs.items())
            lines.append(f"    answers {plan.success or '2xx'}: {answered}")
    if len(draft.plans) > MAX_OPERATIONS:
        lines.append(f"(and {len(draft.plans) - MAX_OPERATIONS} more operations, not listed)")
    chains = [w["workflowId"] for w in draft.workflows if draft.origin.get(w["workflowId"]) == "chain"]
    if chains:
        lines.append("Chained workflows that exist already: " + ", ".join(chains))
    lines.append("Propose the business flows a user of this API would run, as workflows.")
    return "\n".join(lines)
