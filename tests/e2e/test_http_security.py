"""Security schemes applied from the description over a real socket: apiKey (header, query, cookie), HTTP
basic and bearer, OAuth2 client credentials (fetched, cached, refreshed); requirement alternatives;
credentials from --auth, inputs and the environment; secrets never shown."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qs

import yaml

from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, param, run_flow, step, write_flow

SCHEMES = {
    "headerKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "queryKey": {"type": "apiKey", "in": "query", "name": "api_key"},
    "cookieKey": {"type": "apiKey", "in": "cookie", "name": "session"},
    "basic": {"type": "http", "scheme": "basic"},
    "bearer": {"type": "http", "scheme": "bearer"},
    "oauth": {
        "type": "oauth2",
        "flows": {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {"read": "", "write": ""}}},
    },
}


def _api(**security: Any) -> dict:
    """One GET operation per entry: `name=[requirements]` (None: no `security` member)."""
    paths = {}
    for name, requirements in security.items():
        operation = op(name) if requirements is None else op(name, security=requirements)
        paths[f"/{name}"] = {"get": operation}
    return openapi(paths, components={"securitySchemes": SCHEMES})


def _token_endpoint(server: Any, *, expires_in: Any = 3600, status: int = 200) -> list[Any]:
    calls: list[Any] = []

    @server.route("POST", "/oauth/token")
    def token(request: Any) -> tuple:
        calls.append(request)
        if status != 200:
            return status, {"error": "invalid_client", "error_description": "unknown client"}
        body = {"access_token": f"tok-{len(calls)}", "token_type": "Bearer"}
        if expires_in is not None:
            body["expires_in"] = expires_in
        return 200, body

    return calls


def _ok(server: Any) -> None:
    server.route("GET", "/.*")(lambda request: (200, {}))


def test_api_keys_in_header_query_and_cookie_from_env_flag_and_inputs(tmp_path, server):
    _ok(server)
    api = _api(h=[{"headerKey": []}], q=[{"queryKey": []}], c=[{"cookieKey": []}])
    steps = [step("h", "h"), step("q", "q"), step("c", "c")]
    workflow = run_flow(
        tmp_path,
        server,
        api,
        steps,
        inputs={"cookieKey": "cookie-secret"},
        environ={"ARAZZO_AUTH_HEADERKEY_API_KEY": "env-secret"},
        auth={"queryKey": "flag secret&x"},
    )
    assert workflow["status"] == "passed", workflow["error"]
    header, query, cookie = server.requests
    assert header.headers["x-api-key"] == "env-secret"
    assert query.raw_query == "api_key=flag%20secret%26x"
    assert cookie.headers["cookie"] == "session=cookie-secret"
    assert not any("warnings" in s for s in workflow["steps"])  # credentials are not "undeclared"


def test_http_basic_and_bearer(tmp_path, server):
    _ok(server)
    api = _api(b=[{"basic": []}], t=[{"bearer": []}], both=[{"basic": [], "headerKey": []}])
    environ = {"ARAZZO_AUTH_BASIC_USERNAME": "ann", "ARAZZO_AUTH_BASIC_PASSWORD": "pä:ss"}
    steps = [step("b", "b"), step("t", "t"), step("both", "both")]
    workflow = run_flow(
        tmp_path, server, api, steps, environ=environ, auth={"bearer": "tok", "headerKey.api_key": "k-1"}
    )
    assert workflow["status"] == "passed", workflow["error"]
    basic, bearer, both = server.requests
    assert basic.headers["authorization"] == "Basic " + base64.b64encode("ann:pä:ss".encode()).decode()
    assert bearer.headers["authorization"] == "Bearer tok"
    assert (both.headers["authorization"].split()[0], both.headers["x-api-key"]) == ("Basic", "k-1")


def test_basic_from_one_flag_value_and_from_an_input_object(tmp_path, server):
    _ok(server)
    steps = [step("b", "b")]
    run_flow(tmp_path, server, _api(b=[{"basic": []}]), steps, auth={"basic": "u1:p:1"})
    run_flow(
        tmp_path,
        server,
        _api(b=[{"basic": []}]),
        steps,
        inputs={"basic": {"username": "u2", "password": "p2"}},
    )
    assert [r.headers["authorization"] for r in server.requests] == [
        "Basic " + base64.b64encode(b"u1:p:1").decode(),
        "Basic " + base64.b64encode(b"u2:p2").decode(),
    ]


def test_oauth2_client_credentials_token_is_fetched_once_and_cached_per_scope_set(tmp_path, server):
    _ok(server)
    calls = _token_endpoint(server)
    api = _api(r=[{"oauth": ["read"]}], r2=[{"oauth": ["read"]}], w=[{"oauth": ["read", "write"]}])
    environ = {"ARAZZO_AUTH_OAUTH_CLIENT_ID": "my id", "ARAZZO_AUTH_OAUTH_CLIENT_SECRET": "s3cret"}
    options = RunOptions(environ=environ)
    steps = [step("r", "r"), step("r2", "r2"), step("w", "w"), step("again", "r")]
    workflow = run_flow(tmp_path, server, api, steps, **vars(options) | {"servers": {"api": server.url}})
    assert workflow["status"] == "passed", workflow["error"]
    assert len(calls) == 2  # one per scope set
    first = calls[0]
    assert first.headers["content-type"] == "application/x-www-form-urlencoded"
    assert first.headers["authorization"] == "Basic " + base64.b64encode(b"my+id:s3cret").decode()
    assert parse_qs(first.body.decode()) == {"grant_type": ["client_credentials"], "scope": ["read"]}
    assert parse_qs(calls[1].body.decode())["scope"] == ["read write"]
    sent = [r.headers.get("authorization") for r in server.requests if r.path != "/oauth/token"]
    assert sent == ["Bearer tok-1", "Bearer tok-1", "Bearer tok-2", "Bearer tok-1"]


def test_an_expired_token_is_fetched_again(tmp_path, server):
    _ok(server)
    calls = _token_endpoint(server, expires_in=0)
    auth = {"oauth.client_id": "id", "oauth.client_secret": "secret", "oauth.client_auth": "post"}
    workflow = run_flow(
        tmp_path, server, _api(r=[{"oauth": []}]), [step("a", "r"), step("b", "r")], auth=auth
    )
    assert workflow["status"] == "passed", workflow["error"]
    assert len(calls) == 2
    assert parse_qs(calls[0].body.decode()) == {
        "grant_type": ["client_credentials"],
        "client_id": ["id"],
        "client_secret": ["secret"],
    }
    assert "authorization" not in calls[0].headers
    assert [r.headers.get("authorization") for r in server.requests[1::2]] == ["Bearer tok-1", "Bearer tok-2"]


def test_a_failing_token_endpoint_fails_the_step_unsent_without_the_secret(tmp_path, server):
    _ok(server)
    _token_endpoint(server, status=401)
    auth = {"oauth.client_id": "id", "oauth.client_secret": "very-secret"}
    workflow = run_flow(tmp_path, server, _api(r=[{"oauth": []}]), [step("a", "r")], auth=auth)
    assert workflow["status"] == "failed"
    error = workflow["steps"][0]["error"]
    assert error == (
        f"request not sent: security scheme 'oauth': token request to {server.url}/oauth/token failed: "
        "HTTP 401 (invalid_client: unknown client)"
    )
    assert [r.path for r in server.requests] == ["/oauth/token"]


def test_the_first_satisfiable_requirement_wins_and_empty_security_sends_nothing(tmp_path, server):
    _ok(server)
    api = _api(
        alt=[{"bearer": []}, {"headerKey": []}],
        anon=[{"bearer": []}, {}],
        none=[],
        inherited=None,
    )
    api["security"] = [{"queryKey": []}]
    steps = [step("alt", "alt"), step("anon", "anon"), step("none", "none"), step("inherited", "inherited")]
    auth = {"headerKey": "hk", "queryKey": "qk"}
    workflow = run_flow(tmp_path, server, api, steps, auth=auth)
    assert workflow["status"] == "passed", workflow["error"]
    alt, anon, none, inherited = server.requests
    assert (alt.headers.get("x-api-key"), alt.headers.get("authorization")) == ("hk", None)
    assert "authorization" not in anon.headers and anon.raw_query == ""
    assert "x-api-key" not in none.headers and none.raw_query == ""
    assert inherited.raw_query == "api_key=qk"  # the document-level requirement
    assert not any("warnings" in s for s in workflow["steps"])


def test_a_credential_the_step_sets_itself_is_not_replaced(tmp_path, server):
    _ok(server)
    api = _api(t=[{"bearer": []}], h=[{"headerKey": []}])
    steps = [
        step("t", "t", param("authorization", "header", "Bearer from-step")),
        step("h", "h", param("x-api-key", "header", "step-key")),
    ]
    options = RunOptions(auth={"bearer": "from-flag", "headerKey": "flag-key"})
    workflow = run_flow(tmp_path, server, api, steps, **vars(options) | {"servers": {"api": server.url}})
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].headers["authorization"] == "Bearer from-step"
    assert [v for k, v in server.requests[1].raw_headers if k.lower() == "x-api-key"] == ["step-key"]
    assert {"from-step", "Bearer from-step", "step-key", "from-flag"} <= options.secrets


def test_missing_credentials_warn_with_the_variables_to_set(tmp_path, server):
    _ok(server)
    workflow = run_flow(tmp_path, server, _api(o=[{"oauth": ["read"]}, {"basic": []}]), [step("o", "o")])
    assert workflow["status"] == "passed"
    assert "authorization" not in server.requests[0].headers
    assert workflow["steps"][0]["warnings"] == [
        "no credentials for the operation's security (oauth); sent without them: for 'oauth' set "
        "ARAZZO_AUTH_OAUTH_TOKEN or ARAZZO_AUTH_OAUTH_CLIENT_ID and ARAZZO_AUTH_OAUTH_CLIENT_SECRET "
        "(or --auth oauth=...)"
    ]


def test_credentials_never_appear_in_messages_or_printed_urls(tmp_path, capsys):
    api = _api(q=[{"queryKey": []}], t=[{"bearer": []}])
    api["servers"] = [{"url": "http://127.0.0.1:9"}]  # nothing listens: a transport error naming the URL
    path = write_flow(tmp_path, api, [step("q", "q")])
    for fmt in ("json", "text"):
        result = cli(
            capsys, "run", path, "--format", fmt, "--auth", "queryKey=sup3r-secret", "--timeout", "2"
        )
        assert result.code == 1
        assert "sup3r-secret" not in result.out + result.err
        assert "api_key=***" in result.out


def test_auth_command_lists_schemes_locations_and_variables_without_values(tmp_path, capsys, monkeypatch):
    path = write_flow(tmp_path, _api(h=[{"headerKey": []}]), [step("h", "h")])
    monkeypatch.setenv("ARAZZO_AUTH_BEARER_TOKEN", "do-not-print")
    result = cli(capsys, "auth", path)
    assert result.code == 0
    assert "do-not-print" not in result.out
    lines = result.out.splitlines()
    assert lines[0] == "source api (./api.openapi.yaml)"
    assert "  headerKey (apiKey): header X-API-Key" in lines
    assert "    env: ARAZZO_AUTH_HEADERKEY_API_KEY" in lines
    assert "    env: ARAZZO_AUTH_BEARER_TOKEN (set)" in lines
    assert "    env: ARAZZO_AUTH_BASIC_USERNAME + ARAZZO_AUTH_BASIC_PASSWORD" in lines
    assert "    or:  --auth basic=USER:PASSWORD (or an input named basic)" in lines
    oauth = next(line for line in lines if line.startswith("  oauth "))
    assert oauth == (
        "  oauth (oauth2): Authorization: Bearer <token> (client credentials from /oauth/token, or a token)"
    )
    data = cli(capsys, "auth", path, "--format", "json").json
    [source] = data
    bearer = next(s for s in source["schemes"] if s["name"] == "bearer")
    assert bearer["environment"] == [[{"name": "ARAZZO_AUTH_BEARER_TOKEN", "set": True}]]
    assert "do-not-print" not in yaml.safe_dump(data)


def test_an_unknown_auth_scheme_name_is_a_usage_error(tmp_path, capsys):
    path = write_flow(tmp_path, _api(h=[{"headerKey": []}]), [step("h", "h")])
    result = cli(capsys, "run", path, "--auth", "headrKey=x")
    assert result.code == 2
    assert "--auth headrKey=...: no security scheme named so" in result.err
    assert "=x" not in result.err


def test_malformed_auth_and_input_file_flags_are_usage_errors(tmp_path, capsys):
    path = write_flow(tmp_path, _api(h=[{"headerKey": []}]), [step("h", "h")])
    result = cli(capsys, "run", path, "--auth", "headerKey")
    assert (
        result.code,
        "--auth expects [SOURCE:]SCHEME[.FIELD]=VALUE, got an item without" in result.err,
    ) == (2, True)
    result = cli(capsys, "run", path, "--input-file", f"photo={tmp_path / 'missing.png'}")
    assert (result.code, "--input-file photo: no such file" in result.err) == (2, True)


def test_a_padded_base64_value_given_as_the_whole_auth_item_is_never_shown(tmp_path, capsys):
    """`--auth $TOKEN` without its key, the token base64 with `=` padding: split at the first `=` it
    would read as the key `<token>` and be echoed by 'no security scheme named so'."""
    path = write_flow(tmp_path, _api(h=[{"headerKey": []}]), [step("h", "h")])
    result = cli(capsys, "run", path, "--auth", "c2VjcmV0dG9rZW4xMjM=")
    assert (result.code, "--auth expects [SOURCE:]SCHEME[.FIELD]=VALUE" in result.err) == (2, True)
    assert "c2VjcmV0dG9rZW4xMjM" not in result.out + result.err


def test_credentials_bound_for_plain_http_off_this_machine_are_warned_about_once(tmp_path):
    """Said, not refused (the document chose the server), once per host and run; loopback hosts and
    https never warn. A dry run builds the requests with the engine's own code and sends nothing."""
    import arazzo_runner

    path = write_flow(
        tmp_path, _api(a=[{"bearer": []}], b=[{"bearer": []}]), [step("a", "a"), step("b", "b")]
    )
    warning = "credentials of 'bearer' are sent over plain http to api.example.com"
    for url, expected in [
        ("http://api.example.com/v1", [[warning], []]),
        ("https://api.example.com/v1", [[], []]),
        ("http://127.0.0.1:9", [[], []]),
        ("http://localhost:9", [[], []]),
    ]:
        planned = arazzo_runner.plan_requests(path, servers={"api": url}, auth={"bearer": "t0k"}, environ={})
        seen = [[w.split(":")[0] for w in p.warnings if "plain http" in w] for p in planned]
        assert seen == expected, (url, [p.warnings for p in planned])
        assert all("t0k" not in w for p in planned for w in p.warnings)


