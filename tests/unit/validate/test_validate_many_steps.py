"""A workflow of many steps (issue 38, item 2): validation is linear in its steps, and a workflow over
the limit of steps (`model.builder.MAX_WORKFLOW_STEPS`) is a located finding, not a crash or a run.

Costs are in CPU time of this process (`tests/cputime.py`), compared between two sizes (linear is 4x
from 1,000 to 4,000 steps, quadratic 16x), and memory is the peak resident size of a subprocess."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arazzo_runner.model.builder import MAX_WORKFLOW_STEPS
from arazzo_runner.validate import validate_path
from tests.cputime import cpu_bound

API = {
    "openapi": "3.1.0",
    "info": {"title": "a", "version": "1"},
    "paths": {
        "/x": {
            "get": {
                "operationId": "op",
                "parameters": [{"name": "x", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _step(i: int, n: int, shape: str) -> dict[str, Any]:
    step: dict[str, Any] = {"stepId": f"s{i}", "operationId": "op", "outputs": {"v": "$statusCode"}}
    following = f"s{i + 1}"
    if shape == "reads-the-next" and i < n - 1:  # 1.1: each an error, each retracted by nothing
        step["parameters"] = [{"name": "x", "in": "query", "value": f"$steps.{following}.outputs.v"}]
    elif shape == "depends-on-the-next" and i < n - 1:  # a chain as deep as the workflow
        step["dependsOn"] = [following]
    elif shape == "goto-a-missing-step":  # each a finding with a did-you-mean among every step
        step["onSuccess"] = [{"name": "g", "type": "goto", "stepId": f"missing{i}"}]
    elif shape == "goto-the-next":  # the control flow round every step
        step["onSuccess"] = [{"name": "g", "type": "goto", "stepId": f"s{(i + 1) % n}"}]
    elif shape == "schema-errors":  # 1.0: `dependsOn` on a step is an unexpected field
        step["dependsOn"] = [f"s{i - 1}"] if i else []
    return step


def _write(folder: Path, n: int, shape: str) -> Path:
    version = "1.0.1" if shape in ("schema-errors", "goto-the-next") else "1.1.0"
    doc = {
        "arazzo": version,
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "api.json", "type": "openapi"}],
        "workflows": [{"workflowId": "w", "steps": [_step(i, n, shape) for i in range(n)]}],
    }
    folder.mkdir(exist_ok=True)
    (folder / "api.json").write_text(json.dumps(API))
    path = folder / f"{shape}-{n}.arazzo.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path


def _cpu(path: Path) -> tuple[float, Any]:
    """The CPU time of one validation, the objects already alive left out of the garbage collector's
    passes (`gc.freeze`): late in a serial run the pytest process holds millions of them, and each full
    collection the larger document triggers would scan them all (seen on CI: 9.3x for 4x the steps)."""
    gc.collect()
    gc.freeze()
    try:
        started = time.process_time()
        report = validate_path(path)
        return time.process_time() - started, report
    finally:
        gc.unfreeze()


SHAPES = ["reads-the-next", "depends-on-the-next", "goto-a-missing-step", "goto-the-next", "schema-errors"]


@pytest.mark.parametrize("shape", SHAPES)
def test_validation_cost_grows_linearly_with_the_steps(tmp_path: Path, shape: str) -> None:
    small, large = _write(tmp_path / "s", 1000, shape), _write(tmp_path / "l", 4000, shape)
    validate_path(small)  # imports and caches out of the measurement
    cost_small = min(_cpu(small)[0] for _ in range(2))
    with cpu_bound(80.0, f"validating 4,000 steps twice ({shape})"):
        # the better of two, as for the small one: a first pass over a new size pays one-time costs
        # (seen on CI late in a serial run: 0.49 s, then ~0.26 s; the small one 0.059 s)
        cost_large, report = min((_cpu(large) for _ in range(2)), key=lambda measured: measured[0])
    assert report.readable
    assert not [f for f in report.findings if f.rule == "document-shape"]
    # linear is 4x; quadratic 16x (the small size's fixed costs make the linear ratio smaller still)
    assert cost_large < 8 * max(cost_small, 0.05), (shape, cost_small, cost_large)


def test_every_finding_of_a_long_workflow_is_kept(tmp_path: Path) -> None:
    """The cheap retract (one look-up, not a scan of every finding) withdraws nothing it should keep."""
    report = validate_path(_write(tmp_path, 300, "reads-the-next"))
    later = [f for f in report.findings if f.rule == "output-forward-reference"]
    assert len(later) == 299
    assert later[0].message.startswith("$steps.s1.outputs.v: step 's1' comes after step 's0'")
    report = validate_path(_write(tmp_path, 300, "goto-a-missing-step"))
    missing = [f for f in report.findings if f.rule == "goto-target-exists"]
    assert len(missing) == 300
    assert missing[7].message == "goto target stepId 'missing7' is not a step of workflow 'w'"


_MEASURE = """
import resource, sys, time
from arazzo_runner.validate import validate_path
validate_path(sys.argv[2])  # imports and caches out of the measurement
started = time.process_time()
report = validate_path(sys.argv[1])
spent = time.process_time() - started
# this process's own peak (VmHWM): ru_maxrss keeps the forking parent's peak across exec on Linux, and
# the pytest process that started this one may have grown far past the bound (seen: 667 MB)
peak = next((int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")), None)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss if peak is None else peak
print(spent, peak, len(report.findings))
"""


def test_ten_thousand_steps_validate_within_cpu_and_memory_bounds(tmp_path: Path) -> None:
    large = _write(tmp_path, MAX_WORKFLOW_STEPS, "depends-on-the-next")  # was a RecursionError
    small = _write(tmp_path, 10, "depends-on-the-next")
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(large), str(small)], capture_output=True, text=True, check=True
    ).stdout.split()
    spent, peak_kib, findings = float(out[0]), int(out[1]), int(out[2])
    assert findings == 0
    assert spent < 8.0, out  # about 2 s on a laptop
    assert peak_kib < 200 * 1024, out


def test_a_workflow_over_the_step_limit_is_a_located_finding(tmp_path: Path) -> None:
    path = _write(tmp_path, MAX_WORKFLOW_STEPS + 1, "goto-the-next")
    report = validate_path(path)
    [finding] = [f for f in report.findings if f.rule == "document-shape"]
    assert finding.path == f"/workflows/0/steps/{MAX_WORKFLOW_STEPS}"
    assert finding.severity == "error"
    assert finding.message == (
        f"the workflow has {MAX_WORKFLOW_STEPS + 1} steps, more than the limit of {MAX_WORKFLOW_STEPS} "
        "steps per workflow: it is not run"
    )
    assert finding.line == 1 and finding.column > 1  # where that step starts in the one-line JSON
    run = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "run", "--dry-run", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0
    assert "more than the limit of 10000 steps per workflow" in run.stdout + run.stderr
    assert "Traceback" not in run.stderr
