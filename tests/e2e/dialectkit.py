"""Running other tools' fixtures as they are, and again after `arazzo validate --fix`, over real local
servers; the requests of both runs are recorded and compared.

Jentic's fixtures come with a `test_config.yaml` (its mocks, the workflows' inputs, the outputs and the
number of API calls it expects): the mocks become a `ScriptedServer`'s routes, and the expectations the
test's assertions. The fixture files are data: copied to a temporary folder, never changed in place.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from tests.e2e.helpers import cli
from tests.servers.scripted import Recorded, ScriptedServer
from tests.shared import SHARED

CORPUS = SHARED / "corpus"
JENTIC = CORPUS / "jentic-runner-fixtures" / "fixtures"
# headers that say nothing about what the document asked for
_VOLATILE = frozenset({"host", "user-agent", "accept-encoding", "connection", "content-length"})


def copy_fixture(source: Path, target: Path) -> Path:
    """A copy of the fixture folder `source` at `target` (its files only, as data)."""
    shutil.copytree(source, target)
    return target


def fix_in_place(capsys: Any, document: Path) -> str:
    """`arazzo validate --fix --offline DOCUMENT`: the summary line it printed; a second run must change
    nothing (idempotence) and judge the document as --fix left it."""
    before = document.read_bytes()
    run = cli(capsys, "validate", "--fix", "--offline", document)
    assert run.code in (0, 1), run.out + run.err
    assert document.read_bytes() != before, "nothing was fixed"
    again = cli(capsys, "validate", "--diff", "--offline", document)
    # nothing left to change; the exit is validate's over the fixed document, as --fix's was
    assert again.code == run.code and again.out == "", again.out
    return run.out


def request_key(request: Recorded) -> tuple:
    """What a request carries, in a comparable form: method, path, query, headers, body."""
    headers = tuple(sorted((k, v) for k, v in request.headers.items() if k not in _VOLATILE))
    query = tuple(sorted((k, tuple(v)) for k, v in request.query.items()))
    return request.method, request.path, query, headers, request.body


class JenticFixture:
    """A folder of Jentic's runner fixtures: its Arazzo document and `test_config.yaml`."""

    def __init__(self, folder: Path, document: str) -> None:
        self.folder = folder
        self.document = document
        self.config = yaml.safe_load((folder / "test_config.yaml").read_text(encoding="utf-8"))

    def workflow(self, workflow_id: str) -> dict[str, Any]:
        return next(w for w in self.config["workflows"] if w["id"] == workflow_id)

    def inputs(self, workflow_id: str) -> dict[str, Any]:
        entry = self.workflow(workflow_id)
        return dict(entry.get("inputs") or entry.get("params") or {})

    def server(self, workflow_id: str) -> ScriptedServer:
        """A server answering the workflow's own mocks first, then the fixture's (the first match wins)."""
        server = ScriptedServer()
        mocks = list(self.workflow(workflow_id).get("custom_mocks") or [])
        for group in (self.config.get("custom_mocks") or {}).values():
            mocks.extend(group)
        bases = [urlsplit(url).path.rstrip("/") for url in (self.config.get("base_urls") or {}).values()]
        for mock in mocks:
            path = mock.get("path") or urlsplit(mock["url"]).path
            if "url" in mock or path.startswith(("http://", "https://")):
                path = urlsplit(mock.get("url") or path).path
                path = next((path[len(b) :] for b in bases if b and path.startswith(b + "/")), path)
            server.reply(mock["method"].upper(), path, (mock["status_code"], mock.get("response")))
        return server


def run_recorded(
    capsys: Any, document: Path, server: ScriptedServer, *argv: Any, sources: tuple = ()
) -> tuple:
    """`arazzo run DOCUMENT --format json ARGV...` with every source in `sources` served by `server`:
    (exit code, the JSON document, the recorded requests in order)."""
    servers = [arg for name in sources for arg in ("--server", f"{name}={server.url}")]
    with server:
        run = cli(capsys, "run", document, "--format", "json", "--no-mask", *servers, *map(str, argv))
    return run.code, json.loads(run.out), [request_key(r) for r in server.requests], run.err


def outputs(result: dict[str, Any]) -> dict[str, Any]:
    """The outputs of the last workflow the run reported (the selected one; dependencies come first)."""
    return result["workflows"][-1].get("outputs") or {}
