"""Credentials lookup, env names, requirement choice, the OAuth2 token cache, server variables and the
response status/content-type rules, without a network."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from arazzo_runner.executor.servers import resolve_base_url, server_var_env_names
from arazzo_runner.http.contract import check, declared_response
from arazzo_runner.http.credentials import Credentials, env_name
from arazzo_runner.http.oauth import TokenCache
from arazzo_runner.http.request import ParamValue
from arazzo_runner.http.security import HttpSession, apply_security
from arazzo_runner.http.validation import redact
from arazzo_runner.sources.model import Server, ServerVariable

BASIC = {"type": "http", "scheme": "basic"}
BEARER = {"type": "http", "scheme": "bearer"}
KEY = {"type": "apiKey", "in": "header", "name": "X-Key"}
OAUTH = {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://auth/token", "scopes": {}}}}


def test_env_names_upper_case_the_scheme_and_replace_other_characters():
    assert env_name("petstore-auth", "token") == "ARAZZO_AUTH_PETSTORE_AUTH_TOKEN"
    assert env_name("api.key v2", "api_key") == "ARAZZO_AUTH_API_KEY_V2_API_KEY"
    assert server_var_env_names("my-api", "region") == [
        "ARAZZO_SERVER_VAR_MY_API__REGION",
        "ARAZZO_SERVER_VAR_REGION",
    ]


def test_credentials_precedence_flag_then_inputs_then_environment():
    creds = Credentials(
        auth={"b": "flag-token"},
        inputs=[{"b": "input-token", "k": {"apiKey": "input-key"}}],
        environ={"ARAZZO_AUTH_B_TOKEN": "env-token", "ARAZZO_AUTH_K_API_KEY": "env-key"},
    )
    assert creds.get("b", BEARER, "token") == "flag-token"
    assert creds.get("k", KEY, "api_key") == "input-key"
    assert Credentials(environ={"ARAZZO_AUTH_K_API_KEY": "env-key"}).get("k", KEY, "api_key") == "env-key"


def test_basic_main_credential_splits_at_the_first_colon_and_fields_need_both_parts():
    creds = Credentials(auth={"basic": "ann:pa:ss"})
    assert creds.fields("basic", BASIC) == {"username": "ann", "password": "pa:ss"}
    assert Credentials(auth={"basic": "no-colon"}).fields("basic", BASIC) is None
    assert Credentials(auth={"basic.username": "u"}).fields("basic", BASIC) is None


def test_oauth2_prefers_a_token_then_client_credentials():
    token = Credentials(environ={"ARAZZO_AUTH_O_TOKEN": "t", "ARAZZO_AUTH_O_CLIENT_ID": "i"})
    assert token.fields("o", OAUTH) == {"token": "t"}
    pair = Credentials(auth={"o.client_id": "i", "o.client_secret": "s", "o.client_auth": "post"})
    assert pair.fields("o", OAUTH) == {"client_id": "i", "client_secret": "s", "client_auth": "post"}
    assert Credentials().fields("mtls", {"type": "mutualTLS"}) is None


def test_mutual_tls_takes_a_certificate_file_and_optionally_its_key_and_password():
    mtls = {"type": "mutualTLS"}
    env = {"ARAZZO_AUTH_M_CERT": "c.pem", "ARAZZO_AUTH_M_KEY": "k.pem", "ARAZZO_AUTH_M_PASSWORD": "pw"}
    assert Credentials(environ=env).fields("m", mtls) == {"cert": "c.pem", "key": "k.pem", "password": "pw"}
    assert Credentials(auth={"m": "both.pem"}).fields("m", mtls) == {"cert": "both.pem"}
    assert Credentials(environ={"ARAZZO_AUTH_M_KEY": "k.pem"}).fields("m", mtls) is None  # no certificate


def _apply(security: Any, schemes: dict, params: list[ParamValue] | None = None, **creds: Any) -> tuple:
    session = HttpSession()
    operation = SimpleNamespace(security=security)
    added, warnings = asyncio.run(
        apply_security(
            operation=operation,
            schemes=schemes,
            params=params or [],
            credentials=Credentials(**creds),
            session=session,
            client=None,
            base_url="https://api",
            timeout=1,
        )
    )
    return [(p.name, p.in_, p.value) for p in added], warnings, session.secrets


def test_requirements_alternatives_and_and_combinations():
    schemes = {"basic": BASIC, "key": KEY, "bearer": BEARER}
    auth = {"key": "k1", "bearer": "t1"}
    assert _apply([{"basic": []}, {"key": [], "bearer": []}], schemes, auth=auth)[0] == [
        ("X-Key", "header", "k1"),
        ("Authorization", "header", "Bearer t1"),
    ]
    assert _apply([{"basic": []}, {}], schemes, auth=auth)[:2] == ([], [])  # anonymous allowed
    assert _apply([], schemes, auth=auth)[:2] == ([], [])
    assert _apply(None, schemes, auth=auth)[:2] == ([], [])
    added, warnings, _ = _apply([{"unknown": []}], schemes, auth=auth)
    assert added == [] and "'unknown' is not a security scheme" in warnings[0]


def test_a_step_credential_counts_as_available_and_is_a_secret():
    params = [ParamValue("x-key", "header", "step-key")]
    added, warnings, secrets = _apply([{"key": []}], {"key": KEY}, params)
    assert (added, warnings) == ([], [])
    assert "step-key" in secrets


def test_secrets_hold_every_credential_value_and_encoding():
    _, _, secrets = _apply([{"basic": []}], {"basic": BASIC}, auth={"basic": "ann:pw"})
    assert {"ann", "pw", "YW5uOnB3", "Basic YW5uOnB3"} <= secrets


@dataclass
class _FakeClient:
    """A token endpoint behind httpx's MockTransport: answers each token request with the next lifetime."""

    lifetimes: list[Any]
    posts: list[dict] = field(default_factory=list)

    def stream(self, method: str, url: str, **kwargs: Any) -> Any:
        self.posts.append({"url": url, **kwargs})
        lifetime = self.lifetimes.pop(0)
        extra = "" if lifetime is None else f', "expires_in": {lifetime}'
        answer = f'{{"access_token": "t{len(self.posts)}"{extra}}}'.encode()
        headers = {"content-type": "application/json"}
        reply = httpx.MockTransport(
            lambda _: httpx.Response(200, headers=headers, stream=httpx.ByteStream(answer))
        )
        return httpx.AsyncClient(transport=reply).stream(method, url, **kwargs)


