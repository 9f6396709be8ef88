"""Issue 37, item 8: the front ends that run workflows say, before they start, what would otherwise send
requests without their credentials, unsaid. `arazzo mcp` and `arazzo agent` warn once per security
scheme that operations of their tools need and no credential meets (`arazzo run` says it on each step);
every front end reading `ARAZZO_AUTH_*` warns on a variable no scheme reads, with the name it misses.
Names only: never a value. Real processes (`arazzo mcp` over its stdio, ended by the end of stdin)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import ROOT, cli, subprocess_cli
from tests.untested import importorskip_untested

OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "articles", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "components": {
        "securitySchemes": {
            "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "bearer": {"type": "http", "scheme": "bearer"},
        }
    },
    "security": [{"api_key": []}],
    "paths": {
        "/articles": {
            "get": {"operationId": "listArticles", "responses": {"200": {"description": "ok"}}},
            "post": {"operationId": "createArticle", "responses": {"201": {"description": "ok"}}},
        },
        "/articles/{slug}": {
            "delete": {
                "operationId": "deleteArticle",
                "security": [{"bearer": []}],
                "responses": {"204": {"description": "ok"}},
            }
        },
        "/ping": {
            "get": {"operationId": "ping", "security": [], "responses": {"200": {"description": "ok"}}}
        },
    },
}


def _workflow(workflow_id: str, operation_id: str, **step: Any) -> dict[str, Any]:
    return {"workflowId": workflow_id, "steps": [{"stepId": "call", "operationId": operation_id, **step}]}


ARAZZO = {
    "arazzo": "1.0.1",
    "info": {"title": "articles", "version": "1"},
    "sourceDescriptions": [{"name": "articles", "url": "./articles.openapi.json", "type": "openapi"}],
    "workflows": [
        _workflow("list", "listArticles"),
        _workflow("create", "createArticle"),
        _workflow("remove", "deleteArticle", parameters=[{"name": "slug", "in": "path", "value": "a"}]),
        _workflow("ping", "ping"),
        # its step sets the key itself, from an input the server fixes: nothing missing
        {
            **_workflow(
                "own_key",
                "createArticle",
                parameters=[{"name": "X-API-Key", "in": "header", "value": "$inputs.k"}],
            ),
            "inputs": {"type": "object", "properties": {"k": {"type": "string", "format": "password"}}},
        },
    ],
}

API_KEY_HINT = "for 'api_key' set ARAZZO_AUTH_API_KEY_API_KEY (or --auth api_key=...)"
BEARER_HINT = "for 'bearer' set ARAZZO_AUTH_BEARER_TOKEN (or --auth bearer=...)"
MISSING_API_KEY = (
    "warning: no credentials for security scheme 'api_key' of source articles (used by tools list, create): "
    f"requests go without them; {API_KEY_HINT}"
)
MISSING_BEARER = (
    "warning: no credentials for security scheme 'bearer' of source articles (used by tool remove): "
    f"requests go without them; {BEARER_HINT}"
)
NEAR_MISS = (
    "warning: ARAZZO_AUTH_API_KEY is set but no security scheme reads it, so it is not used; did you mean "
    "ARAZZO_AUTH_API_KEY_API_KEY (security scheme 'api_key' of source articles)?"
)
SECRET = "sk-never-shown-4711"


@pytest.fixture
def document(tmp_path: Path) -> Path:
    (tmp_path / "articles.openapi.json").write_text(json.dumps(OPENAPI))
    path = tmp_path / "articles.arazzo.yaml"
    path.write_text(yaml.safe_dump(ARAZZO, sort_keys=False))
    return path


def _start(*argv: Any, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`arazzo ARGV...` as a real process, stdin at its end (`arazzo mcp` then stops: exit 0), without the
    ARAZZO_AUTH_* variables of the environment the tests run in."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARAZZO_AUTH_")}
    environment.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in proc.stderr
    return proc


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


def test_mcp_warns_at_start_once_per_scheme_without_credentials(document: Path) -> None:
    importorskip_untested("mcp", "`arazzo mcp` (the MCP server)")
    proc = _start("mcp", document, "--input", "k=sk-own")
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [MISSING_API_KEY, MISSING_BEARER]
    assert proc.stderr.splitlines()[-1] == "arazzo mcp: 5 tool(s) over stdio"  # said before it serves


def test_mcp_warns_when_the_key_a_step_sends_itself_is_an_input_nobody_gives(document: Path) -> None:
    # `own_key` sends the key from its optional input `k`: a credential, never asked of a model, so
    # without `--input k` its every call leaves the header out and goes without the key (a run warns)
    importorskip_untested("mcp", "`arazzo mcp` (the MCP server)")
    proc = _start("mcp", document, "-w", "own_key")
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [
        "warning: no credentials for security scheme 'api_key' of source articles (used by tool own_key): "
        f"requests go without them; {API_KEY_HINT}"
    ]


def test_mcp_says_nothing_when_every_scheme_has_a_credential(document: Path) -> None:
    importorskip_untested("mcp", "`arazzo mcp` (the MCP server)")
    env = {"ARAZZO_AUTH_BEARER_TOKEN": SECRET}
    proc = _start("mcp", document, "--input", "k=sk-own", "--auth", f"api_key={SECRET}", env=env)
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == []
    # a credential only for the scheme of one source, qualified: as good
    proc = _start("mcp", document, "-w", "list", "--auth", f"articles:api_key={SECRET}")
    assert _warnings(proc.stderr) == []


def test_mcp_names_a_near_miss_variable_and_still_warns_for_its_scheme(document: Path) -> None:
    importorskip_untested("mcp", "`arazzo mcp` (the MCP server)")
    env = {"ARAZZO_AUTH_API_KEY": SECRET, "ARAZZO_AUTH_BEARER_TOKEN": SECRET, "ARAZZO_AUTH_NOTHING_LIKE": "x"}
    proc = _start("mcp", document, "--input", "k=sk-own", env=env)
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [
        NEAR_MISS,
        "warning: ARAZZO_AUTH_NOTHING_LIKE is set but no security scheme reads it, so it is not used; "
        "`arazzo auth FILE` lists the variables the sources read",
        MISSING_API_KEY,
    ]
    assert SECRET not in proc.stderr + proc.stdout


def test_agent_warns_at_start_too(document: Path) -> None:
    proc = _start(
        "agent", document, "-w", "remove", "-w", "ping", "--prompt", "hi", env={"ARAZZO_AUTH_API_KEY": "x"}
    )
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [NEAR_MISS, MISSING_BEARER]
    assert proc.stdout.startswith("agent: 2 tool(s)")


def test_run_names_a_near_miss_variable_once_before_it_runs(
    document: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("ARAZZO_AUTH_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ARAZZO_AUTH_API_KEY", SECRET)
    result = cli(capsys, "run", document, "-w", "ping", "--format", "json", "--no-dotenv")
    assert _warnings(result.err) == [NEAR_MISS]
    assert SECRET not in result.err + result.out
    monkeypatch.setenv("ARAZZO_AUTH_API_KEY_API_KEY", SECRET)  # the name it missed: no warning for it
    monkeypatch.delenv("ARAZZO_AUTH_API_KEY")
    assert _warnings(cli(capsys, "run", document, "-w", "ping", "--format", "json").err) == []


def test_load_names_a_near_miss_variable_before_anything_else(
    document: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("ARAZZO_AUTH_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ARAZZO_AUTH_API_KEY", SECRET)
    # a threshold that does not parse stops `arazzo load` before Locust starts: the warning came first.
    # A child process: `arazzo load` imports Locust, whose gevent patches the threads of the process
    # that imports it (in pytest's, a later server's shutdown then waits forever)
    result = subprocess_cli("load", document, "-w", "ping", "--threshold", "bogus", timeout=300)
    assert result.code == 2
    assert _warnings(result.err) == [NEAR_MISS]
    assert result.err.splitlines()[-1].startswith("error: --threshold 'bogus'")
    assert SECRET not in result.err + result.out


def test_every_name_a_scheme_reads_is_quiet_and_a_wrong_field_is_not(
    document: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if n.startswith("ARAZZO_AUTH_")]:
        monkeypatch.delenv(name)
    for name in (
        "ARAZZO_AUTH_ARTICLES__API_KEY_API_KEY",
        "ARAZZO_AUTH_BEARER_TOKEN",
        "ARAZZO_AUTH_BEARER_API_KEY",
    ):
        monkeypatch.setenv(name, SECRET)  # the qualified form, the bare one; a field bearer does not take
    result = cli(capsys, "run", document, "-w", "ping", "--format", "json", "--no-dotenv")
    assert _warnings(result.err) == [
        "warning: ARAZZO_AUTH_BEARER_API_KEY is set but no security scheme reads it, so it is not used; "
        "did you mean ARAZZO_AUTH_BEARER_TOKEN (security scheme 'bearer' of source articles)?"
    ]


def test_a_variable_without_its_field_is_told_the_variables_of_the_schemes_main_credential(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `ARAZZO_AUTH_<SCHEME>` alone: the field left off. The hint names what gives the scheme its
    # credential (an OAuth2 token, not `client_auth`, the option of how to send a client's secret; a
    # user AND a password), not the first of its variables in name order
    api = copy.deepcopy(OPENAPI)
    flows = {"clientCredentials": {"tokenUrl": "http://127.0.0.1:9/token", "scopes": {}}}
    api["components"]["securitySchemes"] = {
        "oauth": {"type": "oauth2", "flows": flows},
        "basic": {"type": "http", "scheme": "basic"},
    }
    (tmp_path / "articles.openapi.json").write_text(json.dumps(api))
    path = tmp_path / "articles.arazzo.yaml"
    path.write_text(yaml.safe_dump(ARAZZO, sort_keys=False))
    for name in [n for n in os.environ if n.startswith("ARAZZO_AUTH_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ARAZZO_AUTH_OAUTH", SECRET)
    monkeypatch.setenv("ARAZZO_AUTH_BASIC", SECRET)
    result = cli(capsys, "run", path, "-w", "ping", "--format", "json", "--no-dotenv")
    assert _warnings(result.err) == [
        "warning: ARAZZO_AUTH_BASIC is set but no security scheme reads it, so it is not used; did you mean "
        "ARAZZO_AUTH_BASIC_USERNAME and ARAZZO_AUTH_BASIC_PASSWORD (security scheme 'basic' of source "
        "articles)?",
        "warning: ARAZZO_AUTH_OAUTH is set but no security scheme reads it, so it is not used; did you mean "
        "ARAZZO_AUTH_OAUTH_TOKEN (security scheme 'oauth' of source articles)?",
    ]
    assert SECRET not in result.err + result.out


def test_a_1_0_input_name_read_whole_is_the_credential_its_step_sends(tmp_path: Path) -> None:
    # `$inputs.auth/token` in a 1.0.x document reads the declared input `auth/token` (issue 37 item 15):
    # sent in the Authorization header, that input is the credential (hidden from a model, masked), not
    # `auth`, what the character class reads of the name
    import arazzo_runner
    from arazzo_runner.agents.tools.credentials import credential_inputs

    (tmp_path / "articles.openapi.json").write_text(json.dumps(OPENAPI))
    sent = {"name": "Authorization", "in": "header", "value": "Bearer {$inputs.auth/token}"}
    flow = {
        **_workflow("list", "listArticles", parameters=[sent]),
        "inputs": {"type": "object", "properties": {"auth/token": {"type": "string"}}},
    }
    path = tmp_path / "articles.arazzo.yaml"
    path.write_text(yaml.safe_dump({**ARAZZO, "workflows": [flow]}, sort_keys=False))
    workspace = arazzo_runner.load(str(path))
    assert list(credential_inputs(workspace, workspace.document.workflows[0])) == ["auth/token"]


def test_the_prefix_asked_without_an_import_is_the_one_credentials_read() -> None:
    from arazzo_runner.http.auth_variables import PREFIX
    from arazzo_runner.http.credentials import ENV_PREFIX

    assert PREFIX == ENV_PREFIX
