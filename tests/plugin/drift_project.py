"""A pytester project against the real drifting server (`tests/servers/drifting.py`): its OpenAPI 3.0.3
description, an Arazzo document, and a conftest serving `arazzo_servers` from one drifting server a
session. Shared by the plugin's contract and coverage tests."""

from __future__ import annotations

import pytest
import yaml

from tests.servers.drifting import description

CONFTEST = """\
import pytest

from tests.servers.drifting import drift
from tests.servers.scripted import ScriptedServer


@pytest.fixture(scope="session")
def drifting_url():
    with ScriptedServer() as server:
        yield drift(server).url


@pytest.fixture
def arazzo_servers(drifting_url):
    return {"api": drifting_url}
"""


def drift_project(pytester: pytest.Pytester, arazzo: str) -> pytest.Pytester:
    """`pytester`'s folder holding `api.openapi.yaml` (paths sorted), `drift.arazzo.yaml` and the conftest."""
    (pytester.path / "api.openapi.yaml").write_text(yaml.safe_dump(description("3.0.3")))
    (pytester.path / "drift.arazzo.yaml").write_text(arazzo)
    pytester.makeconftest(CONFTEST)
    return pytester
