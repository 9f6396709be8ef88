"""The AsyncAPI target of a step: which source, operation and channel, and which side the step plays.

A step names an AsyncAPI operation by `operationId` (plain, or `$sourceDescriptions.<name>.<id>`) or a
channel by `channelPath` (`{$sourceDescriptions.<name>.url}#/channels/<key>`, also without the braces or
`.url`, as `operationPath` is read). AsyncAPI operations are written from the described application's
side: a step's `action` may be the same as the operation's or the opposite, and neither is an error.

Which channel a step uses (docs/semantics.md, "AsyncAPI steps"): the operation's, except when the
operation has a `reply` and the step's action equals the operation's: then the step is on the reply's
side (an application that receives requests sends replies, which the workflow receives), so it uses
the reply's channel and messages.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import TargetError
from ..records import Record

if TYPE_CHECKING:
    from ..model import Step

_SOURCE_REF = re.compile(r"^\$sourceDescriptions\.([A-Za-z0-9_\-]+)\.(.+)$")
_CHANNEL_PATH = re.compile(
    r"^(?:\{\$sourceDescriptions\.(?P<braced>[A-Za-z0-9_\-]+)\.url\}"
    r"|\$sourceDescriptions\.(?P<url>[A-Za-z0-9_\-]+)\.url"
    r"|\$sourceDescriptions\.(?P<source>[A-Za-z0-9_\-]+))(?P<fragment>#.*)$"
)


class MessageTarget(Record, frozen=True):
    source: str
    description: Any  # sources.asyncapi.AsyncAPIDescription
    operation: Any  # AsyncOperation, or None for a channelPath step
    channel: Any  # AsyncChannel the step sends to or receives from
    messages: list  # AsyncMessage the step may send or expect
    action: str  # the step's: send | receive
    on_reply: bool = False  # the step uses the operation's reply channel


def channel_path_parts(text: str) -> tuple[str, str, bool] | None:
    """(source name, `#fragment`, standard form) of a channelPath, or None when it names no source."""
    match = _CHANNEL_PATH.match(text)
    if match is None:
        return None
    name = match.group("braced") or match.group("url") or match.group("source")
    return name, match.group("fragment"), match.group("source") is None


def resolve_message(workspace: Any, step: Step) -> MessageTarget:
    """The AsyncAPI target of an `asyncapi` step; a located TargetError when there is none."""
    action = step.action
    if action not in ("send", "receive"):
        where = (*step.at, "action")
        raise workspace.error(where, "an AsyncAPI step needs action: send or receive", TargetError)
    if step.channel_path is not None:
        return _by_channel(workspace, step, action)
    source, description, operation = find_operation(
        workspace, step.operation_id or "", (*step.at, "operationId")
    )
    on_reply = operation.reply is not None and operation.action == action
    if on_reply:
        channel = operation.reply.channel or operation.channel
        messages = operation.reply.messages or channel.messages
    else:
        channel = operation.channel
        messages = operation.messages or channel.messages
    return MessageTarget(source, description, operation, channel, list(messages), action, on_reply)


def find_operation(workspace: Any, ref: str, at: tuple) -> tuple[str, Any, Any]:
    """(source, description, operation) of an AsyncAPI operationId, plain or source-qualified."""
    match = _SOURCE_REF.match(ref)
    if match:
        name, op_id = match.groups()
        description = _asyncapi_source(workspace, name, at)
        operation = description.operation(op_id)
        if operation is None:
            hint = description.suggest(op_id)
            tip = f"; did you mean {', '.join(hint)}?" if hint else ""
            raise workspace.error(
                at, f"AsyncAPI operation '{op_id}' was not found in '{name}'{tip}", TargetError
            )
        return name, description, operation
    found = []
    for name in workspace.asyncapi_sources():
        description = workspace.source(name)
        operation = description.operation(ref)
        if operation is not None:
            found.append((name, description, operation))
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(f[0] for f in found)
        message = f"operationId '{ref}' is ambiguous: found in sources {names}; "
        message += f"use $sourceDescriptions.<name>.{ref}"
        raise workspace.error(at, message, TargetError)
    if not workspace.asyncapi_sources():
        raise workspace.error(
            at, f"operationId '{ref}': the document has no asyncapi source description", TargetError
        )
    raise workspace.error(at, f"AsyncAPI operation '{ref}' was not found", TargetError)


def _asyncapi_source(workspace: Any, name: str, at: tuple) -> Any:
    entry = workspace.document.source(name)
    if entry is None:
        raise workspace.error(at, f"unknown source description '{name}'", TargetError)
    if entry.type != "asyncapi":
        kind = entry.type or "openapi"
        raise workspace.error(at, f"source '{name}' is of type {kind}, not asyncapi", TargetError)
    return workspace.source(name)


def _by_channel(workspace: Any, step: Step, action: str) -> MessageTarget:
    at = (*step.at, "channelPath")
    text = step.channel_path or ""
    parts = channel_path_parts(text)
    if parts is None:
        message = (
            f"channelPath '{text}' does not name a source: write "
            "'{$sourceDescriptions.<name>.url}#/channels/<channel>'"
        )
        raise workspace.error(at, message, TargetError)
    name, fragment, _ = parts
    description = _asyncapi_source(workspace, name, at)
    channel = description.channel_at(fragment)
    if channel is None:
        raise workspace.error(
            at, f"channelPath '{text}' does not point to a channel of '{name}'", TargetError
        )
    return MessageTarget(name, description, None, channel, list(channel.messages), action)
