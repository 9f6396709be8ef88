"""A run interrupted (Ctrl-C: `KeyboardInterrupt`; a cancelled asyncio task: `CancelledError`) still
says what it did: as the interrupt unwinds the run, the scheduler records the step in flight failed
(`INTERRUPTED_STEP`) and each workflow execution it passes through is marked failed, kept by the runner
for the level above (`Runner.interrupted_run`), up to `api._execute`, which keeps the top one in the
run's result. `run()` then raises `RunInterrupted` carrying it; `arazzo run` writes its reports from it.
"""

from __future__ import annotations

import sys


def is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C, or the cancellation of the task running the run (asyncio.run cancels it on Ctrl-C)."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    asyncio = sys.modules.get("asyncio")  # a run that never imported asyncio cannot be cancelled by it
    return asyncio is not None and isinstance(exc, asyncio.CancelledError)
