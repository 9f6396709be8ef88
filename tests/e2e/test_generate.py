"""`arazzo generate`: from the project's own OpenAPI descriptions, documents that validate without errors,
whose every workflow runs against a mock of the description with the example inputs written beside it;
a workflow per operation as the issue says (inputs, parameters and body from inputs, success criteria,
outputs); the command's flags and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arazzo_runner.reference import ReferenceServer
from tests.e2e.generatekit import data, generate, run, source_name, statuses, workflow
from tests.e2e.helpers import ROOT, cli
from tests.servers.library import DESCRIPTION as LIBRARY
from tests.servers.openapi_mock import OpenAPIMock
from tests.servers.scripted import ScriptedServer

DESCRIPTIONS = sorted((ROOT / "openapi").glob("*.y*ml"))


@pytest.mark.parametrize("description", [*DESCRIPTIONS, LIBRARY], ids=lambda p: p.name)
def test_a_description_gives_a_valid_document_whose_workflows_all_run_against_its_mock(
    capsys, tmp_path, description
):
    made, document, inputs = generate(capsys, tmp_path, description)
    assert made.code == 0, made.err
    assert "(0 errors, 0 warnings)" in made.err
    checked = cli(capsys, "validate", document)
    assert (checked.code, checked.out.strip()) == (0, "0 errors, 0 warnings in 1 file")
    operations = sum(1 for w in data(document)["workflows"] if len(w["steps"]) == 1)
    with OpenAPIMock(description) as mock:
        result = run(capsys, document, mock, source_name(document), "--inputs", inputs)
    assert result.code == 0, result.out[-2000:]
    assert set(statuses(result).values()) == {"passed"}
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    assert operations == sum(len(methods & set(item)) for item in mock.description["paths"].values())


def test_the_generated_chat_completion_workflow_runs_against_the_reference_server(capsys, tmp_path):
    description = ROOT / "openapi" / "chatgpt-chat-completions-api-openapi.yml"
    made, document, inputs = generate(capsys, tmp_path, description)
    assert made.code == 0, made.err
    with ReferenceServer() as server:  # it wants a bearer token: the scheme's, applied by the engine
        result = run(
            capsys,
            document,
            server,
            source_name(document),
            "--inputs",
            inputs,
            "--auth",
            "bearerAuth=sk-local",
        )
    assert result.code == 0, result.out[-2000:]
    outputs = result.json["workflows"][0]["outputs"]
    assert outputs["object"] == "chat.completion" and outputs["choices"][0]["message"]["tool_calls"]


def test_a_workflow_per_operation_takes_parameters_and_body_from_inputs(capsys, tmp_path):
    made, document, _ = generate(capsys, tmp_path, LIBRARY)
    assert made.code == 0, made.err
    create = workflow(document, "createBook")
    assert create["summary"] == "Add a book"
    schema = create["inputs"]
    assert schema["required"] == ["title", "author"]
    assert list(schema["properties"]) == ["title", "author", "year", "tags"]  # readOnly id, status left out
    assert schema["properties"]["title"] == {
        "type": "string",
        "minLength": 1,
        "examples": ["The Left Hand of Darkness"],
    }
    (step,) = create["steps"]
    assert step["operationId"] == "createBook"
    assert step["requestBody"] == {
        "contentType": "application/json",
        "payload": {k: f"$inputs.{k}" for k in ("title", "author", "year", "tags")},
    }
    assert step["successCriteria"] == [{"condition": "$statusCode == 201"}]
    names = ["id", "status", "title", "author", "year", "tags"]
    assert step["outputs"] == {name: f"$response.body#/{name}" for name in names}
    assert create["outputs"] == {name: f"$steps.createBook.outputs.{name}" for name in names}
    read = workflow(document, "getBook")
    assert read["inputs"]["properties"]["bookId"]["description"] == "The book's id."
    assert read["steps"][0]["parameters"] == [{"name": "bookId", "in": "path", "value": "$inputs.bookId"}]
    removed = workflow(document, "deleteBook")
    assert removed["steps"][0]["successCriteria"] == [{"condition": "$statusCode == 204"}]
    assert "outputs" not in removed and "outputs" not in removed["steps"][0]


def test_the_example_inputs_are_one_json_object_for_inputs_and_for_inputs_file(capsys, tmp_path):
    made, document, inputs = generate(capsys, tmp_path, LIBRARY)
    assert made.code == 0, made.err
    text = inputs.read_text(encoding="utf-8")
    assert text.count("\n") == 1 and text.endswith("\n")
    values = json.loads(text)
    assert values["title"] == "The Left Hand of Darkness" and values["year"] == 1969  # the examples
    assert values["bookId"] == "3fa85f64-5717-4562-b3fc-2c963f66afa6"  # made from format: uuid
    assert "tags" not in values  # optional, and the description gives no example
    for flag in ("--inputs", "--inputs-file"):
        with OpenAPIMock(LIBRARY) as mock:
            result = run(capsys, document, mock, "library", flag, inputs)
        assert result.code == 0, (flag, result.out[-2000:])
        rows = result.json.get("rows")
        workflows = rows[0]["result"]["workflows"] if rows else result.json["workflows"]
        assert {w["status"] for w in workflows} == {"passed"}, flag
    said = f"run them: arazzo run {document} --inputs {inputs}"
    assert said in made.err


def test_operations_chosen_by_id_or_method_and_path(capsys, tmp_path):
    made, document, _ = generate(
        capsys, tmp_path, LIBRARY, flags=("--operation", "getBook", "--operation", "POST /books")
    )
    assert made.code == 0, made.err
    ids = [w["workflowId"] for w in data(document)["workflows"]]
    assert ids == ["createBook", "getBook", "books-lifecycle"]  # the chain of the two chosen
    assert [s["stepId"] for s in workflow(document, "books-lifecycle")["steps"]] == ["createBook", "getBook"]
    alone, document, _ = generate(capsys, tmp_path, LIBRARY, flags=("--operation", "getBook", "--no-chains"))
    assert alone.code == 0 and [w["workflowId"] for w in data(document)["workflows"]] == ["getBook"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--operation", "getBok"],
            "--operation getBok: no operation has that operationId (or METHOD /path); "
            "did you mean 'getBook'?",
        ),
        (["--model", "m"], "--model is for --chat"),
        (
            ["--chat", "ftp://x", "--model", "m"],
            "--chat ftp://x: expected an absolute http:// or https:// URL",
        ),
        (["--chat", "http://127.0.0.1:9/v1"], "give the model with --model"),
    ],
)
def test_usage_errors_exit_2_and_write_nothing(capsys, tmp_path, monkeypatch, argv, said):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused")
    result, document, inputs = generate(capsys, tmp_path, LIBRARY, flags=tuple(argv))
    assert result.code == 2 and said in result.err, result.err
    assert not document.exists() and not inputs.exists()


def test_descriptions_that_cannot_be_read_exit_2_naming_the_file(capsys, tmp_path):
    missing = cli(capsys, "generate", tmp_path / "nope.yaml")
    assert missing.code == 2 and "nope.yaml" in missing.err and missing.out == ""
    swagger = tmp_path / "swagger.yaml"
    swagger.write_text("swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n", encoding="utf-8")
    old = cli(capsys, "generate", swagger)
    assert old.code == 2 and "Swagger 2.0 descriptions are not supported" in old.err
    arazzo = cli(capsys, "generate", ROOT / "workflows" / "order-events.arazzo.yaml")
    assert arazzo.code == 2 and "not an OpenAPI description: this is an Arazzo" in arazzo.err


def test_the_document_goes_to_stdout_without_output(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = cli(capsys, "generate", "openapi/orders.openapi.yaml", "--arazzo", "1.1.0")
    assert result.code == 0
    assert result.out.startswith("# Generated by `arazzo generate`")
    assert '\narazzo: "1.1.0"\n' in result.out
    uri = (ROOT / "openapi" / "orders.openapi.yaml").as_uri()  # where it is saved is not known here
    assert f"    url: {uri}\n" in result.out
    assert "generated 2 workflows (2 per operation, 0 chained) -> stdout (0 errors, 0 warnings)" in result.err
    assert (
        f"note: the document went to stdout: source URLs are absolute ({uri}), right wherever it is "
        "saved on this machine; -o FILE writes them relative to FILE\n"
    ) in result.err


def test_a_workflow_that_would_not_validate_is_dropped_with_the_reason_and_exit_1(capsys, tmp_path):
    description = tmp_path / "api.yaml"
    description.write_text(
        """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things:
    post:
      operationId: makeThing
      requestBody: {required: true, content: {}}
      responses: {'201': {description: made}}
    get:
      operationId: listThings
      responses: {'200': {description: the things}}
