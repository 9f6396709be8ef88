"""`from arazzo_runner.locust import ArazzoUser`: Arazzo workflows as Locust users, for a locustfile of
your own (the code is in `arazzo_runner.loadtest.locust`). Importing it imports Locust, which patches the
process with gevent; without Locust (`pip install 'arazzo-engine[load]'`) it fails with one line saying
so."""

from __future__ import annotations

from .loadtest.locust import ArazzoUser

__all__ = ["ArazzoUser"]
