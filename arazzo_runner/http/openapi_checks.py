"""openapi-core adapter: request parameters and body against one operation (`--validate-requests`;
responses are the contract checks', `contract.py`, which need no extra).

Imported only when validation is switched on (openapi-core is an optional extra: `[validation]`).
Each operation is validated through a one-operation description built from the loaded (already
`$ref`-resolved) operation plus the description's `components` (for references left in place, e.g.
cyclic schemas), served at a placeholder host; the request's path template and path values are given,
so `--server` overrides and server variables never affect matching. Security is not checked here (the
engine applies credentials itself, see `security.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from ..bounds import json_text
from ..records import Record
from ..spelling import json_spelling, schema_message
from .body import base_type, is_json

_HOST = "http://arazzo.invalid"
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _require() -> None:
    try:
        import openapi_core  # noqa: F401
    except ImportError:
        raise ValueError(missing_openapi_core()) from None


def missing_openapi_core() -> str:
    """The one line saying openapi-core is missing, with the install command for this installation."""
    from ..extras import install_hint

    return f"request validation needs openapi-core: {install_hint('validation')}"


class _Request(Record):
    host_url: str
    path: str
    path_pattern: str
    method: str
    parameters: Any
    body: bytes | None
    content_type: str = ""


def check_request(cache: dict, description: Any, operation: Any, request: Any) -> list[str]:
    if operation.method not in _METHODS:
        return []
    _require()

    def errors() -> Iterator[BaseException]:
        validators = _validators(cache, description, operation)
        for validator in (validators["parameters"], validators["body"]):
            yield from validator.iter_errors(_core_request(operation, request))

    derived = getattr(getattr(request, "view", None), "derived", None)
    skipped = [_unchecked(p) for p in operation.parameters if _regex_named(p)]
    return skipped + _findings(errors(), description, derived or frozenset(), "request")


def _findings(errors: Iterator[BaseException], description: Any, derived: frozenset, part: str) -> list[str]:
    """What openapi-core found. What it raises instead of reporting ends the check with a finding: a
    schema reference the registry refused (named), a schema it cannot use at all (an unknown
    `$schema` dialect, `allOf: "x"`, an invalid `pattern`...: `unusable`), or a pattern whose matching
    ran out of the check's time (`schema_patterns.PatternStopped`), or the run's deadline. A finding
    about a request part
    that carries a value derived from a secret (`derived`, see `http/shown.py`) quotes no value."""
    from ..bounds.budget import BudgetExceeded
    from ..sources.schema_patterns import PatternStopped, run_check
    from ..sources.schema_registry import refusal, unusable

    found: list[BaseException] = []
    stop = None
    try:
        run_check(lambda: found.extend(errors))  # what was found before a stop is kept
    except PatternStopped as exc:
        stop = f"{exc}; the rest of the {part} was not validated"
    except BudgetExceeded as exc:
        stop = f"validation was stopped: {exc.cause()}"
    except Exception as exc:  # the validator itself failed on the description's schemas
        stop = refusal(exc, description.ref_origin) or unusable(exc)
    findings = []
    for exc in found:
        if derived and _about(exc, derived):
            findings.append(f"{_head(exc, exc.__cause__ or exc.__context__)}: invalid ({DERIVED})")
        else:
            findings.append(refusal(exc, description.ref_origin) or describe(exc))
    return [*findings, stop] if stop else findings


_PATTERN_CHARACTERS = frozenset("()[]{}*+?|\\")


def _regex_named(spec: Any) -> bool:
    """A deepObject parameter whose name holds regular-expression syntax: openapi-core finds its members
    by searching the query's keys with `re` and the name as the pattern (`(a|aa)+` never ends on keys
    of forty `a`s), so it is not handed to openapi-core."""
    return (
        spec.in_ == "query" and spec.style == "deepObject" and not _PATTERN_CHARACTERS.isdisjoint(spec.name)
    )


def _unchecked(spec: Any) -> str:
    return (
        f"query parameter {spec.name!r} (style deepObject) was not validated: openapi-core reads its "
        "name as a regular expression"
    )


DERIVED = "derived from a secret: values not shown"


def _about(exc: BaseException, derived: frozenset) -> bool:
    """Whether an openapi-core finding is about a part of the request in `derived`."""
    location, name = getattr(exc, "location", None), getattr(exc, "name", None)
    if isinstance(location, str) and isinstance(name, str):
        return (location, name.casefold() if location == "header" else name) in derived
    return ("body", "") in derived and "Body" in type(exc).__name__


def _validators(cache: dict, description: Any, operation: Any) -> dict[str, Any]:
    key = (id(description), operation.pointer)
    if key not in cache:
        spec = _spec(description, _one_operation(description, operation))
        classes = _classes(description.version)
        extra = _json_deserializers(operation)
        cache[key] = {
            name: cls(spec, extra_media_type_deserializers=extra, **_bounded_factories(cls))
            for name, cls in classes.items()
        }
    return cache[key]


def _bounded_factories(cls: type) -> dict[str, Any]:
    """The schema validator factories of an openapi-core validator class (its own, and the one its
    casters choose `oneOf`/`anyOf` branches with), building the bounded classes of
    `sources/schema_patterns.py`: every pattern openapi-core checks is matched within the check's time."""
    from openapi_core.casting.schemas.factories import SchemaCastersFactory

    casters = cls.schema_casters_factory  # type: ignore[attr-defined]
    return {
        "schema_validators_factory": _bounded_factory(cls.schema_validators_factory),  # type: ignore[attr-defined]
        "schema_casters_factory": SchemaCastersFactory(
            _bounded_factory(casters.schema_validators_factory), casters.types_caster
        ),
    }


