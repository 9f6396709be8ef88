"""`--record-http FILE` / `--replay-http FILE`: a run recorded as HAR 1.2 against a real local server,
then answered from the file with the server gone; a request the file does not hold fails its step with
the closest entry and the first difference; secrets masked in the recording and still matched; a HAR in
a browser's and Playwright's shape (base64 content, postData.text, queryString) answers a run."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow
from tests.servers.scripted import ScriptedServer

RETRY = [{"name": "again", "type": "retry", "retryAfter": 0, "retryLimit": 3}]
FLOW = workflow(
    "flow",
    op_step(
        "create",
        "createPet",
        requestBody={"contentType": "application/json", "payload": {"name": "$inputs.name", "tags": ["a"]}},
        successCriteria=[{"condition": "$statusCode == 201"}],
        outputs={"id": "$response.body#/id"},
    ),
    op_step("flaky", "flaky", onFailure=RETRY, outputs={"n": "$response.body#/n"}),
    op_step(
        "list",
        "listPets",
        parameters=[{"name": "limit", "in": "query", "value": 2}],
        outputs={"first": "$response.body#/0/name"},
    ),
    inputs={"type": "object", "properties": {"name": {"type": "string"}}},
    outputs={
        "id": "$steps.create.outputs.id",
        "n": "$steps.flaky.outputs.n",
        "first": "$steps.list.outputs.first",
    },
)


def _serve(server: ScriptedServer) -> None:
    server.route("POST", "/pets")(lambda r: (201, {"id": 7, "name": r.json()["name"]}))
    server.reply("GET", "/flaky", (503, {"n": 1}), (200, {"n": 2}))
    server.route("GET", "/pets")(lambda r: (200, [{"name": "Rex"}, {"name": "Tom"}]))


def _record(capsys: Any, write: Any, tmp_path: Any) -> tuple[Any, Any, str, Any]:
    """The flow run against a real server with --record-http, then the server stopped."""
    path = write(arazzo_doc(FLOW))
    har = tmp_path / "run.har"
    with ScriptedServer() as server:
        _serve(server)
        url = server.url
        recorded = cli(capsys, "run", path, "--server", f"pets={url}", "--input", "name=Rex",
                       "--format", "json", "--record-http", har)  # fmt: skip
        sent = len(server.requests)
    assert recorded.code == 0, recorded.out
    assert sent == 4  # create, flaky twice, list
    return path, har, url, recorded


def test_a_recorded_run_replays_with_the_same_result_and_nothing_sent(capsys, write, tmp_path) -> None:
    path, har, url, recorded = _record(capsys, write, tmp_path)
    data = json.loads(har.read_text())
    assert [e["request"]["method"] for e in data["log"]["entries"]] == ["POST", "GET", "GET", "GET"]
    # the server is gone: whatever is sent is refused
    replayed = cli(capsys, "run", path, "--server", f"pets={url}", "--input", "name=Rex", "--format", "json",
                   "--replay-http", har)  # fmt: skip
    assert replayed.code == 0, replayed.out
    first, again = recorded.json["workflows"][0], replayed.json["workflows"][0]
    assert again["outputs"] == first["outputs"] == {"id": 7, "n": 2, "first": "Rex"}
    assert [(s["stepId"], s["status"], s["attempts"]) for s in again["steps"]] == [
        (s["stepId"], s["status"], s["attempts"]) for s in first["steps"]
    ]
    assert "replayed from" in replayed.err and "4 request(s) answered, nothing sent" in replayed.err


def test_a_changed_request_fails_its_step_with_the_closest_entry_and_first_difference(
    capsys, write, tmp_path
) -> None:
    path, har, url, _ = _record(capsys, write, tmp_path)
    replayed = cli(capsys, "run", path, "--server", f"pets={url}", "--input", "name=Max", "--format", "json",
                   "--replay-http", har)  # fmt: skip
    assert replayed.code == 1
    step = replayed.json["workflows"][0]["steps"][0]
    assert step["stepId"] == "create" and step["status"] == "failed"
    error = step["error"]
    assert f"no exchange of {har} answers POST {url}/pets" in error, error
    assert "the closest is entry 1 (POST" in error and "flow / create (attempt 1)" in error, error
    assert 'body.name: the recording has "Rex", this run "Max"' in error, error


SECURED = {
    **PETS_OPENAPI,
    "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "key"}}},
    "security": [{"key": []}],
}
LOGIN = workflow(
    "login",
    op_step(
        "login",
        "login",
        requestBody={
            "contentType": "application/x-www-form-urlencoded",
            "payload": {"user": "ann", "password": "$inputs.password"},
        },
        outputs={"token": "$response.body#/session"},
    ),
    inputs={
        "type": "object",
        "properties": {"password": {"type": "string", "format": "password"}},
    },
    outputs={"session": "$steps.login.outputs.token"},
)


def test_secrets_are_masked_in_the_recording_and_still_matched(capsys, write, tmp_path) -> None:
    path = write(arazzo_doc(LOGIN), openapi=SECURED)
    har = tmp_path / "login.har"
    with ScriptedServer() as server:
        server.route("POST", "/login")(lambda r: (200, {"session": "s-" + r.query["key"][0][-4:]}))
        url = server.url
        recorded = cli(capsys, "run", path, "--server", f"pets={url}", "--input", "password=hunter2-pass",
                       "--auth", "key=K3Y-secret-1234", "--format", "json", "--record-http", har,
                       "--no-mask")  # fmt: skip
        assert server.requests[0].query["key"] == ["K3Y-secret-1234"]
    assert recorded.code == 0, recorded.out
    text = har.read_text()
    assert "K3Y-secret-1234" not in text and "hunter2-pass" not in text  # even with --no-mask
    request = json.loads(text)["log"]["entries"][0]["request"]
    assert request["url"].endswith("/login?key=***") and "password=***" in request["postData"]["text"]
    # the same secrets match their masked places; so do others (a CI's own credentials)
    for password, key in (("hunter2-pass", "K3Y-secret-1234"), ("other-pass", "OTHER-key-999")):
        replayed = cli(capsys, "run", path, "--server", f"pets={url}", "--input", f"password={password}",
                       "--auth", f"key={key}", "--format", "json", "--replay-http", har)  # fmt: skip
        assert replayed.code == 0, replayed.out
        assert replayed.json["workflows"][0]["outputs"] == {"session": "s-1234"}
    # an unmasked value of the body still counts
    other = workflow("login", *LOGIN["steps"], inputs=LOGIN["inputs"], outputs=LOGIN["outputs"])
    other["steps"][0] = {**other["steps"][0], "requestBody": {
        "contentType": "application/x-www-form-urlencoded",
        "payload": {"user": "bob", "password": "$inputs.password"}}}  # fmt: skip
    changed = write(arazzo_doc(other), openapi=SECURED, name="other.arazzo.yaml")
    refused = cli(capsys, "run", changed, "--server", f"pets={url}", "--input", "password=x-pass-1",
                  "--auth", "key=K3Y-secret-1234", "--format", "json", "--replay-http", har)  # fmt: skip
    assert refused.code == 1
    error = refused.json["workflows"][0]["steps"][0]["error"]
    assert 'body field user: the recording has "ann", this run "bob"' in error, error


def _browser_har(origin: str) -> dict[str, Any]:
    """Two entries as Chrome's "Save all as HAR" and Playwright's `recordHar` write them: pages and
    timings, the response body in base64 with the Content-Encoding it came with, the query also as
    `queryString`, a JSON request body in `postData.text`."""
    listed = json.dumps([{"name": "Fido"}, {"name": "Rex"}]).encode()
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "Playwright", "version": "1.48.0"},
            "browser": {"name": "chromium", "version": "130.0"},
            "pages": [{"startedDateTime": "2026-01-01T00:00:00.000Z", "id": "page@1", "title": "pets",
                       "pageTimings": {"onContentLoad": -1, "onLoad": -1}}],
            "entries": [
                {
                    "startedDateTime": "2026-01-01T00:00:01.000Z", "time": 12.5, "pageref": "page@1",
                    "_frameref": "frame@1", "_monotonicTime": 1.5,
                    "request": {
                        "method": "POST", "url": f"{origin}/pets", "httpVersion": "HTTP/1.1",
                        "cookies": [], "headersSize": -1, "bodySize": 16, "queryString": [],
                        "headers": [{"name": "Content-Type", "value": "application/json"},
                                    {"name": "Authorization", "value": "Bearer browser-token"}],
                        "postData": {"mimeType": "application/json", "text": '{"name":"Rex","tags":["a"]}'},
                    },
                    "response": {
                        "status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1", "cookies": [],
                        "headers": [{"name": "content-type", "value": "application/json"}],
                        "content": {"size": 22, "mimeType": "application/json",
                                    "text": '{"id": 41, "name": "Rex"}'},
                        "redirectURL": "", "headersSize": -1, "bodySize": 22,
                    },
                    "cache": {}, "timings": {"send": 0.1, "wait": 12, "receive": 0.4},
                    "serverIPAddress": "127.0.0.1",
                },
                {
                    "startedDateTime": "2026-01-01T00:00:02.000Z", "time": 3, "pageref": "page@1",
                    "request": {
                        "method": "GET", "url": f"{origin}/pets", "httpVersion": "HTTP/2",
                        "cookies": [], "headers": [], "headersSize": -1, "bodySize": 0,
                        "queryString": [{"name": "limit", "value": "2"}],
                    },
                    "response": {
                        "status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "cookies": [],
                        "headers": [{"name": "Content-Type", "value": "application/json"},
                                    {"name": "Content-Encoding", "value": "gzip"},
                                    {"name": "Content-Length", "value": "9"}],
                        "content": {"size": len(listed), "mimeType": "application/json",
                                    "text": base64.b64encode(listed).decode(), "encoding": "base64"},
                        "redirectURL": "", "headersSize": -1, "bodySize": 9,
                    },
                    "cache": {}, "timings": {"send": 0, "wait": 3, "receive": 0},
                },
            ],
        }
    }  # fmt: skip


BROWSED = workflow(
    "browsed",
    FLOW["steps"][0],
    FLOW["steps"][2],
    inputs=FLOW["inputs"],
    outputs={"id": "$steps.create.outputs.id", "first": "$steps.list.outputs.first"},
)


def test_a_browser_shaped_har_answers_a_run(capsys, write, tmp_path) -> None:
    path = write(arazzo_doc(BROWSED))
    har = tmp_path / "browser.har"
    origin = "http://127.0.0.1:9"  # the discard port: nothing answers there
    har.write_text(json.dumps(_browser_har(origin)))
    result = cli(capsys, "run", path, "--server", f"pets={origin}", "--input", "name=Rex", "--format", "json",
                 "--replay-http", har)  # fmt: skip
    assert result.code == 0, result.out
    assert result.json["workflows"][0]["outputs"] == {"id": 41, "first": "Fido"}


def test_a_file_that_is_not_a_har_is_a_usage_error_saying_where(capsys, write, tmp_path) -> None:
    path = write(arazzo_doc(BROWSED))
    har = tmp_path / "bad.har"
    har.write_text(json.dumps({"log": {"entries": [{"request": {"method": "GET"}, "response": {}}]}}))
    result = cli(capsys, "run", path, "--input", "name=Rex", "--replay-http", har)
    assert result.code == 2
    assert f"--replay-http {har}: /log/entries/0/request/url is not a string" in result.err
    har.write_text("{not json")
    result = cli(capsys, "run", path, "--input", "name=Rex", "--replay-http", har)
    assert result.code == 2 and f"--replay-http {har}: not JSON" in result.err


PICTURE = b"\x89PNG\r\n\x1a\n\x00\xff" + b"client-S3CRET-77" + b"\x00\xfe"
OAUTH = {
    **PETS_OPENAPI,
    "paths": {
        "/picture": {
            "get": {
                "operationId": "picture",
                "security": [{"oauth": ["read"]}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
    "components": {
        "securitySchemes": {
            "oauth": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {"read": ""}}},
            }
        }
    },
}


def test_token_requests_and_binary_bodies_are_recorded_and_answered(capsys, write, tmp_path) -> None:
    """The OAuth2 token request is answered from the file too (nothing reaches a token endpoint); a
    binary body is kept whole in base64, a secret in it masked."""
    get = op_step("get", "picture", outputs={"type": "$response.header.content-type"})
    picture = workflow("picture", get, outputs={"type": "$steps.get.outputs.type"})
    path = write(arazzo_doc(picture), openapi=OAUTH)
    har = tmp_path / "picture.har"
    auth = ["--auth", "oauth.client_id=my-client", "--auth", "oauth.client_secret=client-S3CRET-77"]
    with ScriptedServer() as server:
        server.route("POST", "/oauth/token")(
            lambda r: (200, {"access_token": "tok-abcdef", "token_type": "Bearer"})
        )
        server.route("GET", "/picture")(lambda r: (200, PICTURE, {"Content-Type": "image/png"}))
        url = server.url
        recorded = cli(capsys, "run", path, "--server", f"pets={url}", *auth, "--format", "json",
                       "--record-http", har, "--har", tmp_path / "report.har")  # fmt: skip
        assert [r.path for r in server.requests] == ["/oauth/token", "/picture"]
    assert recorded.code == 0, recorded.out
    entries = json.loads(har.read_text())["log"]["entries"]
    assert [e["request"]["url"] for e in entries] == [f"{url}/oauth/token", f"{url}/picture"]
    content = entries[1]["response"]["content"]
    assert content["encoding"] == "base64"
    assert base64.b64decode(content["text"]) == PICTURE.replace(b"client-S3CRET-77", b"***")
    assert "tok-abcdef" not in har.read_text()
    replayed = cli(capsys, "run", path, "--server", f"pets={url}", *auth, "--format", "json",
                   "--replay-http", har)  # fmt: skip
    assert replayed.code == 0, replayed.out
    assert replayed.json["workflows"][0]["outputs"] == {"type": "image/png"}
    assert "2 request(s) answered, nothing sent" in replayed.err
    # a --har report keeps the picture by its size only: it is not answered as an empty body
    report = cli(capsys, "run", path, "--server", f"pets={url}", *auth, "--format", "json",
                 "--replay-http", tmp_path / "report.har")  # fmt: skip
    assert report.code == 1
    assert report.json["workflows"][0]["steps"][0]["error"] == (
        f"entry 2 of {tmp_path / 'report.har'} does not hold its answer's body ({len(PICTURE)} bytes: "
        "a --har report keeps a binary body by its size only); record with --record-http"
    )


def test_the_library_option_takes_a_path_or_an_open_replay_shared_by_runs(write, tmp_path) -> None:
    from arazzo_runner import run
    from arazzo_runner.executor.options import RunOptions
    from arazzo_runner.http.har_replay import HttpReplay

    path = write(arazzo_doc(BROWSED))
    har = tmp_path / "browser.har"
    origin = "http://127.0.0.1:9"
    har.write_text(json.dumps(_browser_har(origin)))
    options = RunOptions(servers={"pets": origin}, http_replay=str(har))
    for _ in range(2):  # a path: each run reads it afresh
        result = run(path, "browsed", {"name": "Rex"}, options=options)
        assert result.ok and result.workflows[0].outputs == {"id": 41, "first": "Fido"}
    shared = HttpReplay.open(str(har))
    for _ in range(2):  # one replay: its entries answer in order across the runs, the last ones again
        result = run(path, "browsed", {"name": "Rex"}, options=RunOptions(servers={"pets": origin},
                                                                          http_replay=shared))  # fmt: skip
        assert result.ok
    assert shared.answered == 4


def test_an_exchange_recorded_without_an_answer_fails_again_with_its_cause(capsys, write, tmp_path) -> None:
    path = write(arazzo_doc(BROWSED))
    har = tmp_path / "refused.har"
    origin = "http://127.0.0.1:9"
    data = _browser_har(origin)
    listed = data["log"]["entries"][1]
    listed["response"] = {
        "status": 0,
        "statusText": "",
        "headers": [],
        "content": {"size": 0, "mimeType": ""},
    }
    listed["_error"] = "connection refused (GET http://127.0.0.1:9/pets?limit=2)"
    har.write_text(json.dumps(data))
    result = cli(capsys, "run", path, "--server", f"pets={origin}", "--input", "name=Rex", "--format", "json",
                 "--replay-http", har)  # fmt: skip
    assert result.code == 1
    steps = result.json["workflows"][0]["steps"]
    assert steps[0]["status"] == "passed"
    assert steps[1]["error"] == (
        "recorded without an answer: connection refused (GET http://127.0.0.1:9/pets?limit=2) "
        f"(entry 2 of {har})"
    )


def test_playwright_attached_bodies_are_read_beside_the_har_and_nowhere_else(capsys, write, tmp_path) -> None:
    path = write(arazzo_doc(BROWSED))
    folder = tmp_path / "recorded"
    folder.mkdir()
    har = folder / "pw.har"
    origin = "http://127.0.0.1:9"
    data = _browser_har(origin)
    content = data["log"]["entries"][1]["response"]["content"]
    content.pop("text"), content.pop("encoding")
    content["_file"] = "75841ee5.json"
    (folder / "75841ee5.json").write_text(json.dumps([{"name": "Ace"}]))
    har.write_text(json.dumps(data))
    result = cli(capsys, "run", path, "--server", f"pets={origin}", "--input", "name=Rex", "--format", "json",
                 "--replay-http", har)  # fmt: skip
    assert result.code == 0, result.out
    assert result.json["workflows"][0]["outputs"] == {"id": 41, "first": "Ace"}
    content["_file"] = "../pets.openapi.yaml"
    har.write_text(json.dumps(data))
    result = cli(capsys, "run", path, "--input", "name=Rex", "--replay-http", har)
    assert result.code == 2
    assert "/log/entries/1/response/content/_file is not a file name in the HAR file's folder" in result.err


def test_the_rows_of_an_inputs_file_are_recorded_in_one_file_and_replayed_from_it(
    capsys, write, tmp_path
) -> None:
    path = write(arazzo_doc(FLOW))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"name": "Rex"}\n{"name": "Max"}\n')
    har = tmp_path / "rows.har"
    with ScriptedServer() as server:
        _serve(server)
        url = server.url
        recorded = cli(capsys, "run", path, "--server", f"pets={url}", "--inputs-file", rows,
                       "--record-http", har)  # fmt: skip
    assert recorded.code == 0, recorded.out
    comments = [e["comment"] for e in json.loads(har.read_text())["log"]["entries"]]
    assert (
        comments[0] == "row 1 / flow / create (attempt 1)" and "row 2 / flow / create (attempt 1)" in comments
    )
    replayed = cli(capsys, "run", path, "--server", f"pets={url}", "--inputs-file", rows, "--format", "json",
                   "--replay-http", har)  # fmt: skip
    assert replayed.code == 0, replayed.out
    assert [r["result"]["status"] for r in replayed.json["rows"]] == ["passed", "passed"]
    assert f"replayed from {har}: 7 request(s) answered, nothing sent" in replayed.err


def test_a_run_reaching_asyncapi_steps_is_refused_with_a_replay_and_no_broker_is_reached(
    capsys, tmp_path
) -> None:
    """The replay answers HTTP only: a send step would have published to the real broker while the run
    said `nothing sent` (an MQTT CONNECT reached the listener). Refused before anything is sent."""
    import socket
    from pathlib import Path

    har = tmp_path / "empty.har"
    har.write_text('{"log": {"entries": []}}', encoding="utf-8")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    document = Path(__file__).resolve().parents[2] / "workflows" / "order-events.arazzo.yaml"
    try:
        server = f"events=mqtt://127.0.0.1:{port}"
        run = cli(capsys, "run", str(document), "--server", server, "--replay-http", str(har))
        assert run.code == 2, run.err
        assert "--replay-http) answers HTTP requests only; the run reaches AsyncAPI steps" in run.err
        try:
            listener.accept()
            raise AssertionError("the broker's port was connected to")
        except BlockingIOError:
            pass
    finally:
        listener.close()


def _with_charset(origin: str, charset: str, name: str) -> dict[str, Any]:
    har = _browser_har(origin)
    response = har["log"]["entries"][0]["response"]
    response["headers"] = [{"name": "content-type", "value": f"application/json; charset={charset}"}]
    response["content"] = {"size": 30, "mimeType": f"application/json; charset={charset}",
                           "text": json.dumps({"id": 41, "name": name}, ensure_ascii=False)}  # fmt: skip
    return har


def test_a_charset_in_a_har_body_s_mime_type_is_read_as_a_browser_wrote_it(capsys, write, tmp_path) -> None:
    """A browser decodes `iso-8859-1` as windows-1252, so its HAR holds U+2019 and the euro sign under that
    label: the replay answers the bytes the server sent (0x92, 0x80); a bytes-to-bytes codec (`hex`) is
    no charset. Both ended the run with a traceback (UnicodeEncodeError, LookupError); text the charset
    cannot carry is a usage error naming where."""
    from arazzo_runner.http.har_file import read_har

    path = write(arazzo_doc(BROWSED))
    har = tmp_path / "browser.har"
    origin = "http://127.0.0.1:9"
    for charset, name, sent in (
        ("iso-8859-1", "Rex\u2019s \u20ac10", b"Rex\x92s \x8010"),
        ("us-ascii", "Rex\x81", b"Rex\x81"),  # undefined in windows-1252: a browser reads U+0081
        ("hex", "Rex ☃", "Rex ☃".encode()),
    ):
        har.write_text(json.dumps(_with_charset(origin, charset, name)), encoding="utf-8")
        assert read_har(str(har))[0].content == b'{"id": 41, "name": "' + sent + b'"}', charset
        result = cli(
            capsys, "run", path, "--server", f"pets={origin}", "--input", "name=Rex", "--replay-http", har
        )
        assert "Traceback" not in result.err
        if charset == "hex":  # UTF-8: the run reads it
            assert result.code == 0, result.err
        else:  # as from the server itself: a JSON body must be UTF-8 (RFC 8259 defines no charset)
            assert (
                result.code == 1 and "body is not valid JSON: 'utf-8' codec can't decode byte" in result.out
            )
    har.write_text(json.dumps(_with_charset(origin, "ascii", "Rex ☃")), encoding="utf-8")
    result = cli(
        capsys, "run", path, "--server", f"pets={origin}", "--input", "name=Rex", "--replay-http", har
    )
    assert result.code == 2 and "Traceback" not in result.err
    assert "/log/entries/0/response/content/text is not text its charset (cp1252) can carry" in result.err


def test_a_body_cut_when_recorded_replays_as_the_recorded_run_read_it(capsys, write, tmp_path) -> None:
    """`--max-response-bytes 5`: the recorded run passed on a cut body; the recording held its 5 bytes as
    if whole, so the replay failed (`body is not valid JSON`). Now the file says the body was cut, the
    same limit reads it as the recorded run did, and a larger one is told the rest is not held."""
    path = write(arazzo_doc(workflow("list", op_step("list", "listPets"))))
    har = tmp_path / "cut.har"
    with ScriptedServer() as server:
        _serve(server)
        url = server.url
        recorded = cli(capsys, "run", path, "--server", f"pets={url}", "--max-response-bytes", "5",
                       "--record-http", har)  # fmt: skip
    assert recorded.code == 0, recorded.err
    content = json.loads(har.read_text())["log"]["entries"][0]["response"]["content"]
    assert content["text"] == '[{"na' and content["_cut"] is True
    assert content["comment"] == "the body was cut at 5 bytes (--max-response-bytes)"
    server = f"pets={url}"
    again = cli(capsys, "run", path, "--server", server, "--max-response-bytes", "5", "--replay-http", har)
    assert again.code == 0, again.out
    wider = cli(capsys, "run", path, "--server", f"pets={url}", "--replay-http", har)
    assert wider.code == 1
    said = "holds only the first 5 bytes of its answer's body (cut at --max-response-bytes when recorded)"
    assert said in wider.out