def test_token_cache_reuses_until_expiry_with_a_margin():
    now = [0.0]
    cache = TokenCache(clock=lambda: now[0])
    client = _FakeClient([100, 100])
    fields = {"client_id": "i", "client_secret": "s"}

    def token(scopes: list[str]) -> str:
        return asyncio.run(cache.token(client, "https://auth/token", fields, scopes, 1.0))

    assert token(["a"]) == "t1"
    now[0] = 89.0  # margin: a tenth of 100 s
    assert token(["a"]) == "t1"
    now[0] = 90.5
    assert token(["a"]) == "t2"
    assert cache.fetches == 2


def test_a_token_without_expires_in_lasts_the_run():
    cache = TokenCache(clock=lambda: 1e9)
    client = _FakeClient([None])
    fields = {"client_id": "i", "client_secret": "s"}
    for _ in range(3):
        asyncio.run(cache.token(client, "https://auth/token", fields, [], None))
    assert len(client.posts) == 1


def _options(**fields: Any) -> SimpleNamespace:
    return SimpleNamespace(**{"servers": {}, "server_variables": {}, "environ": {}, **fields})


def test_server_variables_precedence_and_enum_warning():
    server = Server("https://{region}.example.com", variables={"region": ServerVariable("eu", ("eu", "us"))})
    operation = SimpleNamespace(servers=[server])
    description = SimpleNamespace(servers=[server], location="x.yaml")

    def url(**options: Any) -> tuple[str, list[str]]:
        return resolve_base_url("api", description, operation, _options(**options))

    assert url() == ("https://eu.example.com", [])
    assert url(environ={"ARAZZO_SERVER_VAR_REGION": "us"}) == ("https://us.example.com", [])
    env = {"ARAZZO_SERVER_VAR_REGION": "us", "ARAZZO_SERVER_VAR_API__REGION": "ap"}
    found, warnings = url(environ=env, server_variables={})
    assert found == "https://ap.example.com"
    assert warnings == [
        "server variable 'region' = 'ap' (ARAZZO_SERVER_VAR_API__REGION) "
        "is not one of its enum values (eu, us)"
    ]
    assert url(environ=env, server_variables={"api.region": "us"}) == ("https://us.example.com", [])


