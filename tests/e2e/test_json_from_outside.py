"""The rule for JSON from outside (`bounds/json_text.py`, docs/reliability.md) where `arazzo run` reads it:
a response body with lone surrogate escapes reads them as U+FFFD (its outputs, criteria and reports
alike: a criterion's literal escape compares equal), inputs given inline nesting deeper than 128
levels are a usage error saying so; a body's charset yields no lone surrogate (nor a crash when unknown),
`arazzo report` reads saved runs by the rule, and a stdout that is not UTF-8 gets escapes, not a crash.
Against a real local server."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import fault_run, list_step
from tests.e2e.helpers import cli, op_step, run_json, subprocess_cli, workflow
from tests.servers import faults

DEEP = "[" * 100_000 + "]" * 100_000
REPORTS = ("--junit", "--html", "--har", "--summary", "--report-json")


def _doc(**inputs) -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[{"name": "petId", "in": "path", "value": 1}],
        successCriteria=[
            {"condition": "$statusCode == 200"},
            {"context": "$response.body", "condition": '$.name == "x\\ud800y"', "type": "jsonpath"},
        ],
        outputs={"name": "$response.body#/name", "tags": "$response.body#/tags"},
    )
    outputs = {"name": "$steps.get.outputs.name", "tags": "$steps.get.outputs.tags"}
    return arazzo_doc(workflow("flow", get, outputs=outputs, **inputs))


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": "x\\ud800y", "tags": ["\\udfff", "\\ud83d\\ude00"], "\\ud800": 1}',
        # encoded in the bytes (not UTF-8, which json.loads decodes with `surrogatepass`), no escape
        b'{"name": "x\xed\xa0\x80y", "tags": ["\xed\xbf\xbf", "\xf0\x9f\x98\x80"], "\xed\xa0\x80": 1}',
        # UTF-16 and UTF-32 (json.loads detects them, and decodes with `surrogatepass` too): a surrogate
        # code unit alone, and an escape of one, which the rule's search in the bytes did not see
        '{"name": "x\ud800y", "tags": ["\udfff", "\U0001f600"], "\\ud800": 1}'.encode(
            "utf-16-le", "surrogatepass"
        ),
        '{"name": "x\\ud800y", "tags": ["\\udfff", "\\ud83d\\ude00"], "\ud800": 1}'.encode(
            "utf-32-be", "surrogatepass"
        ),
    ],
    ids=["escaped", "encoded", "utf-16", "utf-32"],
)
def test_a_lone_surrogate_in_a_body_reads_as_u_fffd_everywhere(capsys, write, server, tmp_path, body):
    server.route("GET", "/pets/{id}")(lambda request: (200, body, {"Content-Type": "application/json"}))
    report = tmp_path / "report.json"
    result = run_json(capsys, write(_doc()), "--report", report, server=server)
    assert result.code == 0, result.out  # the criterion's literal read by the same rule: equal
    assert result.json["workflows"][0]["outputs"] == {"name": "x\ufffdy", "tags": ["\ufffd", "\U0001f600"]}
    assert "x\ufffdy" in json.loads(report.read_text(encoding="utf-8"))["workflows"][0]["outputs"]["name"]
    text = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}")
    assert text.code == 0 and "x\ufffdy" in text.out


def test_inputs_given_inline_nesting_too_deep_are_a_usage_error(capsys, write, server):
    schema = {"type": "object", "properties": {"tags": {"type": "array"}}}
    path = write(_doc(inputs=schema))
    inline = cli(capsys, "run", path, "--server", f"pets={server.url}", "--inputs", f'{{"tags": {DEEP}}}')
    assert inline.code == 2
    assert "--inputs was not read: it nests deeper than 128 levels" in inline.err
    flag = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", f"tags={DEEP}")
    assert flag.code == 2  # too deep to read as an array: kept as text, which the schema refuses
    assert '- tags: "[[[[' in flag.err and 'more chars) is not of type "array"' in flag.err
    assert server.requests == []


# -- a body's charset: text the engine holds is Unicode whatever the server names ---------------------


@pytest.mark.parametrize(
    ("charset", "body"),
    [("utf-7", b"+2AA-"), ("unicode_escape", b"\\ud800"), ("raw_unicode_escape", b"\\ud800")],
)
def test_a_text_body_in_a_charset_that_decodes_to_lone_surrogates_is_read_as_utf8(
    capsys, write, tmp_path, charset, body
):
    """These codecs decode to lone surrogates (`+2AA-`, `\\ud800`), which no UTF-8 can carry: every report
    writer failed with UnicodeEncodeError. They are no charset for a body: it is read as UTF-8, noted."""
    wire = {"Content-Type": f"text/plain; charset={charset}", "Content-Length": str(len(body))}
    reports = {flag: tmp_path / f"report{flag}" for flag in REPORTS}
    argv = [part for flag, path in reports.items() for part in (flag, path)]
    run = fault_run(capsys, write, faults.answer(200, wire, body), argv=tuple(argv))
    assert run.code == 0, run.cli.out
    assert run.step["outputs"]["body"] == body.decode("ascii")
    assert f"the response's charset '{charset}' is not read here" in " ".join(run.step["warnings"])
    for path in reports.values():  # each written, as UTF-8
        assert path.read_bytes().decode("utf-8"), path
    saved = json.loads(reports["--report-json"].read_text(encoding="utf-8"))
    assert saved["workflows"][0]["steps"][0]["outputs"]["body"] == body.decode("ascii")


def test_a_text_body_with_an_unknown_charset_is_read_as_utf8_with_a_note(capsys, write):
    """An unknown charset raised LookupError out of the body's parse: the run crashed."""
    wire = {"Content-Type": "text/plain; charset=no-such-charset", "Content-Length": "6"}
    run = fault_run(capsys, write, faults.answer(200, wire, "h\u00e9llo".encode()))
    assert run.code == 0, run.cli.out
    assert run.step["outputs"]["body"] == "h\u00e9llo"
    assert run.step["warnings"] == [
        "the response names an unknown charset 'no-such-charset': its body was read as UTF-8"
    ]


