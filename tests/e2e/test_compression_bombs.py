"""Compression bombs from real local servers: a body of a few KB whose Content-Encoding (gzip, gzip
stacked on gzip, brotli) decodes to 64 MiB or more is counted as it is decoded, stops at the limit and
fails with `larger than the limit of N bytes (decoded; ...)`, on every path that reads a response: a
step of `arazzo run`, a source description fetched by `arazzo validate`, the model API of `arazzo
agent` (a JSON answer and an event stream). Memory is measured, not timed: tracemalloc's peak while the
bomb is read stays a few times the limit, where decoding whole took the bomb's decoded size.
(The load test's two HTTP lanes: `test_load_compression_bombs.py`.)"""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

import arazzo_runner
from tests.e2e.agentkit import API_KEY, tool_args, write_shop
from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import failed_at, fault_run, list_step
from tests.e2e.helpers import cli, workflow
from tests.servers import faults
from tests.servers.bombs import CODINGS, HAS_BROTLI, MiB, bomb, bounded_brotli, headers
from tests.servers.scripted import ScriptedServer
from tests.untested import skipif_untested

STATUS_ONLY = {"successCriteria": [{"condition": "$statusCode == 200"}], "outputs": {}}
CASES = [
    pytest.param(
        coding,
        marks=skipif_untested(
            coding == "br" and not HAS_BROTLI,
            "no brotli",
            "brotli-encoded bodies are decoded within their bounds",
        ),
    )
    for coding in CODINGS
]


def refused_unread(coding: str) -> bool:
    """brotli present but without a bounded decoder: a br body is refused unread (its own message)."""
    return coding == "br" and not bounded_brotli()


def served(coding: str, size: int = 64 * MiB, content_type: str = "application/json") -> faults.Behaviour:
    data = bomb(coding, size)
    return faults.answer(200, headers(coding, data, content_type), data)


# -- arazzo run: a step's response -------------------------------------------------------------------


@pytest.mark.parametrize("coding", CASES)
def test_a_bomb_fails_the_step_at_the_decoded_limit_whatever_the_step_reads(capsys, write, coding):
    run = fault_run(
        capsys, write, served(coding), steps=(list_step(**STATUS_ONLY),), argv=("--max-response-bytes", "1M")
    )
    got = failed_at(run)
    assert got["statusCode"] == 200
    if refused_unread(coding):
        assert got["error"].startswith(
            "HTTP 200: the response body is encoded with br (Content-Encoding: br)"
        )
        return
    assert got["error"] == (
        f"HTTP 200: the response body is larger than the limit of {MiB} bytes (decoded; max-response-bytes): "
        f"it came with Content-Encoding: {coding}, reading stopped at the limit"
    )
    length = len(bomb(coding, 64 * MiB))
    assert got["warnings"] == [
        f"the response body is larger than the limit of {MiB} bytes (decoded; Content-Encoding: {coding}, "
        f"Content-Length: {length}): only the first {MiB} decoded bytes were read, the body was not parsed"
    ]


@pytest.mark.parametrize("coding", CASES)
def test_a_bomb_read_by_a_step_as_an_event_stream_stops_at_the_decoded_limit(capsys, write, coding):
    behaviour = served(coding, content_type="text/event-stream")
    run = fault_run(capsys, write, behaviour, argv=("--max-response-bytes", "256K"))
    got = failed_at(run)
    if not refused_unread(coding):
        expected = "HTTP 200: the response body is larger than the limit of 262144 bytes (decoded; "
        assert got["error"].startswith(expected + "max-response-bytes)")


def test_a_small_compressed_body_within_the_limit_is_read(capsys, write):
    """The bound counts decoded bytes: 512 KiB of JSON that gzip makes 1 KB is read under a 1M limit."""
    import gzip
    import json

    data = gzip.compress(json.dumps({"pad": "x" * (512 * 1024)}).encode())
    behaviour = faults.answer(200, headers("gzip", data), data)
    run = fault_run(capsys, write, behaviour, argv=("--max-response-bytes", "1M"))
    assert run.code == 0, run.cli.out
    assert len(run.step["outputs"]["body"]["pad"]) == 512 * 1024


