"""Fetching descriptions over http(s): anonymous (no credentials, no cookies), nothing forwarded to
another origin on a redirect, a remote document never reads local files, and a server trickling bytes
is cut off by the total time limit. (Connect/read timeouts, the size limit and the redirect limit are
tested in test_sources_http.py.)"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from arazzo_runner.errors import SourceError
from arazzo_runner.sources import fetch_source, load_openapi
from arazzo_runner.workspace import Workspace
from tests.servers.scripted import ScriptedServer

SPEC = """\
openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses: {"200": {description: ok}}
"""
CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")


@pytest.fixture
def origin() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def other() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        server.reply("GET", "/spec.yaml", (200, SPEC, {"Content-Type": "application/yaml"}))
        yield server


def redirect_to(target: str) -> tuple:
    # the redirecting server also tries to set a cookie: it must never come back, to anyone
    return (302, "", {"Location": target, "Set-Cookie": "session=s3cr3t; Path=/"})


def sent(server: ScriptedServer, name: str) -> list[str | None]:
    return [request.headers.get(name) for request in server.requests]


def arazzo_with_source(url: str) -> str:
    return (
        "arazzo: 1.0.1\ninfo: {title: t, version: '1'}\n"
        f"sourceDescriptions: [{{name: api, url: '{url}'}}]\n"
        "workflows: [{workflowId: w, steps: [{stepId: s, operationId: listPets}]}]\n"
    )


def test_no_credentials_or_cookies_on_a_redirect_to_another_port(
    origin: ScriptedServer, other: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login user password netrc-secret\n")
    monkeypatch.setenv("NETRC", str(netrc))  # httpx must not pick credentials up from the environment
    origin.reply("GET", "/spec.yaml", redirect_to(origin.url + "/hop"))
    origin.reply("GET", "/hop", redirect_to(other.url + "/spec.yaml"))

    workspace = Workspace.from_text(arazzo_with_source(origin.url + "/spec.yaml"), str(tmp_path / "a.yaml"))
    assert workspace.source("api").operation("listPets") is not None

    assert [r.path for r in origin.requests] == ["/spec.yaml", "/hop"]
    assert len(other.requests) == 1
    for server in (origin, other):
        for name in CREDENTIAL_HEADERS:
            assert sent(server, name) == [None] * len(server.requests), (server.url, name)


def test_userinfo_goes_to_its_own_origin_only(origin: ScriptedServer, other: ScriptedServer) -> None:
    origin.reply("GET", "/spec.yaml", redirect_to(other.url + "/spec.yaml"))
    with_userinfo = origin.url.replace("http://", "http://user:pw@") + "/spec.yaml"

    assert fetch_source(with_userinfo, None).location == other.url + "/spec.yaml"
    assert sent(origin, "authorization") == ["Basic " + base64.b64encode(b"user:pw").decode()]
    assert sent(other, "authorization") == [None]


def test_a_callers_client_is_used_for_its_first_origin_only(
    origin: ScriptedServer, other: ScriptedServer
) -> None:
    origin.reply("GET", "/spec.yaml", redirect_to(origin.url + "/hop"))
    origin.reply("GET", "/hop", redirect_to(other.url + "/spec.yaml"))
    client = httpx.Client(headers={"Authorization": "Bearer caller-token"}, cookies={"sid": "caller"})
    try:
        api = load_openapi(origin.url + "/spec.yaml", client=client)
    finally:
        client.close()

    assert api.operation("listPets") is not None
    assert sent(origin, "authorization") == ["Bearer caller-token"] * 2
    assert sent(other, "authorization") == [None]
    assert sent(other, "cookie") == [None]


def test_a_remote_document_may_not_refer_to_local_files(origin: ScriptedServer, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("get: {operationId: stolen, responses: {}}\n")
    spec = SPEC.replace("  /pets:\n", f"  /x:\n    $ref: 'file://{secret}'\n  /pets:\n")
    origin.reply("GET", "/spec.yaml", (200, spec, {"Content-Type": "application/yaml"}))

    with pytest.raises(SourceError) as info:
        load_openapi(origin.url + "/spec.yaml")  # even without any roots
    assert f"a document fetched over http(s) may not read local files (file://{secret})" in info.value.message
    assert (info.value.file, info.value.line) == (origin.url + "/spec.yaml", 5)  # at the $ref


def test_relative_refs_of_a_remote_description_resolve_against_its_url(
    origin: ScriptedServer, tmp_path: Path
) -> None:
    """ "items.yaml" and "../shared/b.yaml" name files on the same server; an absolute path could only
    name a local file, and is refused like a `file:` URL, even one that exists."""
    refs = "  /a:\n    $ref: 'items.yaml'\n  /b:\n    $ref: '../shared/b.yaml'\n  /pets:\n"
    origin.reply("GET", "/api/spec.yaml", (200, SPEC.replace("  /pets:\n", refs)))
    origin.reply("GET", "/api/items.yaml", (200, "get: {operationId: getA, responses: {}}\n"))
    origin.reply("GET", "/shared/b.yaml", (200, "get: {operationId: getB, responses: {}}\n"))

    api = load_openapi(origin.url + "/api/spec.yaml")
    assert (api.operation("getA").path, api.operation("getB").path) == ("/a", "/b")
    assert [r.path for r in origin.requests] == ["/api/spec.yaml", "/api/items.yaml", "/shared/b.yaml"]

    (tmp_path / "b.yaml").write_text("get: {operationId: stolen, responses: {}}\n")
    absolute = SPEC.replace("  /pets:\n", f"  /b:\n    $ref: '{tmp_path}/b.yaml'\n  /pets:\n")
    origin.reply("GET", "/api/absolute.yaml", (200, absolute))
    with pytest.raises(SourceError) as info:
        load_openapi(origin.url + "/api/absolute.yaml")
    assert (
        f"a document fetched over http(s) may not read local files ({tmp_path}/b.yaml)" in info.value.message
    )


def test_a_remote_arazzo_source_reads_no_local_file(origin: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "pets.yaml").write_text(SPEC)  # inside the local document's own folder
    child = arazzo_with_source(f"file://{tmp_path}/pets.yaml")
    origin.reply("GET", "/child.arazzo.yaml", (200, child, {"Content-Type": "application/yaml"}))
    parent = arazzo_with_source(origin.url + "/child.arazzo.yaml").replace("url: '", "type: arazzo, url: '")
    workspace = Workspace.from_text(parent, str(tmp_path / "flow.arazzo.yaml"))

    remote = workspace.source("api")
    assert remote.roots == ()
    with pytest.raises(SourceError) as info:
        remote.source("api")
    assert info.value.file == origin.url + "/child.arazzo.yaml" and info.value.line == 3
    assert (
        f"cannot read file://{tmp_path}/pets.yaml: a document fetched over http(s) may not read local files"
        in info.value.message
    )


def test_a_remote_document_reads_no_local_file_whatever_the_sandbox_or_self(tmp_path: Path) -> None:
    (tmp_path / "pets.yaml").write_text(SPEC)
    for text in (
        arazzo_with_source(f"file://{tmp_path}/pets.yaml"),
        f"$self: 'file://{tmp_path}/'\n" + arazzo_with_source("pets.yaml").replace("1.0.1", "1.1.0"),
    ):
        workspace = Workspace.from_text(text, "https://example.com/a.yaml", allow_paths=[tmp_path])
        assert workspace.roots == ()
        with pytest.raises(SourceError, match=r"a document fetched over http\(s\) may not read local files"):
            workspace.source("api")


def test_a_remote_arazzo_sources_paths_resolve_against_its_url(
    origin: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows/pets.yaml").write_text(SPEC)  # where "pets.yaml" would be, were it local
    origin.reply("GET", "/flows/child.arazzo.yaml", (200, arazzo_with_source("../specs/pets.yaml")))
    origin.reply("GET", "/specs/pets.yaml", (200, SPEC, {"Content-Type": "application/yaml"}))
    parent = arazzo_with_source(origin.url + "/flows/child.arazzo.yaml").replace(
        "url: '", "type: arazzo, url: '"
    )

    child = Workspace.from_text(parent, str(tmp_path / "flows/flow.arazzo.yaml")).source("api")
    assert child.source("api").location == origin.url + "/specs/pets.yaml"


def test_a_trickling_server_is_cut_off_by_the_total_time_limit(origin: ScriptedServer) -> None:
    def trickle(write) -> None:
        for _ in range(200):
            write(b"#", 0.02)  # never silent for long enough to hit the read timeout

    origin.reply("GET", "/slow.yaml", (200, trickle, {"Content-Type": "application/yaml"}))
    # Without the total limit the fetch would succeed after 4 s of trickle: no clock needed to tell.
    with pytest.raises(SourceError, match="still arriving after the total time limit"):
        fetch_source(origin.url + "/slow.yaml", None, timeout=1.0, total_timeout=0.3)


def test_a_document_that_cannot_be_read_is_asked_for_once_per_run(origin: ScriptedServer) -> None:
    """Three operations refer to one broken document: resolving each fails with the same error, and the
    server is asked once (a stalling server would otherwise cost a timeout per `$ref`)."""
    paths = "".join(
        f"  /{name}:\n    get:\n      operationId: {name}\n"
        f"      responses: {{'200': {{$ref: 'common.yaml#/Ok'}}}}\n"
        for name in ("a", "b", "c")
    )
    origin.reply("GET", "/spec.yaml", (200, SPEC.replace("  /pets:\n", paths + "  /pets:\n")))
    origin.reply("GET", "/common.yaml", (500, {"error": "down"}))
    api = load_openapi(origin.url + "/spec.yaml")

    errors = []
    for name in ("a", "b", "c"):
        with pytest.raises(SourceError) as info:
            _ = api.operation(name).responses
        errors.append(info.value.message)
    cause = f"cannot read common.yaml: GET {origin.url}/common.yaml: HTTP 500 Internal Server Error"
    assert errors == [f"cannot resolve $ref 'common.yaml#/Ok': {cause}"] * 3
    assert [r.path for r in origin.requests] == ["/spec.yaml", "/common.yaml"]
