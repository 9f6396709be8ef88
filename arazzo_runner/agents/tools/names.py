"""Tool names from workflowIds: what every function-calling API accepts, `^[A-Za-z0-9_-]{1,64}$`.

A workflowId is kept when it fits. Otherwise each run of other characters becomes one `_` and the name
is cut to 64 characters (an id with no usable character becomes `workflow`). Names are given in order
(documents in the order given, workflows in document order): the first workflow keeps its name; a later
one whose name is taken gets `_2`, `_3`, ... (the name cut to leave room), never a name another workflow
keeps. Every name that differs from its workflowId is reported, with why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_LENGTH = 64
VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_OTHER = re.compile(r"[^A-Za-z0-9_-]+")


def base_name(workflow_id: str) -> str:
    """The workflowId made a valid name, before collisions are resolved."""
    if VALID.fullmatch(workflow_id):
        return workflow_id
    name = _OTHER.sub("_", workflow_id).strip("_")[:MAX_LENGTH]
    return name or "workflow"


def assign_names(workflows: Sequence[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Names for `(file, workflowId)` pairs, in order, and a message for each name that is not the
    workflowId as written."""
    bases = [base_name(workflow_id) for _, workflow_id in workflows]
    taken: dict[str, int] = {}  # name -> index of the workflow that has it
    reserved = set(bases)  # a suffixed name never takes a name some workflow has as its base
    names: list[str] = []
    notes: list[str] = []
    for index, ((file, workflow_id), base) in enumerate(zip(workflows, bases, strict=True)):
        name = base
        if name in taken:
            name = _suffixed(base, taken, reserved)
        taken[name] = index
        names.append(name)
        if name == workflow_id:
            continue
        why = [] if base == workflow_id else ["not a valid tool name"]
        if name != base:
            other_file, other_id = workflows[taken[base]]
            why.append(f"'{base}' is the tool of workflow '{other_id}' of {other_file}")
        notes.append(f"workflow '{workflow_id}' of {file} is the tool '{name}' ({'; '.join(why)})")
    return names, notes


def _suffixed(base: str, taken: dict[str, int], reserved: set[str]) -> str:
    number = 2
    while True:
        suffix = f"_{number}"
        name = base[: MAX_LENGTH - len(suffix)] + suffix
        if name not in taken and name not in reserved:
            return name
        number += 1