@pytest.mark.parametrize("blocking", [True, False], ids=["blocking", "asyncio"])
@pytest.mark.parametrize("coding", CASES)
def test_peak_memory_while_a_bomb_is_read_stays_a_few_times_the_limit(write, coding, blocking):
    """64 MiB decoded under a 1 MiB limit: decoded whole, the peak was the bomb's decoded size; counted as
    it is decoded, it is about twice the limit (the kept bytes and their copy) and a piece more. A first
    run loads the description and the HTTP modules, no part of the measure."""
    workspace = arazzo_runner.load(write(arazzo_doc(workflow("flow", list_step(**STATUS_ONLY)))))
    with faults.FaultServer() as server:
        server.script("/pets", faults.reply([]), served(coding))
        assert _run(workspace, blocking, servers={"pets": server.url}).ok
        bomb(coding, 64 * MiB)  # made before the measure
        tracemalloc.start()
        try:
            result = _run(workspace, blocking, servers={"pets": server.url}, max_body=MiB)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 6 * MiB, f"peak {peak / MiB:.1f} MiB for a 1 MiB limit and a 64 MiB bomb ({coding})"
    assert not result.ok


def _run(workspace: Any, blocking: bool, **options: Any) -> Any:
    """A run that blocks its thread (the sync httpx client), or one on asyncio (the async client)."""
    if blocking:
        return arazzo_runner.run(workspace, **options)
    import asyncio

    return asyncio.run(arazzo_runner.arun(workspace, **options))


# -- arazzo validate: a source description fetched over HTTP -----------------------------------------


