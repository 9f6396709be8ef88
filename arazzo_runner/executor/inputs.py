"""Workflow inputs: defaults from the inputs schema, JSON Schema validation, CLI value coercion."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from ..spelling import schema_message
from ..workspace.inputs import resolve_schema

_DOC_URI = "urn:arazzo:document"
MAX_MEMBER_WALK = 1000  # schemas an input's secret-members walk looks at (`_secret_paths`)


class InputsError(UsageError):
    """Inputs that do not satisfy the workflow's inputs schema (a usage error: nothing was sent)."""

    def __init__(self, workflow_id: str, problems: list[str]) -> None:
        self.workflow_id = workflow_id
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid inputs for workflow '{workflow_id}':\n{lines}")


def apply_defaults(schema: Any, value: Any, document: dict) -> Any:
    """Fill `default`s of absent object properties, recursively; never overwrite a given value."""
    schema = resolve_schema(schema, document)
    if not isinstance(schema, dict) or not isinstance(value, dict):
        return value
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return value
    filled = dict(value)
    for name, sub in properties.items():
        sub = resolve_schema(sub, document)
        if name not in filled and isinstance(sub, dict) and "default" in sub:
            filled[name] = sub["default"]
        if name in filled:
            filled[name] = apply_defaults(sub, filled[name], document)
    return filled


def validate_inputs(
    workflow_id: str,
    schema: dict | None,
    inputs: dict,
    document: dict,
    schema_at: str,
    secrets: set[str] | None = None,
    locate: Callable[[tuple[str, ...], str], Exception] | None = None,
    checked: bool = False,
    plain: Any = None,
) -> dict:
    """Return the inputs with defaults applied, or raise InputsError listing every problem.

    `schema_at` is the JSON pointer of the schema inside `document`, so that `#/components/inputs/x`
    references resolve against the Arazzo document as the spec intends. Values the schema marks secret
    join `secrets` first, so that even the message of an InputsError can be masked. A reference that
    does not resolve inside the document is `UnresolvedSchemaRef`, or `locate(pointer, message)` (the
    workspace's located error) when given. `checked`: these very inputs passed this schema before (a
    batch's check pass, `preflight.BatchChecks`): only the defaults are applied and the secrets found.
    `plain`: `schema` (the one at `schema_at`) read as a `plain_inputs.PlainSchema` (a batch's, read
    once), which applies the defaults, finds the secrets and passes the inputs that have no problem.
    """
    if not schema or _not_an_object(resolve_schema(schema, document)):
        # the inputs a run receives are named values: a schema of another type (`type: string`, as
        # Respect's reusable-components fixture writes) can never hold them. `validate` reports it
        # (`inputs-schema`); the run takes the inputs as given.
        return dict(inputs)
    if plain is not None:  # read once: the same defaults, secrets and verdicts, without the walks
        filled = plain.filled(inputs)
        if secrets is not None:
            secrets.update(plain.secrets(filled))
        if checked or plain.passes(filled):
            return filled
    else:
        filled = apply_defaults(schema, inputs, document)
        if secrets is not None:
            secrets.update(secret_values(schema, filled, document))
        if checked:
            return filled
    try:
        problems = schema_problems(schema_at, filled, document)
    except UnresolvedSchemaRef as exc:
        if locate is None or exc.pointer is None:
            raise
        raise locate(exc.pointer, str(exc)) from None
    if problems:
        raise InputsError(workflow_id, problems)
    return filled


def _not_an_object(schema: Any) -> bool:
    declared = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(declared, str):
        return declared != "object"
    if isinstance(declared, list) and declared and all(isinstance(t, str) for t in declared):
        return "object" not in declared
    return False


