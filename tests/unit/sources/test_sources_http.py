"""Fetching over HTTP from a real local server: success, errors, limits, redirects."""

from __future__ import annotations

import httpx
import pytest

from arazzo_runner.errors import SourceError
from arazzo_runner.sources import MAX_REDIRECTS, SourceCache, fetch_source, load_openapi

SPEC = """\
openapi: 3.0.3
info: {title: Remote pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: 'schemas.yaml#/Pets'}
"""
SCHEMAS = """\
Pets: {type: array, items: {$ref: '#/Pet'}}
Pet: {type: object, properties: {name: {type: string}}}
"""


def test_success_and_relative_refs_over_http(http_server) -> None:
    http_server.add("/api/schemas.yaml", SCHEMAS)
    url = http_server.add("/api/openapi.yaml", SPEC, headers=(("Content-Type", "application/yaml"),))
    fetched = fetch_source(url, None)
    assert fetched.location == url
    assert fetched.media_type == "application/yaml"
    api = load_openapi("openapi.yaml", base=f"{http_server.url}/api/flow.arazzo.yaml")
    assert api.location == url
    schema = api.operation("listPets").responses["200"]["content"]["application/json"]["schema"]
    assert schema["items"]["properties"]["name"] == {"type": "string"}


def test_404_names_the_url_and_status(http_server) -> None:
    with pytest.raises(SourceError) as caught:
        load_openapi(f"{http_server.url}/missing.yaml")
    assert caught.value.message == f"GET {http_server.url}/missing.yaml: HTTP 404 Not Found"


def test_relative_url_message_shows_both_forms(http_server) -> None:
    with pytest.raises(SourceError) as caught:
        fetch_source("gone.yaml", f"{http_server.url}/flows/main.arazzo.yaml")
    assert caught.value.message == (
        f"cannot read gone.yaml: GET {http_server.url}/flows/gone.yaml: HTTP 404 Not Found"
    )


def test_timeout(http_server) -> None:
    url = http_server.add("/slow.yaml", SPEC, delay=2.0)
    with pytest.raises(SourceError) as caught:
        fetch_source(url, None, timeout=0.2)
    assert caught.value.message == f"GET {url}: timed out after 0.2 s"


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "streamed"])
def test_size_limit_while_streaming(http_server, declared: bool) -> None:
    url = http_server.add("/big.yaml", "x" * 5000, length=declared)
    with pytest.raises(SourceError, match="larger than the 1000 bytes limit"):
        fetch_source(url, None, max_bytes=1000)
    assert len(fetch_source(url, None, max_bytes=5000).content) == 5000


def test_redirect_loop(http_server) -> None:
    url = http_server.add("/loop", status=302, headers=(("Location", "/loop"),))
    with pytest.raises(SourceError, match=r"redirect loop \(redirected back to .*/loop\)"):
        fetch_source(url, None)


def test_redirects_are_followed_up_to_the_limit(http_server) -> None:
    final = http_server.add("/spec.yaml", SPEC)
    for hop in range(1, MAX_REDIRECTS + 2):
        target = "/spec.yaml" if hop == 1 else f"/hop{hop - 1}"
        http_server.add(f"/hop{hop}", status=301, headers=(("Location", target),))
    fetched = fetch_source(f"{http_server.url}/hop{MAX_REDIRECTS}", None)
    assert fetched.location == final  # relative refs then resolve against the final URL
    with pytest.raises(SourceError, match=f"too many redirects \\(more than {MAX_REDIRECTS}\\)"):
        fetch_source(f"{http_server.url}/hop{MAX_REDIRECTS + 1}", None)


def test_connection_refused_is_a_source_error() -> None:
    with pytest.raises(SourceError, match=r"GET http://127\.0\.0\.1:1/x\.yaml: ConnectError"):
        fetch_source("http://127.0.0.1:1/x.yaml", None, timeout=2)


def test_a_given_client_is_used_and_left_open(http_server) -> None:
    url = http_server.add("/spec.yaml", SPEC)
    seen: list[str] = []
    with httpx.Client(event_hooks={"request": [lambda request: seen.append(str(request.url))]}) as client:
        cache = SourceCache()
        first = load_openapi(url, None, cache=cache, client=client)
        assert load_openapi(url, None, cache=cache, client=client) is first
        assert not client.is_closed
    assert seen == [url]  # the second load came from the cache
