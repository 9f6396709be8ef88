"""`ArazzoUser`: a Locust user whose task is an Arazzo workflow, run by the engine.

    from locust import between
    from arazzo_runner.locust import ArazzoUser

    class Shopper(ArazzoUser):
        document = "shop.arazzo.yaml"              # relative to this locustfile
        workflows = {"checkout": 3, "browse": 1}    # weights (a str or a list: equal weights)
        inputs = {"currency": "EUR"}
        inputs_file = "customers.jsonl"             # JSON Lines: a row per user, merged over `inputs`
        servers = {"shop": "http://localhost:8080"} # or Locust's --host, for a document with one source
        auth = {"bearer": os.environ["SHOP_TOKEN"]}  # as `arazzo run --auth`
        options = {"timeout": 10}                   # any other RunOptions field
        wait_time = between(0.5, 2)

Each task iteration runs one workflow, chosen by weight; every executed step fires a
Locust request event `<workflowId>.<stepId>` and the run one `workflow <workflowId>`
(`arazzo_runner.loadtest.reporting`). The document is loaded, compiled and checked (every workflow with
every row) once per class and process, when Locust starts (its `init` event) or at the first user;
each user has its own options, secrets and pooled client, kept across its iterations; each iteration
starts with no cookies, as a run of `arazzo run` does. A run goes in the user's own greenlet, on
geventhttpclient (`greenlet_run.py`, `fast_http.py`: the client of Locust's `FastHttpUser`, sending the
requests httpx would send), unless it reaches an AsyncAPI step or the class sets `fast_http = False`:
then on the process's asyncio loop with httpx (`bridge.py`). `rows_per = "iteration"` takes the next
row for every run instead of one row per user. A subclass may define its own tasks and call
`self.run_workflow(...)` in them.
"""

from __future__ import annotations

import functools
import gc
import logging
import sys
from pathlib import Path
from typing import Any, ClassVar

import gevent
import locust
from locust import User

from ...errors import ArazzoError
from ...result import WorkflowResult
from ..plan import LoadPlan
from ..reporting import RequestEvents
from . import greenlet_run
from .bridge import loop_bridge
from .greenlet_run import FastUser, Prepared

logger = logging.getLogger(__name__)


