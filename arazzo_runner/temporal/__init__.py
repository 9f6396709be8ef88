"""Runs on Temporal (`pip install arazzo-engine[temporal]`): `arazzo worker --temporal HOST:PORT` runs
workers, `arazzo run ... --temporal HOST:PORT` submits runs to them (docs/scale.md).

`workflow.py`: the engine inside a workflow, each HTTP exchange an activity (`exchange.py`);
`submit.py`: the client's side; `results.py`: a `RunResult` across the boundary; `codec.py`: payloads
encrypted with `ARAZZO_TEMPORAL_KEY`; `worker.py`: the worker process. Imported only by these paths:
`temporalio` is an optional dependency.
"""

from .submit import arun_on_temporal

__all__ = ["arun_on_temporal"]
