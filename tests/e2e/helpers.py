"""Helpers for the end-to-end HTTP and CLI tests: run `arazzo` in-process or as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arazzo_runner.cli import main

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class CliRun:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        """stdout parsed as exactly one JSON document (json.loads refuses trailing data)."""
        return json.loads(self.out)


def cli(capsys: Any, *argv: Any) -> CliRun:
    """`arazzo ARGV...` in-process; stdout and stderr captured."""
    capsys.readouterr()  # drop anything printed before
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return CliRun(code, out, err)


def run_json(capsys: Any, path: Any, *argv: Any, server: Any = None, source: str = "pets") -> CliRun:
    """`arazzo run PATH --format json [--server SOURCE=URL] ARGV...`; asserts a clean single document,
    on every exit code (on exit 2 it carries `errors`)."""
    extra = ["--server", f"{source}={server.url}"] if server is not None else []
    result = cli(capsys, "run", path, "--format", "json", *extra, *argv)
    data = result.json  # parses, or the test fails here
    if result.code == 2:
        assert data["errors"], data
    return result


def subprocess_cli(
    *argv: Any, env: dict[str, str] | None = None, timeout: float = 20, encoding: str = "utf-8"
) -> CliRun:
    """`python -m arazzo_runner.cli ARGV...` as a real child process (no TTY: stdout is a pipe); its
    output read as `encoding` (what PYTHONIOENCODING in `env` makes it write)."""
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        encoding=encoding,
        env=environment,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )
    assert "Traceback" not in proc.stderr
    return CliRun(proc.returncode, proc.stdout, proc.stderr)


def only_workflow(result: CliRun) -> dict[str, Any]:
    data = result.json
    assert len(data["workflows"]) == 1
    return data["workflows"][0]


def step(result: CliRun, index: int = 0) -> dict[str, Any]:
    return only_workflow(result)["steps"][index]


def op_step(step_id: str, operation_id: str, **fields: Any) -> dict[str, Any]:
    return {"stepId": step_id, "operationId": operation_id, **fields}


def workflow(workflow_id: str = "flow", *steps: dict, **fields: Any) -> dict[str, Any]:
    return {"workflowId": workflow_id, **fields, "steps": list(steps)}
