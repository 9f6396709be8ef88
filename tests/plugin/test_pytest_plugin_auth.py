"""The pytest plugin's credentials (issue 37, item 7): `--arazzo-auth` (the syntax of `arazzo run --auth`)
and the ini key `arazzo_auth` give a security scheme its credential; a failed item shows the engine's
warnings (the missing-credential hint, an `ARAZZO_AUTH_*` variable no scheme reads) and never a value.
Against a real local server that wants an API key."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.servers.scripted import ScriptedServer

pytest_plugins = ["pytester"]

OPENAPI = """\
openapi: 3.1.0
info: {title: articles, version: '1'}
components:
  securitySchemes:
    api_key: {type: apiKey, in: header, name: X-API-Key}
security: [{api_key: []}]
paths:
  /articles:
    post:
      operationId: createArticle
      responses: {'201': {description: created}}
"""

ARAZZO = """\
arazzo: 1.0.1
info: {title: articles, version: '1'}
sourceDescriptions: [{name: articles, url: ./articles.openapi.yaml, type: openapi}]
workflows:
  - workflowId: create
    steps:
      - stepId: createArticle
        operationId: createArticle
        successCriteria: [{condition: $statusCode == 201}]
"""

KEY = "sk-articles-4711"


@pytest.fixture
def api() -> Any:
    """Answers 201 to the right key; otherwise 401, echoing what it got (a server that shows the
    credential back: the failure text must still not)."""
    with ScriptedServer() as server:

        @server.route("POST", "/articles")
        def create(request: Any) -> tuple:
            given = request.headers.get("x-api-key")
            if given == KEY:
                return 201, {"id": 1}
            return 401, {"error": f"bad key {given}"}

        yield server


@pytest.fixture
def project(pytester: pytest.Pytester, api: Any, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for name in [n for n in os.environ if n.startswith("ARAZZO_AUTH_")]:
        monkeypatch.delenv(name)
    (pytester.path / "articles.openapi.yaml").write_text(OPENAPI)
    (pytester.path / "articles.arazzo.yaml").write_text(ARAZZO)
    pytester.makeini(f"[pytest]\narazzo_servers = articles={api.url}\n")
    return pytester


def test_the_auth_option_sends_the_credential(project: pytest.Pytester, api: Any) -> None:
    result = project.runpytest("-v", "--arazzo-auth", f"api_key={KEY}")
    result.assert_outcomes(passed=1)
    assert [r.headers["x-api-key"] for r in api.requests] == [KEY]


def test_the_ini_key_sends_the_credential_and_the_option_wins(project: pytest.Pytester, api: Any) -> None:
    project.makeini(f"[pytest]\narazzo_servers = articles={api.url}\narazzo_auth = articles:api_key={KEY}\n")
    project.runpytest("-v").assert_outcomes(passed=1)
    # the same key given by both: the command line's value is sent
    project.runpytest("-v", "--arazzo-auth", "articles:api_key=sk-other").assert_outcomes(failed=1)
    assert [r.headers["x-api-key"] for r in api.requests] == [KEY, "sk-other"]


def test_a_failed_item_shows_the_missing_credential_hint(project: pytest.Pytester) -> None:
    result = project.runpytest("-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*failed createArticle HTTP 401*",
            "*warning: no credentials for the operation's security (api_key); sent without them: "
            "for 'api_key' set ARAZZO_AUTH_API_KEY_API_KEY (or --arazzo-auth api_key=...)*",
        ]
    )


def test_a_variable_no_scheme_reads_is_named_with_the_one_it_misses(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARAZZO_AUTH_API_KEY", KEY)  # the field is part of the name: _API_KEY_API_KEY
    result = project.runpytest("-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "warning: ARAZZO_AUTH_API_KEY is set but no security scheme reads it, so it is not used; "
            "did you mean ARAZZO_AUTH_API_KEY_API_KEY (security scheme 'api_key' of source articles)?"
        ]
    )
    assert KEY not in result.stdout.str()

    monkeypatch.setenv("ARAZZO_AUTH_API_KEY_API_KEY", KEY)  # the right name: used, and passes
    project.runpytest("-v").assert_outcomes(passed=1)


def test_a_wrong_credential_is_masked_in_the_failure(project: pytest.Pytester, api: Any) -> None:
    result = project.runpytest("-v", "--arazzo-auth", "api_key=sk-wrong-9876")
    result.assert_outcomes(failed=1)
    assert [r.headers["x-api-key"] for r in api.requests] == ["sk-wrong-9876"]
    result.stdout.fnmatch_lines(["*failed createArticle HTTP 401*"])
    assert "sk-wrong-9876" not in result.stdout.str() + result.stderr.str()


def test_an_item_of_no_scheme_or_without_a_value_is_a_usage_error(project: pytest.Pytester, api: Any) -> None:
    unknown = project.runpytest("--arazzo-auth", f"apikey={KEY}")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(
        ["*--arazzo-auth apikey=...: no security scheme named so (schemes: api_key;*"]
    )
    malformed = project.runpytest("--arazzo-auth", KEY)
    assert malformed.ret == pytest.ExitCode.USAGE_ERROR
    malformed.stderr.fnmatch_lines(
        ["*--arazzo-auth expects [[]SOURCE:[]]SCHEME[[].FIELD[]]=VALUE, got an item without '='*"]
    )
    assert KEY not in unknown.stderr.str() + malformed.stderr.str()
    assert api.requests == []


def test_a_padded_base64_value_given_without_its_key_is_never_shown(
    project: pytest.Pytester, api: Any
) -> None:
    """`--arazzo-auth $TOKEN` where the token is base64 with its `=` padding: split at the first `=`,
    the token itself would be read as the key and echoed in the usage error."""
    token = "c2stYXJ0aWNsZXMtNDcxMQ=="
    result = project.runpytest("--arazzo-auth", token)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--arazzo-auth expects [[]SOURCE:[]]SCHEME[[].FIELD[]]=VALUE*"])
    assert "c2stYXJ0aWNsZXMtNDcxMQ" not in result.stdout.str() + result.stderr.str()
    assert api.requests == []


PINGS = """\
openapi: 3.1.0
info: {title: pings, version: '1'}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
security: [{bearer: []}]
paths:
  /ping:
    get:
      operationId: ping
      responses: {'200': {description: ok}}