class ArazzoUser(User):
    abstract = True
    document: ClassVar[Any] = None  # a path (relative to the locustfile) or a loaded Workspace
    workflows: ClassVar[Any] = None  # id, [ids] or {id: weight}; None: every workflow of the document
    inputs: ClassVar[dict[str, Any]] = {}
    inputs_file: ClassVar[str | None] = None  # JSON Lines rows (`arazzo run --inputs-file`)
    rows: ClassVar[list[dict[str, Any]] | None] = None  # or the rows themselves
    rows_per: ClassVar[str] = "user"  # "user": a row per user; "iteration": the next row every run
    servers: ClassVar[dict[str, str]] = {}
    auth: ClassVar[dict[str, str]] = {}
    options: ClassVar[dict[str, Any]] = {}  # other RunOptions fields: timeout, contract, ...
    mask: ClassVar[bool] = True  # False: secrets in clear in the events (local debugging only)
    fast_http: ClassVar[bool | None] = None  # False: runs on asyncio with httpx; None: ARAZZO_LOAD_HTTP
    # set on each subclass when first used (its plan; its prepared runs): declared for type checkers
    _arazzo_plan: ClassVar[Any]
    _arazzo_prepared: ClassVar[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [task for task in cls.tasks if task is not _run_chosen_workflow]
        cls.tasks = own or [_run_chosen_workflow]  # tasks of its own (or a base's) replace the default
        if not cls.__dict__.get("abstract", False):
            locust.events.init.add_listener(functools.partial(_prepare_at_init, cls))
            locust.events.quitting.add_listener(_last_csv_rows)
            locust.events.quitting.add_listener(_http_lanes)

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        self._arazzo: _UserState | None = None

    @classmethod
    def plan(cls) -> LoadPlan:
        """The class's plan, built and checked on first use in the process (then shared)."""
        plan = cls.__dict__.get("_arazzo_plan")
        if plan is None:
            if cls.document is None:
                raise ArazzoError(f"{cls.__name__}: set `document` to the Arazzo document to run")
            plan = LoadPlan.build(
                cls.document,
                cls.workflows,
                inputs=cls.inputs,
                inputs_file=cls.inputs_file,
                rows=cls.rows,
                rows_per=cls.rows_per,
                servers=cls.servers,
                auth=cls.auth,
                options=cls.options,
                host=cls.host,
                mask=cls.mask,
                base=_folder_of(cls),
            )
            plan.check()
            cls._arazzo_plan = plan
        return plan

    def on_stop(self) -> None:
        state, self._arazzo = self._arazzo, None
        if state is not None and state.options.client is not None:
            loop_bridge().schedule(state.options.client.aclose())
        if state is not None and state.fast is not None:
            state.fast.close()

    def run_workflow(self, workflow_id: str | None = None, inputs: dict[str, Any] | None = None) -> Any:
        """Run one workflow (by default one chosen by weight) with this user's row, `inputs` over them;
        fire its events and return its `WorkflowResult` (None when the run could not start: a failure
        event says why)."""
        plan = self.plan()
        state = self._arazzo_user(plan)
        chosen = workflow_id or plan.choose()
        row = state.row if plan.rows_per == "user" else plan.take_row(_worker_index(self.environment))
        run_inputs = plan.inputs_for(chosen, row)
        if inputs:
            run_inputs = {**run_inputs, **inputs}
        if state.fast is not None:
            try:
                result = state.fast.run(plan, _prepared(type(self)), state.options, chosen, row, run_inputs,
                                        bool(inputs))  # fmt: skip
            except ArazzoError as exc:  # inputs a task gave that the document refuses: a failed run
                state.events.workflow(chosen, None, str(exc))
                return None
            if result is not None:
                workflow: WorkflowResult | None = result.workflow(chosen)
                state.events.workflow(chosen, workflow)
                return _counted(plan, workflow)
        return _counted(plan, loop_bridge().run(_iteration(plan, state, chosen, run_inputs)))

    def _arazzo_user(self, plan: LoadPlan) -> _UserState:
        if self._arazzo is None:
            events = RequestEvents(self.environment.events.request.fire, None)
            options = plan.new_options(on_event=events)
            events.masker = plan.masker(options)
            row = plan.take_row(_worker_index(self.environment)) if plan.rows_per == "user" else None
            fast = greenlet_run.fast_user(options.timeout) if greenlet_run.wanted(self.fast_http) else None
            self._arazzo = _UserState(options, events, row, fast)
        return self._arazzo


def _counted(plan: LoadPlan, workflow: WorkflowResult | None) -> WorkflowResult | None:
    """The run, its exchanges counted for `arazzo load --coverage`."""
    if plan.coverage is not None and workflow is not None:
        plan.coverage.add([workflow])
    return workflow


class _UserState:
    """One user's own part: its options (client, secrets), event handler, row and fast path's part."""

    __slots__ = ("events", "fast", "options", "row")

    def __init__(self, options: Any, events: RequestEvents, row: int | None, fast: FastUser | None) -> None:
        self.options, self.events, self.row, self.fast = options, events, row, fast


def _prepared(cls: type[ArazzoUser]) -> Prepared:
    """The runs of the class's plan checked so far in this process (`greenlet_run.Prepared`)."""
    found = cls.__dict__.get("_arazzo_prepared")
    if found is None:
        found = cls._arazzo_prepared = Prepared()
    return found


async def _iteration(plan: LoadPlan, state: _UserState, workflow_id: str, inputs: dict[str, Any]) -> Any:
    """One run on the loop: the user's pooled client (made on the loop at its first run), no cookies
    left from the last run, the workflow's event after the steps'."""
    from ...api import arun
    from ...http.transport import new_client

    options = state.options
    if options.client is None:
        options.client = new_client(options.timeout)
    else:
        options.client.cookies.clear()
    try:
        result = await arun(plan.workspace, workflow_id, inputs, options=options)
    except ArazzoError as exc:  # inputs a task gave that the document refuses: a failed run, said why
        state.events.workflow(workflow_id, None, str(exc))
        return None
    workflow: WorkflowResult | None = result.workflow(workflow_id)
    state.events.workflow(workflow_id, workflow)
    return workflow


def _run_chosen_workflow(user: ArazzoUser) -> None:
    user.run_workflow()


def _prepare_at_init(cls: type[ArazzoUser], environment: Any = None, **_: Any) -> None:
    """Load and check the class's document when Locust starts: a mistake stops the test before any user
    runs, with the message alone (exit code 2), not one traceback per user."""
    quiet_http_logs()
    try:
        cls.plan()
    except ArazzoError as exc:
        logger.error("%s: %s", cls.__name__, exc)
        raise SystemExit(2) from None
    gc.collect()
    gc.freeze()  # the loaded documents, the engine and Locust: left out of the collections under load
    # gevent's clock is read when its loop turns, which it has not done since Locust was imported: a
    # timer set now (Locust's own --run-time) would count the time all this took as already passed
    gevent.get_hub().loop.update_now()


def _last_csv_rows(environment: Any = None, **_: Any) -> None:
    """Locust rewrites its CSV statistics (`--csv`) every second and closes the files at exit without a
    last write, so the CSV would miss what happened in the last second: the workflows that finished
    while the users stopped. Waiting one interval as Locust quits lets its writer write them (once)."""
    options = getattr(environment, "parsed_options", None)
    if not getattr(options, "csv_prefix", None) or getattr(environment, "_arazzo_csv_written", False):
        return
    from locust.stats import CSV_STATS_INTERVAL_SEC

    environment._arazzo_csv_written = True
    gevent.sleep(CSV_STATS_INTERVAL_SEC + 0.25)


def _http_lanes(environment: Any = None, **_: Any) -> None:
    """Say once, as the test ends, how many requests went on each HTTP client (`greenlet_run`)."""
    line = greenlet_run.lanes_line()
    if line is not None and not getattr(environment, "_arazzo_lanes_told", False):
        environment._arazzo_lanes_told = True
        logger.info(line)


def quiet_http_logs() -> None:
    """httpx logs every request at INFO, the level Locust sets for its own lines: thousands of lines a
    second under load. Its loggers go to WARNING, unless the locustfile set their level itself."""
    for name in ("httpx", "httpcore"):
        chosen = logging.getLogger(name)
        if chosen.level == logging.NOTSET:
            chosen.setLevel(logging.WARNING)


def _worker_index(environment: Any) -> int:
    return max(0, getattr(environment.runner, "worker_index", 0) or 0)


def _folder_of(cls: type) -> Path | None:
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    return Path(path).resolve().parent if path else None
