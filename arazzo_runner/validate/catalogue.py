"""Every rule the validator knows: a stable id, its default severity, its area and a one-line explanation.

`docs/validation.md` lists the same table (a test keeps the two in step); SARIF output publishes it as the
tool's rule metadata.
"""

from __future__ import annotations

from ..records import Record
from .findings import ERROR, WARNING


class Rule(Record, frozen=True):
    id: str
    severity: str
    area: str
    summary: str


_RULES = (
    # -- the document itself
    Rule("document-parse", ERROR, "document", "The file cannot be read or is not well-formed YAML/JSON."),
    Rule(
        "schema",
        ERROR,
        "document",
        "The document violates the official Arazzo JSON Schema of its version (1.0.x or 1.1.x).",
    ),
    Rule(
        "document-shape",
        ERROR,
        "document",
        "A field has a shape the engine cannot use (reported only where the schema check did not).",
    ),
    # -- identifiers and references inside the document
    Rule("workflow-id-unique", ERROR, "identifiers", "workflowIds are unique in the document."),
    Rule("step-id-unique", ERROR, "identifiers", "stepIds are unique within their workflow."),
    Rule("source-name-unique", ERROR, "identifiers", "Source description names are unique."),
    Rule(
        "action-name-unique",
        ERROR,
        "identifiers",
        "Action names are unique within each onSuccess/onFailure/successActions/failureActions list "
        "(references resolved to their component's name).",
    ),
    Rule(
        "parameter-unique",
        ERROR,
        "identifiers",
        "A parameters list does not repeat a name+in pair (names are case-sensitive; two header names "
        "differing only in case are a warning: HTTP reads them as one, and a run sends the last).",
    ),
    Rule(
        "id-pattern",
        WARNING,
        "identifiers",
        "workflowIds and stepIds match `[A-Za-z0-9_\\-]+` (a SHOULD; a run reads other characters by the "
        "ids the document declares, and 1.1's expression grammar has only these).",
    ),
    Rule(
        "output-name",
        ERROR,
        "identifiers",
        "Step and workflow output names match `^[a-zA-Z0-9.\\-_]+$` (a MUST of the specification).",
    ),
    Rule(
        "source-reference",
        ERROR,
        "identifiers",
        "`$sourceDescriptions.<name>` (in operationId, operationPath, workflowId, dependsOn or a value) "
        "names a declared source.",
    ),
    Rule(
        "component-reference",
        ERROR,
        "identifiers",
        "A Reusable Object or `$components` expression names an existing component of the right kind; "
        "a `$ref` in workflow inputs resolves inside the document.",
    ),
    # -- steps, actions and dependencies
    Rule(
        "step-target",
        ERROR,
        "flow",
        "A step has exactly one target: operationId, operationPath or workflowId (1.1: or channelPath; "
        "or Respect's x-operation).",
    ),
    Rule(
        "step-workflow-exists",
        ERROR,
        "flow",
        "A step's workflowId is a workflow of this document or `$sourceDescriptions.<arazzo source>.<id>`.",
    ),
    Rule(
        "goto-target-exists",
        ERROR,
        "flow",
        "A goto/retry action's stepId is a step of the same workflow; its workflowId is a local workflow "
        "or one in an arazzo source.",
    ),
    Rule(
        "action-target",
        ERROR,
        "flow",
        "A goto action names exactly one of stepId/workflowId; an end action names neither; a retry at "
        "most one.",
    ),
    Rule(
        "action-fields",
        WARNING,
        "flow",
        "No field without effect on the action's type: retryAfter/retryLimit only on retry actions, "
        "stepId/workflowId not on end actions.",
    ),
    Rule(
        "depends-on-exists",
        ERROR,
        "flow",
        "Every dependsOn entry names an existing workflow (workflows) or step (steps, 1.1).",
    ),
    Rule("depends-on-cycle", ERROR, "flow", "dependsOn relations form no cycle."),
    Rule(
        "step-dependency-cycle",
        ERROR,
        "flow",
        "The steps of a workflow can be ordered: no step depends on itself through the steps it lists in "
        "dependsOn or reads the outputs of.",
    ),
    Rule(
        "operation-path-form",
        ERROR,
        "flow",
        "An operationPath is `{$sourceDescriptions.<name>.url}#<JSON pointer>` (or a source's url before "
        "the `#`); `$sourceDescriptions.<name>#<JSON pointer>` runs too, with a warning.",
    ),
    Rule(
        "plain-operation-id",
        ERROR,
        "flow",
        "With several non-arazzo sources, operationIds are written `$sourceDescriptions.<name>.<id>`.",
    ),
    Rule(
        "parameter-in",
        ERROR,
        "flow",
        "Parameters of operation steps have `in`; parameters passed to a workflow (workflow steps, "
        "action parameters) do not.",
    ),
    # -- runtime expressions and values
    Rule(
        "expression-syntax",
        ERROR,
        "expressions",
        "Every runtime expression parses: whole values, `{$...}` embeddings, contexts, references.",
    ),
    Rule(
        "bare-expression",
        WARNING,
        "expressions",
        'An expression inside a longer string without braces ("Bearer $inputs.key"): write '
        '"Bearer {$inputs.key}".',
    ),
    Rule(
        "expression-typo",
        WARNING,
        "expressions",
        "A parameter, payload or replacement value that is a misspelt runtime expression (`$respons.body`, "
        "`$Inputs.id`) is sent as written: the fix is suggested.",
    ),
    Rule(
        "unquoted-template",
        ERROR,
        "expressions",
        "A `{$...}` template left unquoted in YAML (`value: {$inputs.id}`) is read as a mapping and would be "
        "sent as one: quote it.",
    ),
    Rule(
        "output-value",
        WARNING,
        "expressions",
        "Step and workflow output values are runtime expressions (`{$...}` templates, 1.1: Selector "
        "Objects); other text is returned as written (a warning), a misspelt expression is an error "
        "(with a did-you-mean).",
    ),
    Rule(
        "expression-accessor",
        WARNING,
        "expressions",
        "A non-standard `.member`/`[0]` accessor after an expression; the standard form is a JSON "
        "pointer (`#/items/0`).",
    ),
    Rule(
        "selector-syntax",
        ERROR,
        "expressions",
        "Selector Objects and replacement targets use a known selector type and parse as JSONPath, "
        "XPath or JSON Pointer.",
    ),
    Rule(
        "output-reference",
        ERROR,
        "expressions",
        "`$steps.<id>.outputs.<name>` names a step of the same workflow that declares that output; "
        "`$outputs.<name>` in a workflow step names an output of the called workflow.",
    ),
    Rule(
        "output-forward-reference",
        ERROR,
        "expressions",
        "In a workflow without dependsOn, `$steps.<id>.outputs` reads a step listed later (the run runs "
        "that step first); a step reads its own outputs before it has run (an error in 1.1, a warning "
        "in 1.0).",
    ),
    Rule(
        "inputs-schema",
        ERROR,
        "expressions",
        "A workflow's inputs schema describes an object (`type: string` could never be satisfied).",
    ),
    Rule(
        "input-reference",
        ERROR,
        "expressions",
        "`$inputs.<name>` is declared in the workflow's inputs schema: an error when the schema accepts "
        "no other name (`additionalProperties: false`) or is not an object, a warning otherwise.",
    ),
    Rule(
        "workflow-reference",
        ERROR,
        "expressions",
        "`$workflows.<id>.inputs|outputs.<name>` and `$workflows.<id>.steps.<stepId>.outputs.<name>` "
        "name a workflow of the document, its step, and an input/output declared (inputs as for "
        "`input-reference`).",
    ),
    # -- criteria
    Rule("criterion-type", ERROR, "criteria", "A criterion's type (and version) is a known one."),
    Rule(
        "criterion-context",
        ERROR,
        "criteria",
        "A criterion with a `type` has a `context` (regex, jsonpath and xpath need one to run).",
    ),
    Rule("condition-syntax", ERROR, "criteria", "A simple condition parses."),
    Rule("regex-syntax", ERROR, "criteria", "A regex condition compiles."),
    Rule(
        "regex-literal",
        WARNING,
        "criteria",
        "A regex condition is the pattern alone: `/^[0-9A-F]{8}$/i` matches its slashes and flag literally; "
        "write `(?i)^[0-9A-F]{8}$`.",
    ),
    Rule(
        "regex-context",
        WARNING,
        "criteria",
        "A regex condition's context that the schemas (the operation's responses, the inputs) make an "
        "object or an array: it is matched as its JSON text; make the context the member to match.",
    ),
    Rule("jsonpath-syntax", ERROR, "criteria", "A jsonpath condition is a valid query."),
    Rule("xpath-syntax", ERROR, "criteria", "An xpath condition parses in its XPath version."),
    Rule(
        "jsonpath-comparison-form",
        WARNING,
        "criteria",
        "`$.x == 'y'` is not RFC 9535 (the engine accepts it); write the filter `$[?@.x == 'y']`.",
    ),
    Rule(
        "condition-nonstandard",
        WARNING,
        "criteria",
        "A simple condition uses a non-standard spelling (double-quoted strings, `{$...}` braces).",
    ),
    # -- forms other tools write: each runs as its standard form (`arazzo_runner.model.dialect`), with a fix
    Rule(
        "operation-id-source-prefix",
        WARNING,
        "dialect",
        "Respect's `operationId: <source>.<operationId>` runs as "
        "`$sourceDescriptions.<source>.<operationId>` (when no operation is named the whole text).",
    ),
    Rule(
        "workflow-id-legacy",
        WARNING,
        "dialect",
        "Respect's legacy `$sourceDescriptions.<source>.workflows.<id>` runs as "
        "`$sourceDescriptions.<source>.<id>`.",
    ),
    Rule(
        "operation-path-source-name",
        WARNING,
        "dialect",
        "Jentic's `operationPath: <source>#/paths/...` runs as "
        "`{$sourceDescriptions.<source>.url}#/paths/...`.",
    ),
    Rule(
        "header-plural",
        WARNING,
        "dialect",
        "Jentic's `$response.headers.<name>` runs as `$response.header.<name>`.",
    ),
    Rule(
        "step-output-shorthand",
        WARNING,
        "dialect",
        "Jentic's `$steps.<id>.<name>` runs as `$steps.<id>.outputs.<name>`.",
    ),
    Rule(
        "dependencies-expression",
        WARNING,
        "dialect",
        "Jentic's `$dependencies.<workflowId>.<name>` runs as `$workflows.<workflowId>.outputs.<name>`.",
    ),
    # -- Respect's extensions, run as documented in docs/semantics.md
    Rule(
        "x-operation",
        WARNING,
        "extensions",
        "A step calls a method and a URL through Respect's `x-operation` (it runs; an error when "
        "malformed: method, absolute URL).",
    ),
    Rule(
        "x-security",
        WARNING,
        "extensions",
        "A step or workflow applies a security scheme with Respect's `x-security` (it runs; an error when "
        "malformed, or when the scheme cannot be applied).",
    ),
    Rule(
        "x-for-each",
        WARNING,
        "extensions",
        "A step runs its workflow once per item with the engine's `x-forEach` (it runs; an error when "
        "malformed: a step without workflowId, fields other than items and input, items that can never "
        "be an array, a parameter named as the input).",
    ),
    Rule(
        "x-for-each-input",
        ERROR,
        "extensions",
        "The `input` of an `x-forEach` is an input the called workflow declares.",
    ),
    # -- checks against the loaded source descriptions
    Rule(
        "source-unavailable",
        WARNING,
        "sources",
        "A source description cannot be loaded (offline, 404, not OpenAPI 3): its checks are skipped.",
    ),
    Rule(
        "operation-exists",
        ERROR,
        "sources",
        "An operationId/operationPath resolves to an operation of the source (with a did-you-mean hint).",
    ),
    Rule(
        "parameter-unknown",
        WARNING,
        "sources",
        "Each operation-step parameter name+in exists on the operation (or is a security credential).",
    ),
    Rule(
        "parameter-required",
        ERROR,
        "sources",
        "Every required parameter of the operation (path parameters always) is supplied.",
    ),
    Rule(
        "request-body-required",
        ERROR,
        "sources",
        "A step whose operation requires a request body supplies one.",
    ),
    Rule(
        "payload-schema",
        WARNING,
        "sources",
        "The literal parts of a JSON payload conform to the request body schema (expressions count as "
        "unknown values).",
    ),
    Rule(
        "output-pointer",
        WARNING,
        "sources",
        "A `$response.body#/...` pointer in step outputs can exist in one of the operation's response "
        "schemas.",
    ),
    Rule(
        "schema-reference",
        WARNING,
        "sources",
        "Every schema `$ref`/`$dynamicRef`, and every discriminator `mapping` value written as a reference "
        "(with a `#` or a `/`), of the operation a step calls resolves in the documents the engine loaded: "
        "request and response validation never fetch one. A reference resolves against the description "
        "it is written in, as at run time: an `$id` around it does not move it (so an anchor inside an "
        "`$id` resource is not found, and is flagged as the run refuses it).",
    ),
    # -- AsyncAPI steps (1.1; validate/async_rules.py)
    Rule(
        "async-action",
        ERROR,
        "flow",
        "An AsyncAPI step (channelPath, or action) says action: send or receive.",
    ),
    Rule(
        "correlation-id-receive", ERROR, "flow", "A step's correlationId is only on an AsyncAPI receive step."
    ),
    Rule(
        "async-timeout",
        WARNING,
        "flow",
        "A receive step has a timeout; without one it waits the engine's default (30000 ms).",
    ),
    Rule(
        "async-parameter-in",
        ERROR,
        "flow",
        "A parameter of an AsyncAPI step is in: header (a message header) or in: path (a channel parameter).",
    ),
    Rule(
        "channel-path-form",
        ERROR,
        "flow",
        "A channelPath names its source: `{$sourceDescriptions.<name>.url}#/channels/<channel>`.",
    ),
    Rule("message-expression", ERROR, "expressions", "`$message` is used only in AsyncAPI steps."),
    Rule(
        "async-target-exists",
        ERROR,
        "sources",
        "An AsyncAPI step's operationId or channelPath exists in its asyncapi source (a step's action may "
        "be the opposite of the operation's: AsyncAPI describes the application's side).",
    ),
    Rule(
        "correlation-id-location",
        WARNING,
        "sources",
        "A receive step with a correlationId reads messages that define an AsyncAPI correlationId location.",
    ),
    Rule(
        "message-payload",
        WARNING,
        "sources",
        "A send step's payload matches the payload schema of the channel's message (unknown values aside).",
    ),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}
AREAS = ("document", "identifiers", "flow", "expressions", "criteria", "dialect", "extensions", "sources")
