"""A run's result across the Temporal boundary: the worker's `RunResult` as JSON-safe values, and back
into the same objects on the client, which writes its console, JSON, JUnit, HAR and HTML outputs from
them as a local run does.

Records are encoded by their fields, each class by name from a fixed list (nothing else is rebuilt:
the payload comes from the Temporal service, and is read by the one rule for untrusted data: only
these shapes). Every plain dict is wrapped, so a response body holding a key like `$r` stays data.
An output derived from a secret travels as `***` (every writer prints it so anyway), and every text
and body is masked with the run's secrets (`Masker`: a credential the worker added, a token it learned)
before it leaves the worker: they never enter Temporal's history through a result.
"""

from __future__ import annotations

import base64
from typing import Any

from ..executor.values import Outputs
from ..http.exchange import Exchange
from ..masking.members import masked_at
from ..records import fields
from ..result import LeftOut, Message, NullOutput, ResponseExcerpt, RunResult, StepResult, WorkflowResult

_RECORDS: dict[str, Any] = {  # the record classes a result holds, by name
    cls.__name__: cls for cls in (RunResult, WorkflowResult, StepResult, Exchange, ResponseExcerpt, Message)
}
_STRINGS: dict[str, type] = {"NullOutput": NullOutput, "LeftOut": LeftOut}
MASK = "***"


class ResultError(ValueError):
    """A payload that is not an encoded result (another version's, or not ours)."""


def encode(value: Any, masker: Any = None) -> Any:
    """`value` (a `RunResult` and what it holds) as JSON values, its texts and bodies masked by `masker`."""
    if masker is None:
        from ..masking.secrets import Masker

        masker = Masker.over(set())
    return _encode(value, masker)


def _encode(value: Any, masker: Any) -> Any:
    encode = lambda v: _encode(v, masker)  # noqa: E731
    if value is None or type(value) in (bool, int, float):
        return value
    if isinstance(value, str):
        name = type(value).__name__
        text = masker.text(str(value))
        return {"$s": name, "v": text} if name in _STRINGS else text
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value).decode("utf-8", "surrogateescape")
        masked = (
            masker.text(text).encode("utf-8", "surrogateescape") if masker.touches(text) else bytes(value)
        )
        return {"$b": base64.b64encode(masked).decode("ascii")}
    if isinstance(value, Outputs):
        members = value.members  # secret members of an output that reads `$inputs` whole: never kept
        items = [
            [k, MASK if k in value.secret else encode(masked_at(v, members.get(k, ()), MASK))]
            for k, v in value.items()
        ]
        return {"$o": items, "missing": dict(value.missing), "secret": sorted(value.secret)}
    if isinstance(value, dict):
        return {"$d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"$t": [encode(v) for v in value]}
    name = type(value).__name__
    if _RECORDS.get(name) is type(value):
        return {"$r": name, "f": {f: encode(getattr(value, f)) for f in fields(value)}}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)):  # a subclass (an IntEnum): its plain value
        return float(value) if isinstance(value, float) else int(value)
    return {"$repr": repr(value)}  # nothing else is expected in a result; never rebuilt as an object


def decode(value: Any) -> Any:
    """`encode`'s values back into the objects."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$d" in value:
        return {_key(decode(k)): decode(v) for k, v in _pairs(value["$d"])}
    if "$b" in value:
        return base64.b64decode(str(value["$b"]))
    if "$t" in value:
        return tuple(decode(v) for v in _list(value["$t"]))
    if "$s" in value:
        cls = _STRINGS.get(value["$s"])
        if cls is None:
            raise ResultError(f"unknown string kind {value['$s']!r}")
        return cls(str(value.get("v", "")))
    if "$o" in value:
        outputs = Outputs((_key(k), decode(v)) for k, v in _pairs(value["$o"]))
        missing = value.get("missing")
        outputs.missing = {str(k): str(v) for k, v in missing.items()} if isinstance(missing, dict) else {}
        outputs.secret = {str(s) for s in _list(value.get("secret", []))}
        return outputs
    if "$r" in value:
        cls = _RECORDS.get(value["$r"])
        if cls is None:
            raise ResultError(f"unknown record {value['$r']!r}")
        record = cls.__new__(cls)
        given = value.get("f")
        given = given if isinstance(given, dict) else {}
        for name in fields(cls):
            if name in given:
                object.__setattr__(record, name, decode(given[name]))
            else:  # a field this side has and the worker's version did not send: its default
                object.__setattr__(record, name, getattr(cls(*_required(cls)), name))
        return record
    if "$repr" in value:
        return str(value["$repr"])
    raise ResultError("not an encoded result")


def _required(cls: type) -> tuple[Any, ...]:
    """Placeholder values of a record's required fields, to read a default from a fresh instance."""
    return {RunResult: (), WorkflowResult: ("",), StepResult: ("",), ResponseExcerpt: (0,),
            Exchange: ("", "", [], None), Message: ("", "", "", "")}[cls]  # fmt: skip


def _pairs(value: Any) -> list[Any]:
    return [p for p in _list(value) if isinstance(p, list) and len(p) == 2]


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ResultError("not an encoded result")
    return value


def _key(key: Any) -> Any:
    return key if isinstance(key, (str, int, float, bool, tuple)) or key is None else str(key)
