"""Where a generated document goes, and what running it takes: a source URL right wherever the document
is saved (`-o FILE`, `> FILE`, a pipe), and a "run them:" hint that runs as printed, credentials included
(`--auth`, spelled as `arazzo run` takes it). Each document is validated and run against real local
servers from another folder than the one it was generated in."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from tests.e2e.generatekit import data, generate, statuses
from tests.e2e.helpers import ROOT, cli
from tests.servers.library import DESCRIPTION as LIBRARY
from tests.servers.library import KEY, LibraryServer
from tests.servers.openapi_mock import OpenAPIMock
from tests.servers.scripted import ScriptedServer

ORDERS = ROOT / "openapi" / "orders.openapi.yaml"


def _generate_to(stdout: object, cwd: Path, *argv: object) -> subprocess.CompletedProcess:
    """`arazzo generate ARGV` as a real process run in `cwd`, its stdout the given file (or a pipe)."""
    cwd.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "generate", *map(str, argv)],
        stdout=stdout, stderr=subprocess.PIPE, text=True, encoding="utf-8", cwd=cwd, check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("ARAZZO_")},
    )  # fmt: skip
    assert "Traceback" not in proc.stderr
    return proc


def _validates_and_runs(capsys, document: Path, inputs: Path, elsewhere: Path, monkeypatch) -> None:
    """From a third folder: `arazzo validate` finds nothing, and every workflow passes against a mock."""
    elsewhere.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(elsewhere)
    checked = cli(capsys, "validate", document)
    assert (checked.code, checked.out.strip()) == (0, "0 errors, 0 warnings in 1 file"), checked.out
    with OpenAPIMock(ORDERS) as mock:
        result = cli(capsys, "run", document, "--format", "json", "--server", f"orders={mock.url}",
                     "--inputs", inputs)  # fmt: skip
    assert result.code == 0, result.out[-2000:]
    assert set(statuses(result).values()) == {"passed"} and len(mock.requests) == 2


def test_stdout_redirected_to_a_file_names_the_source_relative_to_that_file(capsys, tmp_path, monkeypatch):
    """`arazzo generate spec.yaml > saved/deeper/out.yaml` run in another folder: the URL is relative to
    the file stdout is (found by its descriptor), so the document is portable with its description."""
    saved = tmp_path / "saved" / "deeper"
    saved.mkdir(parents=True)
    document, inputs = saved / "orders.arazzo.yaml", tmp_path / "inputs.json"
    with document.open("w", encoding="utf-8") as out:
        made = _generate_to(out, tmp_path / "work", ORDERS, "--inputs-out", inputs)
    assert made.returncode == 0, made.stderr
    relative = os.path.relpath(ORDERS, saved).replace(os.sep, "/")
    assert data(document)["sourceDescriptions"][0]["url"] == relative
    assert f"note: stdout is the file {document}: source URLs are relative to it\n" in made.stderr
    assert f"run them: arazzo run {document} --inputs {inputs}\n" in made.stderr  # no scheme: no --auth
    _validates_and_runs(capsys, document, inputs, tmp_path / "third", monkeypatch)


def test_stdout_to_a_pipe_names_the_source_by_its_absolute_uri_and_says_so(capsys, tmp_path, monkeypatch):
    """Through a pipe (`| tee`, a program), where the text lands is not known: the absolute `file:` URI,
    right wherever it is saved on this machine, and a note saying so and how to get a relative one."""
    inputs = tmp_path / "inputs.json"
    made = _generate_to(subprocess.PIPE, tmp_path / "work", ORDERS, "--inputs-out", inputs)
    assert made.returncode == 0, made.stderr
    assert data_of(made.stdout)["sourceDescriptions"][0]["url"] == ORDERS.as_uri()
    assert (
        f"note: the document went to stdout: source URLs are absolute ({ORDERS.as_uri()}), right wherever "
        "it is saved on this machine; -o FILE writes them relative to FILE\n"
    ) in made.stderr
    assert f"run them: arazzo run FILE --inputs {inputs}\n" in made.stderr
    document = tmp_path / "elsewhere" / "deeper" / "orders.arazzo.yaml"
    document.parent.mkdir(parents=True)
    document.write_text(made.stdout, encoding="utf-8")
    _validates_and_runs(capsys, document, inputs, tmp_path / "third", monkeypatch)


def data_of(text: str) -> dict:
    from arazzo_runner.loader import load_text

    return load_text(text, "<stdout>").data


def _hint(err: str) -> list[str]:
    """The words of the "run them:" command, as a shell would split them (`arazzo` left out)."""
    (line,) = [line for line in err.splitlines() if "; run them: " in line]
    words = shlex.split(line.split("; run them: ", 1)[1])
    assert words[:2] == ["arazzo", "run"]
    return words[2:]


def test_the_run_hint_names_the_credential_and_runs_as_printed(capsys, tmp_path):
    """The library wants an API key on every operation: the hint says `--auth libraryKey=VALUE` and which
    variable stands for it; with the key put for VALUE, the hinted command runs the chain."""
    document = tmp_path / "my docs" / "library.arazzo.yaml"  # a space: the hint quotes it
    document.parent.mkdir()
    made = cli(capsys, "generate", LIBRARY, "-o", document, "--inputs-out", tmp_path / "inputs.json")
    assert made.code == 0, made.err
    words = _hint(made.err)
    assert words == [str(document), "--inputs", str(tmp_path / "inputs.json"), "--auth", "libraryKey=VALUE"]
    assert shlex.quote(str(document)) in made.err
    said = "  --auth libraryKey: header X-Library-Key; or set ARAZZO_AUTH_LIBRARYKEY_API_KEY instead\n"
    assert said in made.err
    argv = [f"libraryKey={KEY}" if word == "libraryKey=VALUE" else word for word in words]
    with LibraryServer() as server:
        result = cli(capsys, "run", *argv, "-w", "books-lifecycle", "--server", f"library={server.url}",
                     "--format", "json")  # fmt: skip
    assert result.code == 0, result.out[-2000:]
    assert [r.method for r in server.requests] == ["POST", "GET", "PATCH", "DELETE"]
    assert all(r.headers["x-library-key"] == KEY for r in server.requests)


_A = """openapi: 3.1.0
info: {title: A, version: '1'}
servers: [{url: 'http://127.0.0.1:9'}]
security: [{key: []}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-A-Key}
    login: {type: http, scheme: basic}