def _bounded_factory(factory: Any) -> Any:
    """A copy of an openapi-core SchemaValidatorsFactory whose validator classes (the one it holds, or
    the one a schema's `$schema` dialect names) are bounded, and whose `regex` format is checked
    within the check's time."""
    from ..sources.schema_keywords import bounded

    made = object.__new__(_bounded_kind(type(factory)))
    made.__dict__.update(vars(factory))
    for name in ("schema_validator_cls", "schema_validator_class"):  # openapi-core 0.23, 0.19
        if name in made.__dict__:
            made.__dict__[name] = bounded(made.__dict__[name])
    return made


@lru_cache(maxsize=16)  # openapi-core's factory classes: two
def _bounded_kind(kind: type) -> type:
    from ..sources.schema_keywords import bounded
    from ..sources.schema_patterns import bounded_formats

    class Bounded(kind):  # type: ignore[valid-type, misc]
        def get_validator_cls(self, *args: Any) -> Any:
            return bounded(super().get_validator_cls(*args))  # type: ignore[misc]

        def get_format_checker(self, *args: Any, **kwargs: Any) -> Any:
            return bounded_formats(super().get_format_checker(*args, **kwargs))

    Bounded.__name__ = Bounded.__qualname__ = f"Bounded{kind.__name__}"
    return Bounded


def _json_deserializers(operation: Any) -> dict[str, Any]:
    """openapi-core reads only a few JSON media types as JSON; every `+json` type of the operation is."""
    responses = [r for r in operation.responses.values() if isinstance(r, dict)]
    holders = [operation.request_body or {}, *responses]
    types = {base_type(str(t)) for h in holders if isinstance(h.get("content"), dict) for t in h["content"]}
    return {t: _json_loads for t in types if is_json(t)}


def _json_loads(value: bytes | str) -> Any:
    return json_text.loads(value)


def _classes(version: str) -> dict[str, type]:
    from openapi_core.validation.request import validators as request_validators

    prefix = "V30" if version.startswith("3.0") else "V31"
    if version.startswith("3.2") and hasattr(request_validators, "V32RequestBodyValidator"):
        prefix = "V32"
    return {
        "parameters": getattr(request_validators, f"{prefix}RequestParametersValidator"),
        "body": getattr(request_validators, f"{prefix}RequestBodyValidator"),
    }


