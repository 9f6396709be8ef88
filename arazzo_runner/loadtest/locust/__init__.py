"""Arazzo workflows as Locust users: `from arazzo_runner.locust import ArazzoUser` (see `user.py`).

This package is an entry point, like a locustfile: importing it imports Locust, and Locust patches the
standard library with gevent (sockets, threads, ssl, select) when it is first imported. Nothing else
in `arazzo_runner` imports it; `arazzo load` imports it only once its flags are checked. Without Locust
(`pip install 'arazzo-engine[load]'`) the import fails with one line saying so.
"""

from __future__ import annotations

import select
import sys
import types

from .. import locust_installed, missing_locust

if not locust_installed():
    raise ModuleNotFoundError(missing_locust(), name="locust")

import locust  # noqa: F401 (patches the process with gevent, when it is the first to import Locust)


def _import_http_stack() -> None:
    """Import httpx's transport (httpcore) now, with what gevent's patching hid put back for the moment,
    and let its non-blocking readiness check use the real `select.poll`.

    gevent removes `select.epoll` (and kqueue, devpoll) from a patched process, so that nothing blocks
    the hub; httpcore imports trio when it is installed, and trio reads `select.epoll` as it is imported,
    so the import fails (AttributeError) in any environment that has trio. Neither library uses them
    here: the engine's loop runs on gevent's selector (`bridge.py`).

    httpcore asks `select.poll().poll(0)` whether a pooled connection was closed by the server, twice a
    request. Patched, that is gevent's poll, which yields to the hub even for a timeout of 0: the loop
    would pause inside its own callbacks, and Locust's greenlets would run while it is marked running.
    The original poll answers at once, as httpcore means it to."""
    from gevent import monkey

    if "httpcore" not in sys.modules:
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
    import httpcore._utils as utils

    if monkey.is_object_patched("select", "poll") and getattr(utils, "select", None) is select:
        utils.select = types.SimpleNamespace(
            poll=monkey.get_original("select", "poll"),
            select=monkey.get_original("select", "select"),
            POLLIN=select.POLLIN,
        )


_import_http_stack()

from ..reporting import StepFailed  # noqa: E402
from .user import ArazzoUser  # noqa: E402

__all__ = ["ArazzoUser", "StepFailed"]
