"""Which validator errors stop a run, and which a run shows as warnings ("strict judge, generous runner").

`arazzo validate` judges a document against every MUST and SHOULD of the specification. A run (`arazzo
run`, the library's `run`, the pytest plugin, `arazzo mcp`, `agent`, `tools` and `load`) refuses only what
it cannot execute with one meaning, workflow by workflow (`admission.py`), and runs the rest with the other
errors shown as warnings. Each error rule is one of:

- `BLOCK`: the workflow holding the finding (and every workflow that reaches it) is not run: a reference
  that names nothing, a value that cannot be evaluated, an id that names two things, a request that cannot
  be built;
- `WARN`: the run goes on and shows the finding: the rule is the specification's word on how a document
  must be written, but the engine reads the document one way only (an output name with a space is still
  that output's name; a plain operationId that exactly one source has calls that operation).

A rule may decide per finding (`Finding.blocks`, set where it reports): `parameter-required` blocks for
a path parameter (the URL cannot be built) and warns for a query, header or cookie parameter (the request
is sent without it and the server answers); `parameter-in` blocks an operation step's parameter without
`in` and warns about an `in` on a workflow's input, which a run ignores; `input-reference` blocks for
a name a closed inputs schema (`additionalProperties: false`) can never accept.

Warning rules never stop a run. docs/semantics.md (*What stops a run*) lists this table; a test keeps the
two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .findings import Finding

BLOCK = "block"
WARN = "warn"

# rule -> (what a run does with its error findings, why); rules whose default severity is error, and
# `output-value`, a warning whose misspelt-expression findings are errors
POLICY: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "document-parse": (BLOCK, "there is no document to run"),
        "document-shape": (BLOCK, "a field has a shape the engine cannot use"),
        "schema": (
            WARN,
            "the engine reads fields by their meaning and ignores unknown ones; a shape it cannot use is a "
            "`document-shape` error, and an unusable value fails when the workflow is compiled",
        ),
        "workflow-id-unique": (BLOCK, "the id names two workflows: which one runs is not known"),
        "step-id-unique": (BLOCK, "the id names two steps: which one a goto or `$steps` means is not known"),
        "source-name-unique": (BLOCK, "the name names two sources: which one a step calls is not known"),
        "action-name-unique": (
            WARN,
            "actions are tried in order and the first that matches is taken; a name only overrides an "
            "inherited action, and both actions of that name do",
        ),
        "parameter-unique": (BLOCK, "two values for one parameter: which one is sent is not known"),
        "output-name": (WARN, "the output is produced under the name it is given"),
        "source-reference": (BLOCK, "the reference names no source"),
        "component-reference": (BLOCK, "the reference names no component"),
        "step-target": (BLOCK, "a step calls exactly one thing"),
        "step-workflow-exists": (BLOCK, "the step names no workflow to run"),
        "goto-target-exists": (BLOCK, "the action names no step or workflow to go to"),
        "action-target": (BLOCK, "where the action goes is not known"),
        "depends-on-exists": (BLOCK, "a dependency names no workflow"),
        "depends-on-cycle": (BLOCK, "the workflows cannot be ordered"),
        "operation-path-form": (
            WARN,
            "the run resolves the operationPath as written; one that points at no operation stops the "
            "workflow before anything is sent",
        ),
        "plain-operation-id": (
            WARN,
            "an operationId exactly one source has calls that operation; one that several sources have "
            "stops the workflow (which one is meant is not known)",
        ),
        "parameter-in": (
            BLOCK,
            "an operation step's parameter without `in` has nowhere to go (an `in` on a workflow's input "
            "is ignored, with a warning)",
        ),
        "expression-syntax": (BLOCK, "the expression cannot be evaluated"),
        "unquoted-template": (
            BLOCK,
            "YAML reads the value as a mapping, which would be sent as one; the template it stands for "
            "is a second meaning",
        ),
        "output-value": (
            BLOCK,
            "a misspelt expression would be returned as its text, never the value meant (other literal "
            "text is a warning: it runs, returned as written)",
        ),
        "selector-syntax": (BLOCK, "the selector cannot be evaluated"),
        "output-reference": (BLOCK, "the expression reads an output the step never produces"),
        "output-forward-reference": (
            WARN,
            "the run runs a step after the steps it reads (a step read before it has run at all, its "
            "own outputs, is a missing value, as any)",
        ),
        "step-dependency-cycle": (BLOCK, "the steps cannot be ordered"),
        "inputs-schema": (WARN, "the workflow runs, and `$inputs` is the value given"),
        "input-reference": (
            WARN,
            "an input the caller supplied is read as given; one neither declared nor supplied fails its "
            "step before it is sent, naming it (one a closed schema cannot accept stops the workflow: "
            "it can never be given)",
        ),
        "workflow-reference": (BLOCK, "the expression names no workflow, step or value of one"),
        "criterion-type": (BLOCK, "the criterion cannot be evaluated"),
        "criterion-context": (BLOCK, "the criterion cannot be evaluated"),
        "condition-syntax": (BLOCK, "the condition cannot be evaluated"),
        "regex-syntax": (BLOCK, "the condition cannot be evaluated"),
        "jsonpath-syntax": (BLOCK, "the condition cannot be evaluated"),
        "xpath-syntax": (BLOCK, "the condition cannot be evaluated"),
        "operation-exists": (BLOCK, "the step names no operation to call"),
        "parameter-required": (
            BLOCK,
            "a path parameter without a value leaves the URL unbuilt (a required query, header or cookie "
            "parameter that is not given is a warning: the request is sent without it and the server "
            "answers)",
        ),
        "request-body-required": (WARN, "the request is sent without a body, and the server answers"),
        "async-action": (BLOCK, "whether the step sends or receives is not known"),
        "correlation-id-receive": (BLOCK, "a correlation id on a step that does not receive has no meaning"),
        "async-parameter-in": (BLOCK, "the parameter has nowhere to go"),
        "channel-path-form": (BLOCK, "the channelPath names no channel"),
        "message-expression": (BLOCK, "`$message` has no value outside an AsyncAPI step"),
        "async-target-exists": (BLOCK, "the step names no AsyncAPI operation or channel"),
        "x-operation": (BLOCK, "the request cannot be built"),
        "x-security": (BLOCK, "the credential cannot be applied"),
        "x-for-each": (BLOCK, "what the loop runs, or over what, is not known"),
        "x-for-each-input": (
            WARN,
            "each item is given as that input, read as given (a schema that accepts no other name fails "
            "each item, naming it)",
        ),
    }
)


def blocks(finding: Finding) -> bool:
    """Whether `finding` stops the workflow it is in: an error of a `BLOCK` rule, unless the rule said
    otherwise where it reported it (`Finding.blocks`)."""
    if finding.severity != "error":
        return False
    if finding.blocks is not None:
        return finding.blocks
    policy = POLICY.get(finding.rule)
    return policy is None or policy[0] == BLOCK  # an unknown rule: the safe side