@pytest.mark.parametrize(
    ("status", "key"),
    [(200, "200"), (201, "2xx"), (404, "4XX"), (500, "default"), (302, "default")],
)
def test_declared_response_exact_then_range_then_default(status, key):
    responses = {"200": {}, "2xx": {}, "4XX": {}, "default": {}}
    assert declared_response(responses, status)[0] == key


def test_content_type_rules_and_wildcards():
    responses = {"200": {"content": {"application/*": {}}}, "201": {"content": {"image/png": {}}}}
    operation = SimpleNamespace(responses=responses, method="query")
    session = HttpSession()

    def findings(status: int, content_type: str | None, content: bytes = b"x") -> list[str]:
        response = SimpleNamespace(
            status_code=status, content_type=content_type, content=content, error=None, headers={}
        )
        return [v.text() for v in check(session.validators, None, operation, response)]

    assert findings(201, "image/png") == []
    assert findings(201, "image/png", b"") == []
    assert findings(200, "application/xml") == []
    assert findings(201, "image/gif") == [
        "response 201 image/gif: content-type: wanted one of image/png, got image/gif"
    ]
    assert findings(201, None) == ["response 201: content-type: wanted one of image/png, got no Content-Type"]
    assert findings(404, None) == ["response 404: status: wanted a documented status (200, 201), got 404"]


def test_redact_replaces_secrets_longest_first_and_ignores_tiny_values():
    assert redact("key=abcdef and abc and abcd", {"abcdef", "abcd", "ab"}) == "key=*** and abc and ***"


def test_remote_plain_http_hosts() -> None:
    from arazzo_runner.http.outbound import remote_plain_http_host

    cases = {
        "http://api.example.com/v1": "api.example.com",
        "http://10.0.0.5:8080": "10.0.0.5",
        "HTTP://API.Example.com": "api.example.com",
        "https://api.example.com": None,
        "http://127.0.0.1:8080": None,
        "http://127.8.9.1": None,
        "http://[::1]:80/x": None,
        "http://localhost:3000": None,
        "http://app.localhost": None,
    }
    assert {url: remote_plain_http_host(url) for url in cases} == cases


def test_credentials_are_keyed_by_source_first_and_a_bare_name_only_while_one_source_has_it():
    env = {"ARAZZO_AUTH_A__B_TOKEN": "env-a", "ARAZZO_AUTH_B_TOKEN": "env-bare"}
    assert env_name("b", "token", "my-api") == "ARAZZO_AUTH_MY_API__B_TOKEN"
    shared = {"b": ("a", "c")}
    asked: list[str] = []

    def owners() -> dict:
        asked.append("owners")
        return shared

    creds = Credentials(auth={"a:b": "flag-a", "b": "flag-bare"}, environ=env, source="a", owners=owners)
    assert creds.get("b", BEARER, "token") == "flag-a"
    assert asked == []  # a qualified credential needs no look at the other sources
    creds = Credentials(
        auth={"b": "flag-bare"}, inputs=[{"b": "in-bare"}], environ=env, source="c", owners=owners
    )
    assert creds.get("b", BEARER, "token") is None  # every bare form is ambiguous; c has no qualified one
    assert creds.ignored == {"b": ["--auth b", "input 'b'", "ARAZZO_AUTH_B_TOKEN"]}
    assert creds.sharing("b") == ["a", "c"]
    alone = Credentials(auth={"b.token": "flag-bare"}, source="a", owners=lambda: {"b": ("a",)})
    assert (alone.get("b", BEARER, "token"), alone.sharing("b")) == ("flag-bare", [])
    assert Credentials(inputs=[{"c:b": {"accessToken": "in-c"}}], source="c", owners=owners).fields(
        "b", BEARER
    ) == {"token": "in-c"}


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("http://h:80/api", "http://H/token", True),
        ("https://h/api", "https://h:443/x", True),
        ("http://h/api", "https://h/x", False),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8001", False),
        ("http://[::1]:80/a", "http://[::1]/b", True),
        ("http://h:bad/a", "http://h/a", False),
    ],
)
def test_origins_compare_scheme_host_and_port_with_default_ports(one, other, same):
    from arazzo_runner.http.outbound import origin_of

    assert (origin_of(one) == origin_of(other)) is same