"""


def test_a_variable_another_collected_document_reads_is_not_called_unread(
    project: pytest.Pytester, api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two documents in one session, each with its own scheme and variable: the failure of one must not
    # call the other's (correct) variable unused, nor offer to rename it
    (project.path / "pings.openapi.yaml").write_text(PINGS)
    pings = ARAZZO.replace("articles", "pings").replace("createArticle", "ping").replace("201", "200")
    (project.path / "pings.arazzo.yaml").write_text(pings)
    project.makeini(f"[pytest]\narazzo_servers =\n    articles={api.url}\n    pings={api.url}\n")
    monkeypatch.setenv("ARAZZO_AUTH_BEARER_TOKEN", "sk-bearer-1234")
    result = project.runpytest("-v", "articles.arazzo.yaml", "pings.arazzo.yaml")
    result.stdout.fnmatch_lines(["*failed createArticle HTTP 401*"])
    assert "ARAZZO_AUTH_BEARER_TOKEN is set but" not in result.stdout.str()
    assert "sk-bearer-1234" not in result.stdout.str()


def test_the_hint_of_a_step_in_a_workflow_the_test_runs_is_shown_too(project: pytest.Pytester) -> None:
    # the 401 came in a workflow a step of the tested one runs (and in one it depends on): their steps'
    # warnings say why, as the tested workflow's own would
    outer = """\
  - workflowId: outer
    dependsOn: [create]
    steps:
      - stepId: again
        workflowId: create
"""
    (project.path / "articles.arazzo.yaml").write_text(ARAZZO + outer)
    result = project.runpytest("-v", "-k", "outer")
    result.assert_outcomes(failed=1)
    hint = "for 'api_key' set ARAZZO_AUTH_API_KEY_API_KEY (or --arazzo-auth api_key=...)"
    assert hint in result.stdout.str()