""",
        encoding="utf-8",
    )
    made, document, _ = generate(capsys, tmp_path, description)
    assert made.code == 1
    assert (
        "dropped operation workflow 'makeThing': request-body-required: "
        "operation 'makeThing' requires a request body" in made.err
    )
    assert [w["workflowId"] for w in data(document)["workflows"]] == ["listThings"]
    assert cli(capsys, "validate", document).code == 0


def test_the_library_api_is_importable_and_returns_what_it_wrote(tmp_path):
    from arazzo_runner.generate import generate as generate_api

    result = generate_api([LIBRARY], output=tmp_path / "lib.arazzo.yaml")
    assert result.report.valid and not result.dropped
    assert result.origin["books-lifecycle"] == "chain" and result.origin["getBook"] == "operation"
    assert result.text.startswith("# Generated by")
    assert Path(tmp_path / "lib.arazzo.yaml").exists() is False  # the library writes nothing itself


def test_several_descriptions_name_their_operations_by_source(capsys, tmp_path):
    made, document, inputs = generate(capsys, tmp_path, ROOT / "openapi" / "orders.openapi.yaml", LIBRARY)
    assert made.code == 0, made.err
    written = data(document)
    assert [s["name"] for s in written["sourceDescriptions"]] == ["orders", "library"]
    assert workflow(document, "getOrder")["steps"][0]["operationId"] == "$sourceDescriptions.orders.getOrder"
    assert workflow(document, "getBook")["steps"][0]["operationId"] == "$sourceDescriptions.library.getBook"
    assert cli(capsys, "validate", document).code == 0
    with OpenAPIMock(ROOT / "openapi" / "orders.openapi.yaml") as orders, OpenAPIMock(LIBRARY) as library:
        result = run(
            capsys, document, orders, "orders", "--server", f"library={library.url}", "--inputs", inputs
        )
    assert result.code == 0, result.out[-2000:]
    assert len(statuses(result)) == 13 and set(statuses(result).values()) == {"passed"}


def test_a_description_given_by_url_is_fetched_and_named_as_given(capsys, tmp_path):
    text = (ROOT / "openapi" / "orders.openapi.yaml").read_text(encoding="utf-8")
    with ScriptedServer() as server:
        server.reply("GET", "/specs/orders.yaml", (200, text, {"Content-Type": "application/yaml"}))
        url = f"{server.url}/specs/orders.yaml"
        made, document, _ = generate(capsys, tmp_path, url)
        assert made.code == 0, made.err
        assert data(document)["sourceDescriptions"] == [{"name": "orders", "url": url, "type": "openapi"}]
        assert cli(capsys, "validate", document).code == 0


def test_a_file_that_cannot_be_written_is_a_usage_error(capsys, tmp_path):
    missing = cli(capsys, "generate", LIBRARY, "-o", tmp_path / "no" / "such.arazzo.yaml")
    assert missing.code == 2 and "the folder" in missing.err and "does not exist" in missing.err
    folder = cli(capsys, "generate", LIBRARY, "--inputs-out", tmp_path)
    assert folder.code == 2 and f"--inputs-out {tmp_path}: cannot be written (a folder)" in folder.err
    assert folder.out == ""  # checked before anything is written
