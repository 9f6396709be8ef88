"""The client a run's workflow holds on a Temporal worker (arazzo_runner/temporal/workflow.py): the run's
cookie jar, which never sends, made without the CA bundle an httpx client loads when it is built (once a
row: it was most of a worker's CPU a row, bench/RESULTS.md, issue 40)."""

from __future__ import annotations

import asyncio
import ssl

import httpx
import pytest

from tests.untested import not_installed

pytest.importorskip("temporalio", reason=not_installed("temporalio", "runs on Temporal workers"))

from arazzo_runner.temporal.workflow import _workflow_client


def test_the_workflow_client_loads_no_certificates_and_sends_nothing(monkeypatch):
    loaded: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counting(self, *args, **kwargs):
        loaded.append(args or kwargs)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counting)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # a proxy's transport would load it too

    async def use() -> None:
        client = _workflow_client()
        client.cookies.set("session", "s1", domain="api.example")
        assert client.cookies.get("session") == "s1"
        with pytest.raises(httpx.TransportError, match="sends its exchanges as activities"):
            await client.httpx.get("https://api.example/x")
        await client.aclose()

    asyncio.run(use())
    assert loaded == []
