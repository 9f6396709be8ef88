"""Options of a run; every field has a sensible default."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import EventHandler

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_STEPS = 1000


@dataclass
class RunOptions:
    servers: dict[str, str] = field(default_factory=dict)  # source name -> base URL (`--server`)
    server_variables: dict[str, str] = field(default_factory=dict)  # `name` or `source.name` -> value
    timeout: float | None = DEFAULT_TIMEOUT  # seconds per HTTP exchange
    max_steps: int = DEFAULT_MAX_STEPS  # step executions per run, a guard against goto loops
    max_retry_delay: float = 300.0  # an upper bound on any single retry wait
    max_body: int = 64 * 2**20  # response bytes held in memory
    on_event: EventHandler | None = None
    client: Any = None  # an httpx.AsyncClient to use instead of the run's own
