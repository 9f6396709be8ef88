"""Arazzo workflows as Locust users: `from arazzo_runner.locust import ArazzoUser` (see `user.py`).

This package is an entry point, like a locustfile: importing it imports Locust, and Locust patches the
standard library with gevent (sockets, threads, ssl, select) when it is first imported. Nothing else
in `arazzo_runner` imports it; `arazzo load` imports it only once its flags are checked. Without Locust
(`pip install 'arazzo-engine[load]'`) the import fails with one line saying so.
"""

from __future__ import annotations

import select
import sys

from ..load import MISSING_LOCUST, locust_installed

if not locust_installed():
    raise ModuleNotFoundError(MISSING_LOCUST, name="locust")

import locust  # noqa: E402  (patches the process with gevent, when it is the first to import Locust)


def _import_http_stack() -> None:
    """Import httpx's transport (httpcore) now, with what gevent's patching hid put back for the moment.

    gevent removes `select.epoll` (and kqueue, devpoll) from a patched process, so that nothing blocks
    the hub; httpcore imports trio when it is installed, and trio reads `select.epoll` as it is imported,
    so the import fails (AttributeError) in any environment that has trio. Neither library uses them
    here: the engine's loop runs on gevent's selector (`bridge.py`)."""
    if "httpcore" in sys.modules:
        return
    from gevent import monkey

    restored = []
    for name in ("epoll", "kqueue", "devpoll"):
        if not hasattr(select, name) and monkey.is_object_patched("select", name):
            setattr(select, name, monkey.get_original("select", name))
            restored.append(name)
    try:
        import httpcore  # noqa: F401
    finally:
        for name in restored:
            delattr(select, name)


_import_http_stack()

from ..load.reporting import StepFailed  # noqa: E402
from .user import ArazzoUser  # noqa: E402

__all__ = ["ArazzoUser", "StepFailed"]
