"""The mutants of the newest code (issues 36-42): the scheduler, steps side by side, loops, the run
journal, the contract check, HAR replay, request rates, body decoding, the JSON rule, the LSP server.
Rows: (file, original snippet, mutated snippet, the bug in words[, tests][, equivalent: why])."""

from __future__ import annotations

from tests.mutation.mutants import Package

A = "arazzo_runner/"
E = "arazzo_runner/executor/"

SCHEDULER = Package(
    "executor scheduler",
    ("tests/e2e/test_exec_actions.py", "tests/e2e/test_exec_nested.py", "tests/e2e/test_exec_runs.py"),
    (
        (
            E + "scheduler.py",
            'return self.plan.position[decision.target or ""]',
            'return self.plan.position[decision.target or ""] + 1',
            "a goto to a step skips that step",
        ),
        (
            E + "scheduler.py",
            "(ended by onFailure '{decision.action.name}')\")",
            '")',
            "a workflow ended by an onFailure action does not say which",
        ),
        (
            E + "scheduler.py",
            "                    await self._arm()\n                host.steps_run += 1\n",
            "                    await self._arm()\n",
            "steps run in line are not counted against --max-steps",
        ),
        (
            E + "scheduler.py",
            "    result.steps[-1].add_workflow(child)  # after any the step ran itself",
            "    pass  # after any the step ran itself",
            "the run of a goto's workflow missing from the step's record",
        ),
        (
            E + "scheduler.py",
            "    if not child.passed:\n        message = (child.error or {})",
            "    if not result.passed:\n        message = (child.error or {})",
            "a goto's workflow that fails leaves the workflow passed",
        ),
    ),
)

CONCURRENT = Package(
    "executor concurrent",
    ("tests/e2e/test_exec_parallel.py",),
    (
        (
            E + "concurrent.py",
            "            if any(n in self.ids and n not in self.done for n in cstep.needs):\n"
            "                continue",
            "            if False:\n                continue",
            "a step starts beside the step it depends on, before it ended",
        ),
        (
            E + "concurrent.py",
            "            if len(self.running) >= limit:",
            "            if len(self.running) > limit:",
            "one step more than --parallel at once",
        ),
        (
            E + "concurrent.py",
            "if host.steps_run + ahead >= step_budget(host):",
            "if host.steps_run >= step_budget(host):",
            "a later step takes the last of --max-steps before the earlier ones waiting",
        ),
        (
            E + "concurrent.py",
            '                if outcome[1].kind != "next":\n                    self.failed = True\n',
            "",
            "steps go on starting after a step of the stretch failed",
        ),
        (
            E + "concurrent.py",
            "        for position in sorted(self.finished):\n            step_result, _, ctx",
            "        for position in self.finished:\n            step_result, _, ctx",
            "steps recorded in the order they ended, not the run order",
        ),
    ),
)

LOOP = Package(
    "executor loop",
    ("tests/e2e/test_exec_loops.py",),
    (
        (
            E + "steps/loop.py",
            "    if len(items) > limit:",
            "    if len(items) >= limit:",
            "exactly --max-loop-items items refused",
        ),
        (
            E + "steps/loop.py",
            'f"item {index} (of {total}): {why}"',
            'f"item {index + 1} (of {total}): {why}"',
            "a failed item named by the next index",
        ),
        (
            E + "steps/loop.py",
            "        if failure is None and why is not None:",
            "        if why is not None:",
            "the step fails with the last failed item, not the first",
        ),
        (
            E + "steps/loop.py",
            "    order = sorted(ran)\n",
            "    order = list(ran)\n",
            "the outputs' arrays in the order the items ended (under --parallel), not item order",
        ),
        (
            E + "steps/loop.py",
            "host.loop_allowance += len(items) * steps_once_through(",
            "host.loop_allowance += steps_once_through(",
            "a loop's items count against --max-steps as if one",
        ),
    ),
)

_JOURNAL = ("tests/unit/test_journal_store.py", "tests/e2e/test_journal_replay.py")
JOURNAL = Package(
    "executor journal",
    _JOURNAL,
    (
        (
            E + "journal/store.py",
            "if differ and not found and not self._sent:",
            "if differ and not found:",
            "a journal whose run sent (and recorded nothing yet) taken over by another run",
        ),
        (
            E + "journal/store.py",
            "os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)",
            "os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)",
            "a new journal (it holds tokens) readable by others",
        ),
        (
            E + "journal/store.py",
            "        if mode & 0o077:",
            "        if mode & 0o007:",
            "an existing journal readable by its group left so",
        ),
        (
            E + "journal/store.py",
            'if meta.get("format") != FORMAT:',
            'if meta.get("format") not in (FORMAT, "1"):',
            "a journal of the older format read",
        ),
        (
            E + "journal/store.py",
            'self.seq = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM exchanges").fetchone()[0])',
            "self.seq = 0",
            "a resumed run numbers its events from 0 again",
        ),
        (
            E + "journal/scope.py",
            "        if found is not None and found[0] == digest:",
            "        if found is not None:",
            "a recorded answer replayed for another request",
        ),
        (
            E + "journal/scope.py",
            'return hashlib.sha256(f"{self.run_id}\\n{scope.key}".encode()).hexdigest()[:32]',
            'return hashlib.sha256(f"{scope.key}".encode()).hexdigest()[:32]',
            "idempotency keys the same in every run",
        ),
    ),
)

_CONTRACT = ("tests/unit/http/test_contract_schema.py", "tests/e2e/test_contract.py")
CONTRACT = Package(
    "http contract",
    _CONTRACT,
    (
        (
            A + "http/contract.py",
            'for key in (str(status), f"{status // 100}XX", "DEFAULT"):',
            'for key in (str(status), "DEFAULT", f"{status // 100}XX"):',
            "`default` preferred to `4XX` for a 404",
        ),
        (
            A + "http/contract.py",
            "    return min(ranked)[1] if ranked else None",
            "    return ranked[0][1] if ranked else None",
            "`*/*` chosen over the exact media type when listed first",
        ),
        (
            A + "http/contract.py",
            'if isinstance(spec, dict) and str(name).lower() != "content-type":',
            "if isinstance(spec, dict):",
            "a documented Content-Type header checked (OpenAPI ignores it)",
        ),
        (
            A + "http/contract.py",
            'if spec.get("required") is True:',
            'if spec.get("required") is not False:',
            "an optional header that is missing reported",
        ),
        (
            A + "http/contract.py",
            "        if response.error or self.fixed:\n            return found",
            "        if self.fixed:\n            return found",
            "a body contradicting its type checked again against the schema",
        ),
    ),
)

PACKAGES = [SCHEDULER, CONCURRENT, LOOP, JOURNAL, CONTRACT]