paths:
  /a:
    get:
      operationId: getA
      security: [{login: []}, {key: []}]
      responses: {'200': {description: ok}}
  /a2:
    get:
      operationId: getA2
      responses: {'200': {description: ok}}
"""
_B = """openapi: 3.1.0
info: {title: B, version: '1'}
servers: [{url: 'http://127.0.0.1:9'}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-B-Key}
    unused: {type: http, scheme: bearer}
paths:
  /b:
    get:
      operationId: getB
      security: [{key: []}]
      responses: {'200': {description: ok}}
  /open:
    get:
      operationId: getOpen
      security: [{}, {unused: []}]
      responses: {'200': {description: ok}}
"""


def test_the_hint_spells_each_scheme_as_run_takes_it(capsys, tmp_path):
    """A name two sources define is qualified (`a:key`), basic wants `USER:PASSWORD`, an operation with
    alternatives names the first, anonymous access (`{}`) wants none; `arazzo run` takes the hinted
    command with the placeholders filled, and each credential reaches its own server."""
    (tmp_path / "a.yaml").write_text(_A, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(_B, encoding="utf-8")
    made, _, _ = generate(capsys, tmp_path, tmp_path / "a.yaml", tmp_path / "b.yaml")
    assert made.code == 0, made.err
    words = _hint(made.err)
    assert words[3:] == ["--auth", "login=USER:PASSWORD", "--auth", "a:key=VALUE", "--auth", "b:key=VALUE"]
    assert (
        "  --auth login: Authorization: Basic <username:password>; or set ARAZZO_AUTH_LOGIN_USERNAME + "
        "ARAZZO_AUTH_LOGIN_PASSWORD instead\n"
    ) in made.err
    assert "  --auth a:key: header X-A-Key; or set ARAZZO_AUTH_A__KEY_API_KEY instead\n" in made.err
    filled = {"login=USER:PASSWORD": "login=ada:pw", "a:key=VALUE": "a:key=ka", "b:key=VALUE": "b:key=kb"}
    argv = [filled.get(word, word) for word in words]
    with OpenAPIMock(tmp_path / "a.yaml") as a, OpenAPIMock(tmp_path / "b.yaml") as b:
        result = cli(capsys, "run", *argv, "--server", f"a={a.url}", "--server", f"b={b.url}",
                     "--format", "json")  # fmt: skip
    assert result.code == 0, result.out[-2000:]
    sent = {r.path: r.headers for r in [*a.requests, *b.requests]}
    assert sent["/a"]["authorization"] == "Basic YWRhOnB3" and "x-a-key" not in sent["/a"]
    assert sent["/a2"]["x-a-key"] == "ka" and sent["/b"]["x-b-key"] == "kb"
    assert "authorization" not in sent["/open"]


def test_stdout_redirected_with_a_description_by_url_claims_no_relative_source(tmp_path):
    """A description given as an http(s) URL is written as given: the note that source URLs are
    relative to the redirected file would be false, so it is not printed."""
    with ScriptedServer() as server:
        server.reply("GET", "/specs/orders.yaml", (200, ORDERS.read_text(encoding="utf-8")))
        url = f"{server.url}/specs/orders.yaml"
        document = tmp_path / "orders.arazzo.yaml"
        with document.open("w", encoding="utf-8") as out:
            made = _generate_to(out, tmp_path / "work", url)
    assert made.returncode == 0, made.stderr
    assert data(document)["sourceDescriptions"][0]["url"] == url
    assert "relative" not in made.stderr, made.stderr
