"""`arazzo generate` bounded on hostile descriptions (issue 38, item 3): schemas that reference each
other with fan-out, and catastrophic `pattern`s, each input's example search within its budget
(`generate/example_budget.py`); `--deadline` honoured. CPU time is measured in the subprocess itself
(`resource.getrusage(RUSAGE_CHILDREN)`), never the wall clock."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any


def _hostile(depth: int, params: int = 0) -> dict[str, Any]:
    """A ~2 KB description: S0..S{depth-1} each `anyOf: [next, next]`, `allOf: [next]` and two
    properties of the next; the last a string with a catastrophic pattern; `params` query parameters
    whose example backtracks catastrophically on their pattern."""
    schemas: dict[str, Any] = {}
    for i in range(depth):
        following = {"$ref": f"#/components/schemas/S{i + 1}"}
        schemas[f"S{i}"] = {
            "type": "object",
            "anyOf": [following, following],
            "allOf": [following],
            "properties": {"a": following, "b": following},
        }
    schemas[f"S{depth}"] = {"type": "string", "pattern": "^(a+)+$"}
    parameters = [
        {
            "name": f"p{i}",
            "in": "query",
            "required": True,
            "schema": {"type": "string", "pattern": "^(a|aa)+$", "example": "a" * 40 + "!"},
        }
        for i in range(params)
    ]
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}
    operation = {
        "operationId": "op",
        "requestBody": body,
        "parameters": parameters,
        "responses": {"200": {"description": "ok"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "h", "version": "1"},
        "paths": {"/x": {"post": operation}},
        "components": {"schemas": schemas},
    }


def _generate(tmp_path: Path, description: dict[str, Any], *flags: str) -> tuple[Any, float]:
    """(the finished process, the CPU seconds it used)."""
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(description))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "generate", *flags, str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, spent


def test_fan_out_through_refs_is_generated_within_a_cpu_bound(tmp_path: Path) -> None:
    description = _hostile(18)
    assert len(json.dumps(description, separators=(",", ":"))) < 5000  # a few KB
    done, spent = _generate(tmp_path, description, "-o", str(tmp_path / "out.arazzo.yaml"))
    assert done.returncode == 0, done.stderr
    assert spent < 10.0  # about 1.5 s; before: unbounded (depth 16 took 32 s, depth 18 did not end)
    assert (
        "note: input 'body': no example was checked against its schema 'S0' "
        "(more than 20000 schema nodes); give it with --input body=..."
    ) in done.stderr
    assert "workflowId: op" in (tmp_path / "out.arazzo.yaml").read_text()


def test_catastrophic_patterns_of_twelve_parameters_are_bounded(tmp_path: Path) -> None:
    done, spent = _generate(tmp_path, _hostile(1, params=12), "-o", str(tmp_path / "out.arazzo.yaml"))
    assert done.returncode == 0, done.stderr
    assert spent < 20.0  # pattern time is wall time, shared (5 s per generate); before: ~10 s each
    assert "backtracks catastrophically" in done.stderr
    assert "Traceback" not in done.stderr
    assert "workflowId: op" in (tmp_path / "out.arazzo.yaml").read_text()


def test_generate_honours_its_deadline(tmp_path: Path) -> None:
    done, _ = _generate(tmp_path, _hostile(18), "--deadline", "0.000001")
    assert done.returncode == 2
    assert "run deadline of 1e-06 s exceeded" in done.stderr
    assert "Traceback" not in done.stderr


def test_generate_refuses_a_deadline_that_is_not_a_number(tmp_path: Path) -> None:
    done, _ = _generate(tmp_path, _hostile(1), "--deadline", "soon")
    assert done.returncode == 2
    assert "argument --deadline: expected a number of seconds, got 'soon'" in done.stderr


def test_an_example_search_past_the_deadline_says_so() -> None:
    from arazzo_runner.bounds.deadline import Deadline, arm
    from arazzo_runner.generate.examples import NOTHING, Examples

    examples = Examples({})
    assert examples.value({"type": "string"}, "name") == ("example", None)
    with arm(Deadline(0.0)):  # passed as soon as it is armed
        value, why = examples.value({"type": "string"}, "name")
    assert value is NOTHING
    assert why == "no example was checked against its schema (run deadline of 0 s exceeded)"