def _one_operation(description: Any, operation: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"responses": operation.responses or {"default": {"description": "any"}}}
    kept = [p for p in operation.parameters if p.in_ in ("path", "query", "header", "cookie")]
    params = [_parameter(p) for p in kept if not _regex_named(p)]
    if params:
        body["parameters"] = params
    if operation.request_body:
        body["requestBody"] = operation.request_body
    components = description.data.get("components")
    return {
        "openapi": description.version,
        "info": {"title": "operation", "version": "1"},
        "servers": [{"url": _HOST}],
        "paths": {operation.path: {operation.method: body}},
        "components": components if isinstance(components, dict) else {},
    }


def _parameter(spec: Any) -> dict[str, Any]:
    param: dict[str, Any] = {"name": spec.name, "in": spec.in_, "required": spec.required}
    if spec.content:
        param["content"] = spec.content
        return param
    param.update(style=spec.style, explode=spec.explode, allowReserved=spec.allow_reserved)
    param["schema"] = spec.schema if spec.schema is not None else {}
    return param


def _spec(description: Any, document: dict[str, Any]) -> Any:
    """The one-operation description as openapi-core's SchemaPath, resolving `$ref`s through the
    description's registry: only documents the run loaded, never a fetch. (`SchemaPath.from_dict` would
    give it jsonschema-path's URL handlers, which read any file and fetch any URL a `$ref` names.)"""
    from jsonschema_path import SchemaPath
    from jsonschema_path.accessors import SchemaAccessor
    from jsonschema_path.paths import SPEC_SEPARATOR

    from ..sources.schema_registry import document_resource

    uri = description.uri
    registry = description.schema_registry.with_resource(uri, document_resource(document))
    accessor = SchemaAccessor(document, registry.resolver(base_uri=uri))
    return SchemaPath(accessor, separator=SPEC_SEPARATOR)  # as `from_dict` does: "/" is in path names


def _core_request(operation: Any, request: Any) -> _Request:
    from openapi_core.datatypes import RequestParameters
    from werkzeug.datastructures import Headers, ImmutableMultiDict

    parts = urlsplit(request.url)
    headers = Headers(list(request.headers))
    parameters = RequestParameters(
        query=ImmutableMultiDict(parse_qsl(parts.query, keep_blank_values=True)),
        header=headers,
        cookie=ImmutableMultiDict(_cookies(headers.get("cookie", ""))),
        path=dict(getattr(request, "path_values", {}) or {}),
    )
    content_type = (headers.get("content-type") or "").lower()
    return _Request(
        _HOST, parts.path, operation.path, operation.method, parameters, request.content, content_type
    )


def _cookies(header: str) -> list[tuple[str, str]]:
    pairs = []
    for piece in header.split(";"):
        name, sep, value = piece.strip().partition("=")
        if sep and name:
            pairs.append((name, unquote(value)))
    return pairs


def describe(exc: BaseException) -> str:
    """One line for an openapi-core finding: what is wrong and where, from the schema errors."""
    cause = exc.__cause__ or exc.__context__
    errors = getattr(cause, "schema_errors", None) or getattr(exc, "schema_errors", None)
    head = _head(exc, cause)
    if errors:
        details = "; ".join(f"{schema_message(e)}{_at(e)}" for e in list(errors)[:5])
        return f"{head}: {details}"
    if cause is not None and type(cause).__name__ == "CastError":
        value = json_spelling(getattr(cause, "value", ""))
        return f"{head}: {value} is not a valid {getattr(cause, 'type', 'value')}"
    if cause is not None and str(cause) and str(cause) not in str(exc):
        return f"{head}: {cause}"
    return head


def _head(exc: BaseException, cause: BaseException | None) -> str:
    name = type(exc).__name__
    if not name.startswith("Missing") and hasattr(exc, "location") and hasattr(exc, "name"):
        return f"{exc.location} parameter '{exc.name}'"
    if name in ("InvalidRequestBody", "RequestBodyValidationError"):
        return "body" if getattr(cause, "schema_errors", None) else str(exc) or "body"
    if name in ("InvalidData", "DataValidationError"):
        return "body" if getattr(cause, "schema_errors", None) else str(exc) or "body"
    return str(exc) or name


def _at(error: Any) -> str:
    path = "/".join(str(p) for p in getattr(error, "absolute_path", ()))
    return f" (at /{path})" if path else ""