def secret_values(schema: Any, value: Any, document: dict, depth: int = 0) -> list[str]:
    """The string values under `format: password` or `writeOnly: true`, at any depth (properties, array
    items, `allOf`/`anyOf`/`oneOf` branches). Only strings: a number is never masked by value. Each
    (schema, value) pair is looked at once, shallowest first: branches naming one schema twice at each
    level would otherwise double the walk per level (2^32 at the depth bound)."""
    found: list[str] = []
    pending = deque([(schema, value, depth)])
    seen: dict[tuple[int, int], tuple[Any, Any]] = {}  # (keeps both: no id reused meanwhile)
    while pending:
        node, value, level = pending.popleft()
        node = resolve_schema(node, document)
        if not isinstance(node, dict) or level > 32 or (id(node), id(value)) in seen:
            continue
        seen[id(node), id(value)] = (node, value)
        if node.get("format") == "password" or node.get("writeOnly") is True:
            found.extend(_strings(value))
            continue
        branches = [b for key in ("allOf", "anyOf", "oneOf") for b in node.get(key) or []]
        pending.extend((branch, value, level + 1) for branch in branches)
        properties = node.get("properties")
        if isinstance(value, dict) and isinstance(properties, dict):
            pending.extend((sub, value[name], level + 1) for name, sub in properties.items() if name in value)
        if isinstance(value, list) and isinstance(node.get("items"), dict):
            pending.extend((node["items"], item, level + 1) for item in value)
    return found


class Inputs(dict):
    """A workflow's inputs; `secret` names those whose schema says `format: password` or `writeOnly:
    true`: a value read from one is derived from a secret whatever its type or length
    (`arazzo_runner.masking.taint`), so a 3-digit PIN is masked where a request carrying it is shown.
    `members`: for an object input that is not secret whole, the paths of its members that are
    (`secret_input_members`), masked where the object is read whole (`masking/members.py`)."""

    __slots__ = ("members", "secret")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.secret: frozenset[str] = frozenset()
        self.members: dict[str, tuple[tuple[Any, ...], ...]] = {}


def mark_secret_inputs(inputs: dict, schema: Any, document: dict) -> dict:
    """`inputs` as `Inputs` naming its secret ones (the same dict when none is)."""
    marks = secret_input_names(schema, document), secret_input_members(schema, document)
    return with_secret_names(inputs, *marks)


def with_secret_names(inputs: dict, names: frozenset[str], members: dict | None = None) -> dict:
    """`inputs` as `Inputs` naming its secret ones `names` and the secret `members` of the others (the
    same dict when there are none)."""
    if not names and not members:
        return inputs
    marked = Inputs(inputs)
    marked.secret = names
    if members:
        marked.members = members
    return marked


def secret_input_paths(schema: Any, document: dict) -> tuple[tuple[Any, ...], ...]:
    """Every secret input and secret member of one, as paths (`masking/members.py`): what a row's inputs
    show as `***` by name, whatever the type (`Masker.inputs`)."""
    named = tuple((name,) for name in sorted(secret_input_names(schema, document)))
    inside = secret_input_members(schema, document)
    return named + tuple((name, *path) for name, paths in inside.items() for path in paths)


def secret_input_members(schema: Any, document: dict) -> dict[str, tuple[tuple[Any, ...], ...]]:
    """For each input not secret whole, the paths of the members its schema marks secret (properties,
    array items as `members.ITEM`, through `$ref` and `allOf`/`anyOf`/`oneOf`); only those that have
    some. A number or a boolean is never masked by value: these are masked by name where the object
    holding them is read whole (`$inputs`, `$inputs.creds`)."""
    schema = resolve_schema(schema or {}, document)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    found = {}
    for name, sub in properties.items():
        if not _says_secret(sub, document, 0):
            paths = tuple(_secret_paths(sub, document, 0))
            if paths:
                found[name] = paths
    return found


