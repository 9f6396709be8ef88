"""Long values in messages are cut (after masking): an error that repeats a 5 MB URL, a criterion that
quotes a 5 MB value, still make a small result, in every writer. The request itself is not cut."""

from __future__ import annotations

import json

from arazzo_runner.masking.secrets import VALUE_LIMIT
from tests.cputime import cpu_bound
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

BIG = 5_000_000


def _document() -> dict:
    inputs = {"type": "object", "properties": {"big": {"type": "string"}}}
    use = op_step(
        "use",
        "listPets",
        parameters=[{"name": "tags", "in": "query", "value": ["$inputs.big"]}],
    )
    return arazzo_doc(workflow("flow", use, inputs=inputs))


def test_an_error_repeating_a_5_mb_url_makes_a_small_result(capsys, write, server, tmp_path):
    """The README's figure: the JSON result, JUnit and the console stay under 4 KB; the JSON report
    and the HAR keep the request as sent (the URL once in the report; in HAR as its `url` and again as
    the decoded `queryString` value)."""
    server.route("GET", "/pets")(lambda r: (200, []))
    path = write(_document())
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"big": "a" * BIG}))
    junit, report, har = tmp_path / "junit.xml", tmp_path / "run.json", tmp_path / "run.har"
    flags = ["--server", f"pets={server.url}", "--inputs", inputs]
    with cpu_bound(20, "a run quoting a 5 MB URL") as spent:
        result = cli(
            capsys, "run", path, *flags, "--format", "json", "--junit", junit, "--report-json", report,
            "--har", har,
        )  # fmt: skip
    print(f"CPU: {spent.seconds:.2f} s")
    assert result.code == 1
    step = result.json["workflows"][0]["steps"][0]
    assert "URL" in step["error"]  # the URL is too long for the client: the error quotes it
    assert "more chars)" in step["error"]
    # several copies of the URL (the step's, its error, the workflow's error), each cut to the limit
    assert len(result.out.encode()) < 4096
    assert len(junit.read_bytes()) < 4096
    console = cli(capsys, "run", path, *flags)
    assert console.code == 1
    assert len((console.out + console.err).encode()) < 4096
    whole = "a" * BIG
    assert report.read_text().count(whole) == 1  # the request as sent, once
    assert len(report.read_bytes()) < BIG + 8192  # and the cut copies of the result
    assert har.read_text().count(whole) == 2  # `url` and `queryString`


def test_a_criterion_quoting_a_5_mb_value_makes_a_small_message(capsys, write, server):
    server.route("GET", "/pets")(lambda r: (200, {"note": "b" * BIG}))
    step = op_step("list", "listPets", successCriteria=[{"condition": "$response.body#/note == 'short'"}])
    path = write(arazzo_doc(workflow("flow", step)))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}")
    assert result.code == 1
    assert len(result.out) < 20 * VALUE_LIMIT < BIG
    assert f"$response.body#/note == 'short' -> got '{'b' * 80}...(4999920 more chars)'" in result.out