def test_token_requests_are_recorded_with_the_step_masked_everywhere(capsys, tmp_path, server):
    """The OAuth2 token request is an exchange of the step it authorizes (before the step's own): in
    --verbose, the JSON report and the HAR, with the client secret and every issued token masked."""
    import json

    _ok(server)

    @server.route("POST", "/oauth/token")
    def token(request: Any) -> tuple:
        return 200, {"access_token": "tok-issued", "refresh_token": "refresh-issued", "token_type": "Bearer"}

    path = write_flow(tmp_path, _api(r=[{"oauth": []}]), [step("a", "r")])
    report, har = tmp_path / "report.json", tmp_path / "run.har"
    auth = ["oauth.client_id=id", "oauth.client_secret=post-secret-1", "oauth.client_auth=post"]
    flags = [item for value in auth for item in ("--auth", value)]
    flags += ["--verbose", "--report-json", str(report), "--har", str(har)]
    result = cli(capsys, "run", path, "--server", f"api={server.url}", *flags)
    assert result.code == 0, result.out + result.err
    texts = [result.out, result.err, report.read_text(), har.read_text()]
    for secret in ("post-secret-1", "tok-issued", "refresh-issued"):
        assert all(secret not in text for text in texts), secret
    assert f"> POST {server.url}/oauth/token  (oauth2 token)" in result.out
    exchanges = json.loads(report.read_text())["workflows"][0]["steps"][0]["exchanges"]
    assert [(e.get("purpose"), e["request"]["url"], e["response"]["status"]) for e in exchanges] == [
        ("oauth2 token", f"{server.url}/oauth/token", 200),
        (None, f"{server.url}/r", 200),
    ]
    comments = [e["comment"] for e in json.loads(har.read_text())["log"]["entries"]]
    assert comments == ["flow / a (oauth2 token)", "flow / a (attempt 1)"]


def test_a_failed_token_request_is_the_step_s_only_exchange(tmp_path, server):
    import arazzo_runner

    _ok(server)
    _token_endpoint(server, status=401)
    path = write_flow(tmp_path, _api(r=[{"oauth": []}]), [step("a", "r")])
    auth = {"oauth.client_id": "id", "oauth.client_secret": "very-secret"}
    [workflow] = arazzo_runner.run(path, servers={"api": server.url}, environ={}, auth=auth).workflows
    assert workflow.status == "failed"
    [exchange] = workflow.steps[0].exchanges
    assert (exchange.purpose, exchange.status_code) == ("oauth2 token", 401)