# -- `arazzo report RUN.json`: a saved run is JSON from outside too -----------------------------------


def _saved_run(capsys, write, tmp_path, replace: str):
    """A real `--report-json` of one step whose output `"rex"` is then replaced by `replace`."""
    saved = tmp_path / "run.json"
    fault_run(capsys, write, faults.reply([{"name": "rex"}]), argv=("--report-json", saved))
    saved.write_text(saved.read_text(encoding="utf-8").replace('"rex"', replace), encoding="utf-8")
    return saved


def test_arazzo_report_of_a_run_json_holding_a_lone_surrogate_writes_its_pages(capsys, write, tmp_path):
    """A run file shared as a CI artifact: `"\\ud800"` (escaped: valid UTF-8 JSON) was an internal error
    at the page's write; it reads as U+FFFD."""
    saved = _saved_run(capsys, write, tmp_path, '"\\ud800"')
    for flag, name in (("-o", "page.html"), ("--summary", "summary.md")):
        result = cli(capsys, "report", saved, flag, tmp_path / name)
        assert result.code == 0, result.err
        assert "\ufffd" in (tmp_path / name).read_bytes().decode("utf-8") or flag == "--summary"


def test_arazzo_report_of_a_run_json_nesting_too_deep_is_a_usage_error(capsys, write, tmp_path):
    """json.load read ~990 levels and the page's walkers recursed through them; the rule's bound leaves
    the report's own structure 32 levels around a body of 128."""
    saved = _saved_run(capsys, write, tmp_path, "[" * 900 + "]" * 900)
    result = cli(capsys, "report", saved, "-o", tmp_path / "page.html")
    assert result.code == 2
    assert f"{saved}: not a JSON report: it nests deeper than 160 levels" in result.err
    body = _saved_run(capsys, write, tmp_path, "[" * 120 + "]" * 120)  # a body as deep as a run keeps
    assert cli(capsys, "report", body, "-o", tmp_path / "page.html").code == 0


# -- a terminal whose encoding is not UTF-8 -----------------------------------------------------------


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("argv", [("-v",), ("--format", "json")], ids=["verbose", "json"])
def test_server_text_printed_to_a_non_utf8_stdout_is_escaped_not_a_crash(write, encoding, argv):
    """Valid text (`é ☃`) became `internal error (UnicodeEncodeError)` and exit 2 on a stdout whose
    encoding cannot carry it (PYTHONIOENCODING=ascii, a latin-1 locale, a legacy Windows console), after
    the run had passed: what the encoding cannot carry is written as a backslash escape, and `--format
    json` is written as ASCII JSON."""
    path = write(arazzo_doc(workflow("flow", list_step())))
    with faults.FaultServer() as server:
        server.script("/pets", faults.reply([{"name": "r\u00e9x \u2603"}]))
        run = subprocess_cli(
            "run",
            path,
            "--server",
            f"pets={server.url}",
            *argv,
            env={"PYTHONIOENCODING": encoding},
            encoding=encoding,
        )
    assert run.code == 0, run.err
    if argv == ("-v",):
        assert ("r\\xe9x" if encoding == "ascii" else "r\u00e9x") in run.out
        assert "\\u2603" in run.out
    else:  # exact JSON still: `\\uXXXX` escapes, not the stream's
        assert json.loads(run.out)["workflows"][0]["steps"][0]["outputs"]["body"] == [
            {"name": "r\u00e9x \u2603"}
        ]
