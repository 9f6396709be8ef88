"""AsyncAPI security schemes in `arazzo auth` and `--auth` (issue 13, round 3).

`arazzo auth` listed OpenAPI sources only, and `--auth SCHEME=...` refused a broker's scheme as "no
security scheme named so". A broker scheme the engine's connections use (a user and a password:
`userPassword`, `plain`, `scramSha256`, `scramSha512`) is listed with its variables and `--auth` form,
keyed by source like HTTP schemes when another source defines the name too; one it cannot use (`X509`)
is listed as not supported. A real nats-server that requires a user and a password checks that the
credential given reaches the broker, and that a bare name two sources define reaches neither.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.e2e.eventkit import (
    events_doc,
    nats_server,
    orders_asyncapi,
    send_step,
    write_events,
)
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi

PLACE = send_step("place", operationId="$sourceDescriptions.orders.placeOrder")  # two sources: named
SCHEMES = {"user": {"type": "userPassword"}, "cert": {"type": "X509"}}


def _secured(protocol: str = "nats", **server: str) -> dict:
    asyncapi = orders_asyncapi(protocol, **server)
    asyncapi["components"]["securitySchemes"] = SCHEMES
    asyncapi["servers"]["broker"]["security"] = [{"$ref": "#/components/securitySchemes/user"}]
    return asyncapi


def _with_api(path: Path, scheme: str = "user") -> Path:
    """The document also gets an OpenAPI source `api` whose scheme is named `scheme` too."""
    api = openapi(
        {"/x": {"get": op("x")}},
        components={"securitySchemes": {scheme: {"type": "http", "scheme": "basic"}}},
    )
    (path.parent / "api.openapi.yaml").write_text(yaml.safe_dump(api))
    doc = yaml.safe_load(path.read_text())
    doc["sourceDescriptions"].append({"name": "api", "url": "./api.openapi.yaml", "type": "openapi"})
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_arazzo_auth_lists_the_broker_schemes_with_their_variables(capsys, tmp_path):
    path = write_events(tmp_path, events_doc(PLACE), _secured())
    result = cli(capsys, "auth", path)
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "source orders (./orders.asyncapi.yaml, asyncapi)",
        "  user (userPassword): the broker connection's username and password (userPassword)",
        "    env: ARAZZO_AUTH_USER_USERNAME + ARAZZO_AUTH_USER_PASSWORD",
        "    or:  --auth user=USER:PASSWORD (or an input named user)",
        "  cert (X509): not supported by the engine's broker connections (X509)",
    ]
    [entry] = cli(capsys, "auth", path, "--format", "json").json
    assert (entry["source"], entry["type"]) == ("orders", "asyncapi")
    assert [(s["name"], s["key"], s["flag"]) for s in entry["schemes"]] == [
        ("user", "user", "--auth user=USER:PASSWORD"),
        ("cert", "cert", None),
    ]


def test_a_scheme_name_an_openapi_source_shares_is_listed_by_its_qualified_names(capsys, tmp_path):
    path = _with_api(write_events(tmp_path, events_doc(PLACE), _secured()))
    lines = cli(capsys, "auth", path).out.splitlines()
    assert "    env: ARAZZO_AUTH_ORDERS__USER_USERNAME + ARAZZO_AUTH_ORDERS__USER_PASSWORD" in lines
    assert (
        "    or:  --auth orders:user=USER:PASSWORD (or an input named orders:user; 'user' is also a scheme "
        "of source api)" in lines
    )
    assert "    env: ARAZZO_AUTH_API__USER_USERNAME + ARAZZO_AUTH_API__USER_PASSWORD" in lines


def test_auth_flags_name_broker_schemes_and_a_shared_bare_name_is_a_usage_error(capsys, tmp_path):
    path = write_events(tmp_path, events_doc(PLACE), _secured())
    broker = ["--server", "orders=nats://127.0.0.1:9", "--dry-run"]
    assert cli(capsys, "run", path, *broker, "--auth", "user=alice:s3cret").code == 0
    assert cli(capsys, "run", path, *broker, "--auth", "orders:user.username=alice").code == 0
    _with_api(path)
    result = cli(capsys, "run", path, *broker, "--auth", "user=alice:s3cret")
    assert result.code == 2
    assert "--auth user=...: security scheme 'user' is defined by sources api and orders" in result.err
    assert "s3cret" not in result.out + result.err


def test_the_credential_reaches_a_broker_that_requires_it(capsys, tmp_path):
    path = write_events(tmp_path, events_doc(PLACE), _secured())
    with nats_server("--user", "alice", "--pass", "s3cret") as (host, port):
        server = ["--server", f"orders=nats://{host}:{port}", "--format", "json"]
        refused = cli(capsys, "run", path, *server)
        given = cli(capsys, "run", path, *server, "--auth", "user=alice:s3cret")
        _env(tmp_path, "ARAZZO_AUTH_USER")  # the `.env` next to the document backs the environment
        from_env = cli(capsys, "run", path, *server)
    assert refused.code == 1
    assert "authorization" in refused.json["workflows"][0]["steps"][0]["error"].lower()
    assert given.code == 0, given.out
    assert from_env.code == 0, from_env.out
    assert "s3cret" not in refused.out + given.out + from_env.out


def test_a_bare_variable_two_sources_share_reaches_neither(capsys, tmp_path):
    """`ARAZZO_AUTH_USER_*` could be for the broker or the API: not used, and the step says so."""
    path = _with_api(write_events(tmp_path, events_doc(PLACE), _secured()))
    with nats_server("--user", "alice", "--pass", "s3cret") as (host, port):
        server = ["--server", f"orders=nats://{host}:{port}", "--format", "json"]
        _env(tmp_path, "ARAZZO_AUTH_USER")
        bare = cli(capsys, "run", path, *server)
        _env(tmp_path, "ARAZZO_AUTH_ORDERS__USER")
        qualified = cli(capsys, "run", path, *server)
    assert bare.code == 1
    [step] = bare.json["workflows"][0]["steps"]
    assert any(
        "not used: security scheme 'user' is defined by sources api and orders; name the source: "
        "--auth orders:user=USER:PASSWORD" in w
        for w in step.get("warnings", [])
    ), step
    assert qualified.code == 0, qualified.out


def _env(folder: Path, stem: str) -> None:
    (folder / ".env").write_text(f"{stem}_USERNAME=alice\n{stem}_PASSWORD=s3cret\n")
