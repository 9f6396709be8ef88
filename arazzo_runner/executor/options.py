"""Options of a run; every field has a sensible default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..bounds.limits import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_LOOP_ITEMS,
    DEFAULT_MAX_RETRY_TOTAL,
    DEFAULT_MAX_STEPS,
)
from ..records import Record, field
from .events import EventHandler

DEFAULT_TIMEOUT = 30.0


class RunOptions(Record):
    servers: dict[str, str] = field(default_factory=dict)  # source name -> base URL (`--server`)
    server_variables: dict[str, str] = field(default_factory=dict)  # `name` or `source.name` -> value
    timeout: float | None = DEFAULT_TIMEOUT  # seconds per HTTP exchange
    max_steps: int = DEFAULT_MAX_STEPS  # step executions per run, a guard against goto loops
    max_retry_delay: float = 300.0  # an upper bound on any single retry wait
    max_body: int = DEFAULT_MAX_BODY  # response bytes read per exchange; beyond, the body is not kept
    max_attempts: int = DEFAULT_MAX_ATTEMPTS  # attempts per step execution, whatever `retryLimit` says
    max_retry_total: float = DEFAULT_MAX_RETRY_TOTAL  # seconds a step may spend retrying, waits included
    deadline: float | None = None  # seconds for the whole run; then the in-flight request is cancelled
    on_event: EventHandler | None = None
    client: Any = None  # an httpx.AsyncClient to use instead of the run's own
    # Credentials by security scheme (`--auth`): `scheme` -> its main credential, `scheme.field` -> a field
    # (token, username, password, api_key, client_id, client_secret, client_auth); see docs/security.md.
    auth: dict[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None  # ARAZZO_AUTH_* / ARAZZO_SERVER_VAR_* lookups; None: os.environ
    # Every credential value a run used or was given, filled by the run so reports can mask them (shared by
    # every run given these options: the CLI makes one RunOptions per run).
    secrets: set[str] = field(default_factory=set)
    validate_requests: str = "off"  # off | warn | error: check requests against the description
    # Contract checks of every response of an OpenAPI-described operation (`http/contract.py`): `warn`
    # (each violation a step warning), `fail` (a violation fails its step: `onFailure` applies) or `off`
    contract: str = "warn"
    # The older name of the contract checks (off | warn | error, meaning off | warn | fail); when set, it
    # decides (`contract.mode_of`)
    validate_responses: str | None = None
    # Record each step's attempts, criteria values and resolved expressions (`executor/tracing.py`) for
    # the reports that show a run (`--report-json`, `--html`); off: the run records none of it.
    trace: bool = False
    # Steps of a workflow run side by side, up to this many requests in flight (`--parallel`): those whose
    # prerequisites have completed, where the outcome cannot differ from a sequential run
    # (`executor/concurrent.py`; docs/semantics.md, *Parallel steps*); 1: one step at a time
    parallel: int = 1
    # items an `x-forEach` step runs its workflow for (`--max-loop-items`); more fail the step unsent
    max_loop_items: int = DEFAULT_MAX_LOOP_ITEMS
    # A journal to resume from (`--journal`; `executor/journal/`): a path (opened and closed by the run),
    # or an open `Journal`. Completed exchanges are recorded as they complete; a run with the same file
    # answers those from it instead of sending them again (docs/semantics.md, *Resuming a run*).
    journal: Any = None
    # `--replay-http FILE`: every request answered from a HAR file, nothing sent (`http/har_replay.py`):
    # a path (read by each run, its entries answering in order from the first), or an open `HttpReplay`
    # (shared by the runs given it: each entry answers once, in order, across them)
    http_replay: Any = None
    # `--idempotency-header NAME`: a key per step execution, the same on its retries and on its resend
    # by a resumed run, in this request header
    idempotency_header: str | None = None
    # `--rate HOST=N/s`: an `http.rate.RateLimits` shared by the runs that share the rates
    rate: Any = None
