"""A step failed on its response says what the server answered: the status and the first ~500 bytes of
the body, masked, cut on a character boundary (saying so), binary bodies described, in the console, the
JSON result and JUnit (issue 12). Real HTTP to a local server."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import flaky, ok200, retry
from tests.e2e.helpers import cli, run_json, step, workflow

SECRET = "pw-7d1e0c9b2a4f"
INPUTS = {"type": "object", "properties": {"password": {"type": "string", "format": "password"}}}


def _doc(*steps: dict) -> dict:
    return arazzo_doc(workflow("flow", *steps, inputs=INPUTS))


def _text(capsys, path, server, *argv):
    return cli(capsys, "run", path, "--server", f"pets={server.url}", *argv)


def test_a_refusal_shows_the_status_and_body_in_the_console_and_the_json(capsys, write, server):
    server.reply("GET", "/flaky", (400, {"error": {"message": "unknown model 'gpt'"}}))
    path = write(_doc(flaky("ask", successCriteria=ok200())))

    result = run_json(capsys, path, server=server)
    assert result.code == 1
    got = step(result)
    assert got["failedCriteria"] == ["$statusCode == 200: got 400"]  # as before
    assert got["response"] == {
        "status": 400,
        "contentType": "application/json",
        "body": '{"error": {"message": "unknown model \'gpt\'"}}',
        "bodySize": 45,
    }

    text = _text(capsys, path, server)
    assert text.code == 1
    assert (
        "      successCriteria failed: $statusCode == 200: got 400\n"
        '      response 400 (application/json): {"error": {"message": "unknown model \'gpt\'"}}\n'
    ) in text.out


def test_a_long_body_is_cut_near_500_bytes_on_a_character_boundary_and_says_so(capsys, write, server):
    body = "é" * 1000  # two bytes each: 500 bytes are exactly 250 characters
    server.reply("GET", "/flaky", (503, "x" + body, {"Content-Type": "text/plain; charset=utf-8"}))
    path = write(_doc(flaky("ask", successCriteria=ok200())))

    got = step(run_json(capsys, path, server=server))["response"]
    assert got["body"] == "x" + "é" * 249  # 499 bytes: the 250th "é" would straddle the limit
    assert got["bodySize"] == 2001
    assert got["bodyOmittedBytes"] == 2001 - 499

    text = _text(capsys, path, server)
    assert (
        f"      response 503 (text/plain; charset=utf-8): x{'é' * 249}\n      ... (1502 more bytes)\n"
        in text.out
    )


def test_secrets_are_masked_before_the_body_is_cut(capsys, write, server):
    # the secret straddles the 500-byte limit: cut first, its first half would show
    server.reply("GET", "/flaky", (401, "a" * 495 + SECRET + "b" * 100, {"Content-Type": "text/plain"}))
    path = write(_doc(flaky("ask", successCriteria=ok200())))
    given = ("--input", f"password={SECRET}")

    json_run = run_json(capsys, path, *given, server=server)
    got = step(json_run)["response"]
    assert got["body"].startswith("a" * 495 + "***b")
    text = _text(capsys, path, server, *given)
    for output in (json_run.out, text.out):
        assert SECRET[:6] not in output
    assert "a" * 495 + "***b" in text.out


def test_a_binary_body_is_described_not_dumped(capsys, write, server):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    server.reply("GET", "/flaky", (415, png, {"Content-Type": "image/png"}))
    path = write(_doc(flaky("ask")))  # no successCriteria: a status of 400 or more fails the step

    got = step(run_json(capsys, path, server=server))
    assert got["error"] == "HTTP 415 (no successCriteria: a status below 400 is required)"
    assert got["response"] == {
        "status": 415,
        "contentType": "image/png",
        "body": None,
        "bodySize": len(png),
        "bodyBinary": True,
    }
    text = _text(capsys, path, server)
    assert f"      response 415 (image/png): {len(png)} bytes of binary data\n" in text.out
    assert "PNG" not in text.out


def test_a_step_that_passes_on_a_retry_keeps_no_excerpt_and_junit_carries_one(
    capsys, write, server, tmp_path
):
    server.reply("GET", "/flaky", (503, {"state": "down"}), (200, {}))
    server.reply("GET", "/pets", (500, "line one\nline two", {"Content-Type": "text/plain"}))
    passes = flaky("ask", successCriteria=ok200(), onFailure=[retry()])
    fails = {"stepId": "list", "operationId": "listPets", "successCriteria": ok200()}
    path = write(_doc(passes, fails))

    result = run_json(capsys, path, server=server)
    assert result.code == 1
    assert "response" not in step(result, 0)  # it passed in the end
    assert step(result, 1)["response"]["body"] == "line one\nline two"

    junit = tmp_path / "junit.xml"
    text = _text(capsys, path, server, "--junit", junit)
    assert "      response 500 (text/plain):\n        | line one\n        | line two\n" in text.out
    failure = ET.parse(junit).getroot().find("testsuite/testcase[@name='list']/failure")
    assert failure is not None
    assert failure.text == (
        "failed: $statusCode == 200: got 500\nresponse 500 (text/plain):\n  | line one\n  | line two"
    )