def _secret_paths(schema: Any, document: dict, depth: int) -> list[tuple[Any, ...]]:
    """The paths of the secret members under `schema`, breadth first within `MAX_MEMBER_WALK` schemas
    looked at: a schema that refers to itself twice (a tree) or shares one down many levels has paths
    that double at each level, so the shallow ones are found and the walk ends (a member deeper still
    is masked by value only, as any secret member was before the members rule)."""
    from ..masking.members import ITEM

    found: list[tuple[Any, ...]] = []
    pending: deque[tuple[Any, tuple[Any, ...], int]] = deque([(schema, (), depth)])
    budget, seen = MAX_MEMBER_WALK, {}  # (a schema at one path once: branches naming it twice)
    while pending and budget > 0:
        node, at, level = pending.popleft()
        node = resolve_schema(node, document)
        if not isinstance(node, dict) or level > 32 or (id(node), at) in seen:
            continue
        seen[id(node), at], budget = node, budget - 1
        for branch in [b for key in ("allOf", "anyOf", "oneOf") for b in node.get(key) or []]:
            pending.append((branch, at, level + 1))
        properties = node.get("properties")
        members = list(properties.items()) if isinstance(properties, dict) else []
        items = node.get("items")
        if isinstance(items, dict):
            members.append((ITEM, items))
        for name, sub in members:
            if _says_secret(sub, document, level + 1):
                found.append((*at, name))
            else:
                pending.append((sub, (*at, name), level + 1))
    return found


def secret_input_names(schema: Any, document: dict) -> frozenset[str]:
    """The inputs whose own schema (through `$ref` and `allOf`/`anyOf`/`oneOf`) is marked secret; a
    secret member inside an object input is masked by value (`secret_values`)."""
    schema = resolve_schema(schema or {}, document)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return frozenset()
    return frozenset(name for name, sub in properties.items() if _says_secret(sub, document, 0))


def _says_secret(schema: Any, document: dict, depth: int) -> bool:
    """Whether `schema` or a branch (`allOf`/`anyOf`/`oneOf`, through `$ref`) is marked secret, each
    schema looked at once, shallowest first: branches naming one schema twice double a walk per level."""
    pending, seen = deque([(schema, depth)]), {}  # (seen keeps the schemas: no id reused meanwhile)
    while pending:
        node, level = pending.popleft()
        node = resolve_schema(node, document)
        if not isinstance(node, dict) or level > 32 or id(node) in seen:
            continue
        seen[id(node)] = node
        if node.get("format") == "password" or node.get("writeOnly") is True:
            return True
        branches = [b for key in ("allOf", "anyOf", "oneOf") for b in node.get(key) or []]
        pending.extend((branch, level + 1) for branch in branches if isinstance(branch, dict))
    return False


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def schema_problems(schema_at: str, value: Any, document: dict) -> list[str]:
    """Problems of `value` against the schema at `schema_at`; the common subset is checked without
    jsonschema (see `simple_schema`), anything else by jsonschema."""
    BudgetExceeded, PatternStopped, run_check, subset_problems = _SCHEMA_CHECKS or _schema_checks()
    schema = resolve_pointer(document, parse_pointer(schema_at))

    def check() -> list[str]:
        if schema is not ABSENT:
            fast = subset_problems(schema, value, document)
            if fast is not None:
                return fast
        return jsonschema_problems(schema_at, value, document)

    try:
        return run_check(check)  # all the patterns of the inputs share one check's time
    except PatternStopped as exc:
        return [f"inputs: {exc}; the rest of the inputs was not validated"]
    except BudgetExceeded as exc:
        return [f"inputs: validation was stopped: {exc.cause()}"]


_SCHEMA_CHECKS: tuple[Any, ...] = ()


def _schema_checks() -> tuple[Any, ...]:
    """What `schema_problems` uses, imported on its first call (`import arazzo_runner` imports this
    module; a run without inputs needs none of them) and kept: an import statement in the function
    costs ~1 µs a call even when the module is loaded."""
    global _SCHEMA_CHECKS
    from ..bounds.budget import BudgetExceeded
    from ..sources.schema_patterns import PatternStopped, run_check
    from ..sources.simple_schema import subset_problems

    _SCHEMA_CHECKS = (BudgetExceeded, PatternStopped, run_check, subset_problems)
    return _SCHEMA_CHECKS


