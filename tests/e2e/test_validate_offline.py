"""`--offline` fetches nothing: neither a remote source description nor a `$ref` of a local description to
a remote document (found by review: `arazzo validate --offline` fetched such a `$ref`, and reported what the
server answered). The remote document is served by a real local server that records every request."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.helpers import subprocess_cli
from tests.untested import importorskip_untested

FLOW = """\
arazzo: 1.0.1
info: {title: t, version: "1"}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listTags
        successCriteria: [{condition: $statusCode == 200}]
"""


def _project(folder: Path, remote: str) -> Path:
    (folder / "api.yaml").write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /tags:\n    get:\n"
        "      operationId: listTags\n      responses:\n        '200':\n          description: ok\n"
        f"          content:\n            application/json:\n              schema: {{$ref: '{remote}'}}\n"
    )
    path = folder / "flow.arazzo.yaml"
    path.write_text(FLOW)
    return path


def test_validate_offline_fetches_no_ref_of_a_local_description(tmp_path, server):
    server.reply("GET", "/tags.json", (200, {"type": "array"}))
    path = _project(tmp_path, f"{server.url}/tags.json")
    offline = subprocess_cli("validate", "--offline", "--no-cache", path)
    assert server.requests == []
    remote = f"{server.url}/tags.json"
    assert offline.out.splitlines()[0] == (
        f"{path}:8:22: warning source-unavailable: operation 'listTags' of source 'api' cannot be read "
        f"(cannot resolve $ref '{remote}': {remote} is remote and was not fetched (offline)); its checks are "
        "skipped"
    )
    online = subprocess_cli("validate", "--no-cache", path)
    assert [r.path for r in server.requests] == ["/tags.json"]
    assert online.out.splitlines()[0] == "0 errors, 0 warnings in 1 file", online.out


def test_the_language_server_offline_fetches_no_ref_of_a_local_description(tmp_path, server):
    importorskip_untested("lsprotocol", "arazzo lsp --offline fetches nothing", where="the lsp extra")
    from arazzo_runner.lsp.state import OpenDocument

    server.reply("GET", "/tags.json", (200, {"type": "array"}))
    path = _project(tmp_path, f"{server.url}/tags.json")
    offline = OpenDocument(path.as_uri(), path.read_text(), offline=True)
    findings = offline.analyse().report.findings
    assert [f.rule for f in findings] == ["source-unavailable"]
    assert "is remote and was not fetched (offline)" in findings[0].message
    assert server.requests == []
    online = OpenDocument(path.as_uri(), path.read_text())
    assert online.analyse().report.findings == []
    assert [r.path for r in server.requests] == ["/tags.json"]
