"""A response body of 1 MiB or more, from a real local server, read by jiter (`bounds/json_text.py`, "Big
bodies"): the step's criteria, pointer outputs, contract check and failure messages are what the run
gives with json.loads (jiter made unimportable), duplicate keys, big ints and -0.0 included."""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

import pytest

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import run_json, workflow
from tests.servers import faults
from tests.untested import not_installed

jiter = pytest.importorskip("jiter", reason=not_installed("jiter", "big bodies read by jiter (bigjson)"))

ITEMS = 9_000  # ~1.2 MB: over json_text.FAST_FROM (1 MiB)

STEP = {
    "stepId": "read",
    "operationId": "listPets",
    "successCriteria": [
        {"condition": "$statusCode == 200"},
        {"context": "$response.body", "type": "jsonpath", "condition": "$.items[?@.price > 999.5]"},
        {"condition": "$response.body#/meta/total == 9000"},
    ],
    "outputs": {
        "total": "$response.body#/meta/total",
        "first": "$response.body#/items/0/id",
        "last": "$response.body#/items/8999/owner",
        "duplicate": "$response.body#/meta/page",
        "big": "$response.body#/meta/big",
        "zero": "$response.body#/meta/zero",
    },
}

ITEM_SCHEMA = {
    "type": "object",
    "required": ["id", "price"],
    "properties": {"id": {"type": "integer"}, "price": {"type": "number"}},
}
RESPONSE_SCHEMA = {
    "type": "object",
    "required": ["meta", "items"],
    "properties": {"items": {"type": "array", "items": ITEM_SCHEMA}},
}


def _body(bad_item: bool = False) -> bytes:
    items = []
    for index in range(ITEMS):
        price = 999.75 if index % 1000 == 7 else round((index * 7.31) % 999, 2)
        id_ = '"x"' if bad_item and index == 4321 else str(index)
        owner = f'{{"id":{index % 97},"email":"user{index % 97}@example.com","id":{index}}}'  # duplicate key
        items.append(
            f'{{"id":{id_},"name":"item-{index}","price":{price},"tags":["red","blue"],"owner":{owner}}}'
        )
    meta = '{"total":9000,"page":1,"big":123456789012345678901234567890,"zero":-0.0,"page":2}'
    return ('{"meta":' + meta + ',"items":[' + ",".join(items) + "]}").encode()


def _run(capsys: Any, write: Any, data: bytes, *argv: str) -> dict[str, Any]:
    openapi = copy.deepcopy(PETS_OPENAPI)
    ok = {"description": "ok", "content": {"application/json": {"schema": RESPONSE_SCHEMA}}}
    openapi["paths"]["/pets"]["get"]["responses"]["200"] = ok
    path = write(arazzo_doc(workflow("flow", STEP)), openapi=openapi)
    headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
    with faults.FaultServer() as server:
        server.script("/pets", faults.answer(200, headers, data))
        result = run_json(capsys, path, "--max-response-bytes", "4M", *argv, server=server)
    report = result.json["workflows"][0]["steps"][0]
    return {
        "code": result.code,
        **{key: report.get(key) for key in ("status", "outputs", "error", "warnings")},
    }


def _both(capsys: Any, write: Any, monkeypatch: Any, data: bytes, *argv: str) -> tuple[dict, dict, int]:
    """The run with jiter (counting its reads of the body) and without it (json.loads)."""
    reads = []
    real = jiter.from_json
    monkeypatch.setattr(
        jiter, "from_json", lambda text, **options: reads.append(len(text)) or real(text, **options)
    )
    fast = _run(capsys, write, data, *argv)
    monkeypatch.setitem(sys.modules, "jiter", None)  # `from jiter import ...` raises ImportError
    return fast, _run(capsys, write, data, *argv), sum(1 for size in reads if size == len(data))


def test_a_big_body_gives_the_outputs_and_criteria_json_loads_gives(capsys, write, monkeypatch):
    data = _body()
    assert len(data) > 2**20
    fast, eager, reads = _both(capsys, write, monkeypatch, data)
    assert reads == 1  # the body was read once, by jiter
    assert fast == eager
    expected = json.loads(data)
    assert fast["code"] == 0, fast
    assert fast["outputs"] == {
        "total": 9000,
        "first": 0,
        "last": {
            "id": 8999,
            "email": f"user{8999 % 97}@example.com",
        },  # the last value, at the first key's place
        "duplicate": 2,
        "big": 123456789012345678901234567890,
        "zero": -0.0,
    }
    assert fast["outputs"]["last"] == expected["items"][-1]["owner"]
    assert json.dumps(fast["outputs"]["zero"]) == "-0.0"


def test_a_big_body_failing_its_contract_fails_with_the_message_json_loads_gives(capsys, write, monkeypatch):
    fast, eager, reads = _both(capsys, write, monkeypatch, _body(bad_item=True), "--contract", "fail")
    assert reads == 1
    assert fast == eager
    assert fast["code"] == 1 and fast["status"] == "failed"
    assert fast["error"].startswith("HTTP 200: contract violated: "), fast["error"]
    assert '/items/4321/id: wanted type integer, got string "x"' in fast["error"], fast["error"]


@pytest.mark.skipif(not hasattr(sys, "set_int_max_str_digits"), reason="no int digit limit (3.10.6-)")
def test_a_big_body_holding_an_int_longer_than_the_process_allows_fails_as_json_loads_fails_it(
    capsys, write, monkeypatch
):
    """PYTHONINTMAXSTRDIGITS (or sys.set_int_max_str_digits) below jiter's own limit of 4300 digits:
    json.loads refuses a body holding a longer int, with Python's message; jiter read it, and the run then
    ended on a traceback where a report wrote it (str() of the int refused)."""
    data = _body().replace(b'"big":123456789012345678901234567890', b'"big":' + b"7" * 1000)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        fast, eager, _ = _both(capsys, write, monkeypatch, data)
    finally:
        sys.set_int_max_str_digits(limit)
    assert fast == eager
    assert fast["code"] == 1 and "Exceeds the limit (640 digits)" in fast["error"], fast
