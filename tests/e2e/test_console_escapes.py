"""The console is not the server's terminal: text a server or a document controls (bodies and headers
with `--verbose`, criteria messages, outputs, errors, warnings) never reaches stdout or stderr with a raw
control character. `ESC ]52` would write the user's clipboard, `ESC ]0` the window title, a carriage
return or a newline could forge a `✓ passed` line; they are shown escaped (`\\x1b`, `\\r`, `\\n`)."""

from __future__ import annotations

import io
import json
import re

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from arazzo_runner.report.console import ConsoleReporter
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: set the clipboard to "evil"
TITLE = "\x1b]0;pwned\x07"  # OSC 0: set the window title
FORGED = "\n✓ forged passed line"
HOSTILE = {
    "status": CLIPBOARD,
    "title": TITLE,
    "cr": "waiting\r✓ forged carriage return",
    "nl": "x" + FORGED,
    "c1": "\x9b2J",  # CSI as one C1 character: clears the screen on terminals that read C1
    "bidi": "abc\u202etxt.exe",  # right-to-left override: shows `abcexe.txt`
    "del": "a\x7fb",
}
RAW = ("\x1b", "\x07", "\r", "\x9b", "\u202e", "\x7f")


def _serve(server) -> None:
    headers = {"X-Clipboard": CLIPBOARD, "X-Title": TITLE, "X-C1": "\x9b2J"}
    server.route("GET", "/pets")(lambda r: (200, HOSTILE, headers))
    text = f"plain {CLIPBOARD} {TITLE} line\r✓ forged{FORGED}\n"
    server.route("GET", "/flaky")(lambda r: (500, text, {"Content-Type": "text/plain"}))


def _document() -> dict:
    criteria = [
        {"condition": "$response.body#/status == 'ok'"},
        {"condition": "$response.body#/nl == 'ok'"},
        {"condition": "$response.body#/cr == 'ok'"},
        {"condition": "$response.header.X-Title == 'ok'"},
        {"condition": "$response.body#/bidi == 'ok'"},
        {"context": "$response.body", "condition": "^ok$", "type": "regex"},
    ]
    listing = op_step(
        "list",
        "listPets",
        successCriteria=criteria,
        onFailure=[{"name": "on", "type": "goto", "stepId": "plain"}],
        outputs={"title": "$response.body#/title", "all": "$response.body"},
    )
    plain = op_step("plain", "flaky")
    outputs = {"title": "$steps.list.outputs.title", "all": "$steps.list.outputs.all"}
    flow = workflow("flow", listing, plain, outputs=outputs)
    return arazzo_doc(flow)


def _no_raw_controls(text: str, where: str) -> None:
    for char in RAW:
        assert char not in text, f"{char!r} reached {where}"
    for line in text.split("\n"):
        assert not line.lstrip().startswith("✓ forged"), f"a forged line in {where}: {line!r}"


def test_the_text_console_escapes_what_servers_send(capsys, write, server):
    _serve(server)
    path = write(_document())
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--verbose")
    assert result.code == 1, result.out
    _no_raw_controls(result.out, "stdout")
    _no_raw_controls(result.err, "stderr")
    # shown, escaped: the verbose body and headers, criteria messages, outputs, the failed response
    assert r"\x1b]52;c;ZXZpbA==\x07" in result.out
    assert r"< x-title: \x1b]0;pwned\x07" in result.out
    assert r"< x-c1: \x9b2J" in result.out
    assert r"$response.body#/nl == 'ok' -> got 'x\n✓ forged passed line'" in result.out
    assert r"got 'waiting\r✓ forged carriage return'" in result.out
    assert r"got 'abc\u202etxt.exe'" in result.out
    assert r'title: "\u001b]0;pwned\u0007"' in result.out  # an output is shown as JSON
    assert r"| plain \x1b]52;c;ZXZpbA==\x07 \x1b]0;pwned\x07 line\r✓ forged" in result.out


def test_json_output_stays_valid_json_with_the_controls_escaped(capsys, write, server):
    _serve(server)
    path = write(_document())
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--format", "json", "--verbose")
    assert result.code == 1, result.out
    _no_raw_controls(result.out, "stdout")
    _no_raw_controls(result.err, "stderr (--verbose)")
    data = json.loads(result.out)
    assert data["workflows"][0]["outputs"]["all"] == HOSTILE  # JSON escapes: the values are intact


def test_colours_are_the_only_escape_sequences_the_console_writes(server, write):
    _serve(server)
    path = write(_document())
    stream = io.StringIO()
    reporter = ConsoleReporter(stream, color=True, verbose=True)
    options = RunOptions(servers={"pets": server.url}, on_event=reporter.on_event)
    result = arazzo_runner.run(str(path), options=options)
    reporter.summary(result)
    text = stream.getvalue()
    assert "\x1b[31m" in text  # colour is on
    without_colours = re.sub(r"\x1b\[[0-9;]*m", "", text)
    _no_raw_controls(without_colours, "the coloured console")
