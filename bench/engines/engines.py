"""The engines compared, each as a command line and a reading of what it reported.

`verdict` is the engine's own word: passed, failed, refused (it said it would not run the workflow) or
error (it crashed: a traceback, an unexpected exit, no report at all); with a one-line reason and the
number of operation steps it reports having run successfully (`claimed`), which compare.py sets against
the requests that reached the mocks. compare.py turns "failed with no request sent" into refused.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bounded import Done

HERE = Path(__file__).resolve().parent
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_BOX = re.compile(r"^[\s║╔╗╚╝═│┌┐└┘├┤┬┴┼─]*$")
CRASH_TYPES = {
    "AttributeError",
    "TypeError",
    "KeyError",
    "IndexError",
    "NameError",
    "RecursionError",
    "AssertionError",
    "UnboundLocalError",
    "ZeroDivisionError",
    "ImportError",
    "ModuleNotFoundError",
}


@dataclass
class Job:
    document: Path
    data: dict[str, Any]  # the parsed document
    workflow_id: str
    inputs: Any
    inputs_path: Path
    families: dict[str, str]  # family name ("a", "kid/a") -> mock URL
    plain: dict[str, str]  # source name -> mock URL (the document's own sources win a clash)
    workdir: Path


@dataclass
class Verdict:
    status: str  # passed | failed | refused | error
    reason: str
    claimed: int | None = None
    details: list[str] = field(default_factory=list)  # every message of a refusal, when there are several


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(_ANSI.sub("", str(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def meaningful_lines(text: str) -> list[str]:
    lines = [_ANSI.sub("", line).strip() for line in text.splitlines()]
    skip = ("Deprecation warning", "Node.js 20", "Future Redocly", "You are using Node", "Update Node.js")
    return [
        ln
        for ln in lines
        if ln and not _BOX.match(ln) and not any(ln.strip("║ ").startswith(s) for s in skip)
    ]


def crashed(done: Done) -> Verdict | None:
    """The verdict of a run killed by the harness or ended by a Python traceback, else None."""
    if done.killed:
        return Verdict("error", done.killed)
    if "Traceback (most recent call last)" in done.stderr:
        return Verdict("error", "traceback: " + one_line(done.stderr.strip().splitlines()[-1]))
    return None


def operation_steps(data: dict[str, Any]) -> dict[tuple[str, str], bool]:
    """(workflowId, stepId) -> whether the step calls an operation (a workflowId step does not)."""
    kinds = {}
    for workflow in data.get("workflows") or []:
        for step in (workflow or {}).get("steps") or []:
            if isinstance(step, dict):
                kinds[(str(workflow.get("workflowId")), str(step.get("stepId")))] = "workflowId" not in step
    return kinds


class Engine:
    key = ""
    title = ""

    def problem(self) -> str | None:
        return None

    def version(self) -> str:
        return "?"

    def command(self, job: Job) -> list[str]:
        raise NotImplementedError

    def verdict(self, job: Job, done: Done) -> Verdict:
        raise NotImplementedError


class Ours(Engine):
    key, title = "ours", "this project"

    def __init__(self, executable: str) -> None:
        self.executable = shutil.which(executable) or executable

    def problem(self) -> str | None:
        return None if Path(self.executable).exists() else f"{self.executable} not found"

    def version(self) -> str:
        done = subprocess.run([self.executable, "--version"], capture_output=True, text=True)
        return one_line(done.stdout or done.stderr, 80) + f" ({self.executable}{self._checkout()})"

    def _checkout(self) -> str:
        """`, checkout DIR at BRANCH COMMIT` of the engine the executable runs (from its script's Python)."""
        try:
            first = Path(self.executable).read_bytes()[:300].split(b"\n")[0].decode()
            python = first[2:].strip() if first.startswith("#!") else sys.executable
            code = "import arazzo_runner, os; print(os.path.dirname(os.path.dirname(arazzo_runner.__file__)))"
            folder = subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()
            git = ["git", "-C", folder]
            branch = subprocess.run(
                [*git, "rev-parse", "--abbrev-ref", "HEAD"], capture_output=True, text=True
            )
            commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
            if branch.returncode or commit.returncode:
                return f", engine in {folder}" if folder else ""
            dirty = subprocess.run(
                [*git, "status", "--porcelain", "--", "arazzo_runner"], capture_output=True, text=True
            )
            mark = " + uncommitted changes" if dirty.stdout.strip() else ""
            return f", checkout {folder} at {branch.stdout.strip()} {commit.stdout.strip()}{mark}"
        except (OSError, ValueError):
            return ""

    def command(self, job: Job) -> list[str]:
        servers = [a for family, url in job.families.items() for a in ("--server", f"{family}={url}")]
        return [
            self.executable,
            "run",
            str(job.document),
            "--workflow",
            job.workflow_id,
            "--inputs",
            str(job.inputs_path),
            *servers,
            "--format",
            "json",
        ]

    @staticmethod
    def _claimed(workflow: dict[str, Any]) -> int:
        count = 0
        for step in workflow.get("steps") or []:
            if step.get("status") == "passed" and step.get("request"):
                count += 1
            for child in [*(step.get("earlierWorkflows") or []), step.get("workflow")]:
                count += Ours._claimed(child) if isinstance(child, dict) else 0
        return count + sum(Ours._claimed(d) for d in workflow.get("dependencies") or [])

    @staticmethod
    def _finding(job: Job, error: Any) -> str:
        """`line:col rule: message`, naming the workflow the finding is in when it is another one."""
        if not isinstance(error, dict):
            return one_line(str(error))
        where = ":".join(str(error[k]) for k in ("line", "column") if error.get(k) is not None)
        rule = f" {error['rule']}" if error.get("rule") else ""
        found = re.match(r"/workflows/(\d+)", str(error.get("path") or ""))
        workflows = job.data.get("workflows") or []
        other = ""
        if found and int(found.group(1)) < len(workflows):
            owner = str((workflows[int(found.group(1))] or {}).get("workflowId"))
            other = f" [in workflow '{owner}']" if owner != job.workflow_id else ""
        return one_line(f"{where}{rule}{other}: {error.get('message', '')}", 400)

    def verdict(self, job: Job, done: Done) -> Verdict:
        if broken := crashed(done):
            return broken
        try:
            report = json.loads(done.stdout)
        except ValueError:
            lines = meaningful_lines(done.stderr)
            status = "refused" if done.code == 2 else "error"
            return Verdict(status, f"exit {done.code}, no JSON: " + one_line(lines[-1] if lines else ""))
        if done.code not in (0, 1, 2):
            return Verdict("error", f"exit {done.code}")
        errors = report.get("errors") or []
        if done.code == 2:
            details = [self._finding(job, e) for e in errors] or ["exit 2"]
            more = f" (+{len(details) - 1} more)" if len(details) > 1 else ""
            return Verdict("refused", one_line(details[0]) + more, details=details[:20])
        workflows = report.get("workflows") or []
        mine = next((w for w in workflows if w.get("workflowId") == job.workflow_id), None)
        claimed = sum(self._claimed(w) for w in workflows)
        if mine is None:
            return Verdict("refused", "workflow missing from the report", claimed)
        if mine.get("status") == "passed":
            return Verdict("passed", "passed", claimed)
        error = mine.get("error") or {}
        message = error.get("message") if isinstance(error, dict) else str(error)
        step = f"{error.get('stepId')}: " if isinstance(error, dict) and error.get("stepId") else ""
        if mine.get("status") == "failed":
            return Verdict("failed", one_line(step + str(message)), claimed)
        # any other status ("not run", say): refused, with the findings the report gives for it
        findings = mine.get("findings") or mine.get("errors") or []
        details = [self._finding(job, f) for f in findings] if isinstance(findings, list) else []
        details = details or [one_line(step + str(message))]
        more = f" (+{len(details) - 1} more)" if len(details) > 1 else ""
        return Verdict(
            "refused", one_line(f"{mine.get('status')}: {details[0]}") + more, claimed, details[:20]
        )