def jsonschema_problems(schema_at: str, value: Any, document: dict) -> list[str]:
    """Validate `value` against the schema at `schema_at` (JSON Schema 2020-12) in the Arazzo document.

    References resolve inside the document only (pointers, anchors): its registry refuses every other
    URI, so the validator never fetches; a refused one is `UnresolvedSchemaRef`. A pattern that runs out
    of the check's time raises `schema_patterns.PatternStopped`."""
    import jsonschema  # deferred: only runs that have an inputs schema pay for it

    from ..sources.schema_keywords import bounded
    from ..sources.schema_registry import registry as schema_registry
    from ..sources.schema_registry import unresolved

    registry = schema_registry(resources={_DOC_URI: document})
    kind = bounded(jsonschema.Draft202012Validator)  # patterns matched within the check's time
    validator = kind({"$ref": f"{_DOC_URI}#{schema_at}"}, registry=registry)
    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except Exception as exc:
        found = unresolved(exc)
        if found is None:
            raise
        raise UnresolvedSchemaRef(str(getattr(found, "ref", "")), document, schema_at) from None
    problems = []
    for error in errors:
        where = "/".join(str(p) for p in error.absolute_path)
        problems.append(f"{where or 'inputs'}: {_describe(error)}")
    return problems


class UnresolvedSchemaRef(UsageError):
    """An inputs schema reference that does not resolve inside the Arazzo document. `pointer` (tokens) is
    where it is written, when found, so the caller can locate the message (`Workspace.error`)."""

    def __init__(self, ref: str, document: dict, schema_at: str) -> None:
        self.keyword, self.pointer = _written_at(ref, document, schema_at)
        super().__init__(
            f"cannot resolve {self.keyword} '{ref}' in an inputs schema: it names no schema of this "
            "document, and an inputs schema resolves only inside its Arazzo document (schema validators "
            "never fetch)"
        )


def _written_at(ref: str, document: dict, schema_at: str) -> tuple[str, tuple[str, ...] | None]:
    """(keyword, pointer tokens) of the first `$ref`/`$dynamicRef` equal to `ref`, looked for under the
    inputs schema first, then anywhere in the document (a component it references)."""
    start = tuple(parse_pointer(schema_at))
    for root in (start, ()):
        stack: list[tuple[Any, tuple[str, ...]]] = [(resolve_pointer(document, root), root)]
        while stack:
            node, tokens = stack.pop()
            if isinstance(node, dict):
                for keyword in ("$ref", "$dynamicRef"):
                    if node.get(keyword) == ref:
                        return keyword, (*tokens, keyword)
                stack.extend((v, (*tokens, str(k))) for k, v in reversed(list(node.items())))
            elif isinstance(node, list):
                stack.extend((v, (*tokens, str(i))) for i, v in reversed(list(enumerate(node))))
    return "$ref", None


def _describe(error: Any) -> str:
    message = schema_message(error)  # JSON's spelling: a tool's caller reads it too
    if error.validator == "required":
        return message.replace("is a required property", "is required but was not provided")
    return message


def input_schema_for(schema: dict | None, name: str, document: dict) -> dict:
    schema = resolve_schema(schema or {}, document)
    props = schema.get("properties") if isinstance(schema, dict) else None
    sub = props.get(name) if isinstance(props, dict) else None
    sub = resolve_schema(sub, document)
    return sub if isinstance(sub, dict) else {}


def coerce_cli_value(text: str, schema: dict) -> Any:
    """Turn a `--input key=value` string into the type the input schema declares."""
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    if not types:
        return text
    for kind in types:
        try:
            return _coerce(kind, text)
        except ValueError:
            continue
    return text  # let schema validation explain the mismatch


def _coerce(kind: str, text: str) -> Any:
    if kind == "string":
        return text
    if kind == "integer":
        return int(text)
    if kind == "number":
        number = float(text)
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise ValueError(text)
    if kind == "null":
        if text.strip().lower() in ("null", ""):
            return None
        raise ValueError(text)
    if kind in ("object", "array"):
        from ..bounds import json_text

        value = json_text.loads(text)  # the rule for JSON from outside: 128 levels, U+FFFD
        if (kind == "object") != isinstance(value, dict) or (kind == "array") != isinstance(value, list):
            raise ValueError(text)
        return value
    raise ValueError(text)