@pytest.mark.parametrize("coding", CASES)
def test_a_bomb_served_as_a_source_description_is_refused_at_the_decoded_limit(capsys, write, coding):
    """256 MiB decoded against the 64 MiB limit of a source: `validate` says the source cannot be loaded,
    with the cause (its `source-unavailable` warning), and the peak stays near that limit (decoded whole,
    it was the bomb's size)."""
    data = bomb(coding, 256 * MiB)
    with ScriptedServer() as server:
        server.reply("GET", "/api.yaml", (200, data, headers(coding, None, "application/yaml")))
        sources = [{"name": "pets", "url": f"{server.url}/api.yaml", "type": "openapi"}]
        path = write(arazzo_doc(workflow("flow", list_step()), sources=sources), openapi=None)
        warm = write(arazzo_doc(workflow("flow", list_step())), name="warm.arazzo.yaml")
        cli(capsys, "validate", warm)  # the imports of a validation, outside the measure
        tracemalloc.start()
        try:
            result = cli(capsys, "validate", path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 100 * MiB, f"peak {peak / MiB:.1f} MiB for the 64 MiB limit and a 256 MiB bomb"
    shown = result.out + result.err
    assert result.code == 0 and "0 errors, 1 warning in 1 file" in shown, shown
    prefix = f"warning source-unavailable: source 'pets' ({server.url}/api.yaml) cannot be loaded: GET "
    if refused_unread(coding):
        assert prefix in shown and "the response body is encoded with br (Content-Encoding: br)" in shown
        return
    assert (
        f"{server.url}/api.yaml: larger than the 64 MiB limit (decoded; Content-Encoding: {coding})" in shown
    )
    assert prefix in shown


# -- arazzo agent: the model API's answer ------------------------------------------------------------


@pytest.fixture
def model(tmp_path, monkeypatch):
    """A function running `arazzo agent --api chat` against a scripted model API with one reply."""
    path = write_shop(tmp_path)
    with ScriptedServer() as server:

        def run(capsys: Any, reply: tuple, stream: str) -> dict[str, Any]:
            monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
            server.reply("POST", "/v1/chat/completions", reply)
            argv = [*tool_args(path, server), "--prompt", "Is the pet available?", stream]
            argv += ["--chat", server.url + "/v1", "--model", "m", "--format", "json"]
            argv += ["--max-response-bytes", "1M"]
            result = cli(capsys, "agent", *argv)
            assert result.code == 1, result.out + result.err
            return result.json

        yield run


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("coding", CASES)
def test_a_bomb_as_the_model_answer_is_unusable_at_the_decoded_limit(capsys, model, coding, stream):
    kind = "text/event-stream" if stream == "--stream" else "application/json"
    data = bomb(coding, 64 * MiB)
    data_json = model(capsys, (200, data, headers(coding, None, kind)), stream)
    message = data_json["error"]["message"]
    if refused_unread(coding):
        assert "answer is unusable: the response body is encoded with br (Content-Encoding: br)" in message
        return
    said = f"(decoded; Content-Encoding: {coding})"
    assert f"answer is unusable: it is larger than the limit of {MiB} bytes {said}" in message


# -- an OAuth2 token endpoint ------------------------------------------------------------------------


@pytest.mark.parametrize("blocking", [True, False], ids=["blocking", "asyncio"])
@pytest.mark.parametrize("coding", CASES)
def test_a_bomb_from_the_token_endpoint_fails_the_step_unsent_in_bounded_memory(
    tmp_path, server, coding, blocking
):
    """The token request's answer is read within 1 MiB decoded (`run_client.MAX_POSTED_ANSWER`): the step
    fails unsent with the cause, the API receives nothing, and the peak stays a few MiB where decoding
    the 64 MiB whole took all of it."""
    from tests.e2e.httpkit import echo, op, openapi, step, write_flow

    data = bomb(coding, 64 * MiB)
    server.route("POST", "/oauth/token")(lambda request: (200, data, headers(coding, None)))
    echo(server)
    scheme = {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {}}}}
    api = openapi(
        {"/r": {"get": op("r", security=[{"oauth": []}])}}, components={"securitySchemes": {"oauth": scheme}}
    )
    workspace = arazzo_runner.load(write_flow(tmp_path, api, [step("s", "r")]))
    auth = {"oauth.client_id": "me", "oauth.client_secret": "s3cret"}
    _run(workspace, blocking, servers={"api": server.url}, environ={}, auth=auth, max_body=MiB)  # imports
    tracemalloc.start()
    try:
        result = _run(workspace, blocking, servers={"api": server.url}, environ={}, auth=auth, max_body=MiB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MiB, f"peak {peak / MiB:.1f} MiB for a 64 MiB bomb from the token endpoint ({coding})"
    [workflow] = result.to_dict()["workflows"]
    error = workflow["steps"][0]["error"]
    token_url = f"{server.url}/oauth/token"
    assert error.startswith(
        f"request not sent: security scheme 'oauth': token request to {token_url} failed: "
    )
    assert error.endswith(f" (POST {token_url})"), error
    if refused_unread(coding):
        assert "the response body is encoded with br (Content-Encoding: br)" in error
    else:
        assert (
            f"the answer is larger than the limit of {MiB} bytes (decoded; Content-Encoding: {coding})"
            in error
        )
    assert [r.path for r in server.requests if r.path == "/r"] == []


# -- bytes after the end of a compressed stream, and what a coding reads ------------------------------


def _after_the_end(size: int) -> bytes:
    """A 22-byte gzip member (`{}`) and then `size` zero bytes."""
    import gzip

    return gzip.compress(b"{}") + bytes(size)


def _inner_ends_early(size: int) -> bytes:
    """gzip( gzip(b'{}') + `size` zeros ) ("gzip, gzip"): the inner coding ends after 2 decoded bytes and
    the outer one decodes to `size` more, a few KB on the wire."""
    import gzip
    import zlib

    outer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [outer.compress(gzip.compress(b"{}"))]
    parts += [outer.compress(bytes(MiB)) for _ in range(size // MiB)]
    return b"".join([*parts, outer.flush()])


def _empty_deflate_blocks(size: int) -> bytes:
    """A raw deflate stream of `size` bytes of empty stored blocks (5 bytes each, no byte decoded)."""
    return b"\x00\x00\x00\xff\xff" * (size // 5) + b"\x03\x00"


STALLED = [
    pytest.param(
        "gzip", _after_the_end(16 * MiB), "data after the end of the compressed body", id="after-end"
    ),
    pytest.param(
        "gzip, gzip",
        _inner_ends_early(16 * MiB),
        "data after the end of the compressed body",
        id="inner-ends",
    ),
    pytest.param(
        "deflate",
        _empty_deflate_blocks(4 * MiB),
        f"the response body is larger than the limit of {MiB} bytes before it is decoded (Content-Encoding: "
        "deflate): reading stopped at the limit",
        id="empty-blocks",
    ),
]


@pytest.mark.parametrize(("coding", "data", "cause"), STALLED)
def test_a_body_whose_decoded_count_stalls_fails_the_step_in_bounded_memory(write, coding, data, cause):
    """Bytes after the end of a gzip member were appended to zlib's `unused_data` (each append copying it
    all: held uncounted, quadratic time), and a run of empty deflate blocks decodes to nothing: the
    decoded count stayed at 2 bytes or 0, so the 1 MiB limit never fired (16 MiB took 32 MiB and seconds
    of CPU; stacked, a few KB on the wire did). Now bytes after the end are refused at once, and what each
    coding reads counts against the limit too."""
    wire = {"Content-Type": "application/json", "Content-Encoding": coding, "Content-Length": str(len(data))}
    workspace = arazzo_runner.load(write(arazzo_doc(workflow("flow", list_step()))))
    with faults.FaultServer() as server:
        server.script("/pets", faults.reply([]), faults.answer(200, wire, data))
        assert arazzo_runner.run(workspace, servers={"pets": server.url}).ok  # imports, not measured
        tracemalloc.start()
        try:
            result = arazzo_runner.run(workspace, servers={"pets": server.url}, max_body=MiB)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 6 * MiB, f"peak {peak / MiB:.1f} MiB for {len(data)} bytes on the wire under a 1 MiB limit"
    [flow] = result.to_dict()["workflows"]
    assert flow["status"] == "failed"
    assert cause in flow["steps"][0]["error"], flow["steps"][0]["error"]


def test_a_gzip_body_of_several_members_is_read_whole(capsys, write):
    """RFC 1952 allows several members (`gzip.decompress` reads them all): the reader stopped at the first
    and dropped the rest, so the step saw `{"a": 1, ` and failed it as not JSON."""
    import gzip

    data = gzip.compress(b'{"a": 1, ') + gzip.compress(b'"b": 2}')
    run = fault_run(capsys, write, faults.answer(200, headers("gzip", data), data))
    assert run.code == 0, run.cli.out
    assert run.step["outputs"]["body"] == {"a": 1, "b": 2}


def test_a_bomb_from_the_token_endpoint_with_the_callers_own_client_is_bounded(tmp_path, server):
    """`arun(..., client=httpx.AsyncClient())`: the token request went through the caller's client's own
    `post`, which reads and decodes the whole answer (64 MiB); it is streamed and read by the bounded
    reader on any client now."""
    import asyncio

    import httpx

    from tests.e2e.httpkit import echo, op, openapi, step, write_flow

    data = bomb("gzip", 64 * MiB)
    server.route("POST", "/oauth/token")(lambda request: (200, data, headers("gzip", None)))
    echo(server)
    scheme = {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {}}}}
    api = openapi(
        {"/r": {"get": op("r", security=[{"oauth": []}])}}, components={"securitySchemes": {"oauth": scheme}}
    )
    workspace = arazzo_runner.load(write_flow(tmp_path, api, [step("s", "r")]))
    auth = {"oauth.client_id": "me", "oauth.client_secret": "s3cret"}

    async def once() -> Any:
        async with httpx.AsyncClient() as client:
            return await arazzo_runner.arun(
                workspace, servers={"api": server.url}, environ={}, auth=auth, max_body=MiB, client=client
            )

    asyncio.run(once())  # imports, not measured
    tracemalloc.start()
    try:
        result = asyncio.run(once())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MiB, f"peak {peak / MiB:.1f} MiB for a 64 MiB gzip bomb from the token endpoint"
    [flow] = result.to_dict()["workflows"]
    error = flow["steps"][0]["error"]
    assert f"the answer is larger than the limit of {MiB} bytes (decoded; Content-Encoding: gzip)" in error
    assert [r.path for r in server.requests if r.path == "/r"] == []
