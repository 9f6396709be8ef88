"""Chained workflows `arazzo generate` infers, run end to end against a real local server with state
(`tests/servers/library.py`): each id a step passes is the one the server answered the step before, or
the server answers 404 and the chain fails. Links come first; the resource structure after; each chain
says above it what it was inferred from. Credentials are the engine's, never inputs."""

from __future__ import annotations

import pytest

from tests.e2e.generatekit import data, generate, inputs_for, run, workflow
from tests.e2e.helpers import cli
from tests.servers.library import DESCRIPTION, KEY, SEEDED, LibraryServer


@pytest.fixture
def library(capsys, tmp_path):
    made, document, inputs = generate(capsys, tmp_path, DESCRIPTION)
    assert made.code == 0, made.err
    return document, inputs, tmp_path


def _run_chain(capsys, library, workflow_id, *flags):
    document, inputs, folder = library
    own = inputs_for(document, inputs, [workflow_id], folder)
    with LibraryServer() as server:
        result = run(capsys, document, server, "library", "-w", workflow_id, "--inputs", own, *flags)
    return result, server


def _calls(server):
    return [(r.method, r.path) for r in server.requests]


def test_create_then_read_update_delete_passes_the_id_the_server_answered(capsys, library):
    result, server = _run_chain(capsys, library, "books-lifecycle", "--auth", f"libraryKey={KEY}")
    assert result.code == 0, result.out[-2000:]
    (created,) = [book for book in server.requests if book.method == "POST"]
    new_id = result.json["workflows"][0]["outputs"]["bookId"]
    assert new_id != SEEDED and created.json() == {"title": "The Left Hand of Darkness",
                                                   "author": "Ursula K. Le Guin", "year": 1969}  # fmt: skip
    assert _calls(server) == [
        ("POST", "/books"),
        ("GET", f"/books/{new_id}"),
        ("PATCH", f"/books/{new_id}"),
        ("DELETE", f"/books/{new_id}"),
    ]
    assert new_id not in server.books  # it was really created, then really deleted
    assert all(r.headers["x-library-key"] == KEY for r in server.requests)


def test_list_then_get_reads_the_first_listed(capsys, library):
    result, server = _run_chain(capsys, library, "books-list-then-get", "--auth", f"libraryKey={KEY}")
    assert result.code == 0, result.out[-2000:]
    assert _calls(server) == [("GET", "/books"), ("GET", f"/books/{SEEDED}")]
    steps = result.json["workflows"][0]["steps"]
    assert steps[1]["outputs"]["title"] == "Kindred"


def test_links_pass_a_response_member_and_a_request_body_member(capsys, library):
    document = library[0]
    loan, server = _run_chain(capsys, library, "lendBook-then-getLoan", "--auth", f"libraryKey={KEY}")
    assert loan.code == 0, loan.out[-2000:]
    assert _calls(server) == [("POST", "/loans"), ("GET", "/loans/1")]
    assert workflow(document, "lendBook-then-getLoan")["steps"][1]["parameters"] == [
        {"name": "loanId", "in": "path", "value": "$steps.lendBook.outputs.loanId"}
    ]
    book, server = _run_chain(capsys, library, "lendBook-then-getBook", "--auth", f"libraryKey={KEY}")
    assert book.code == 0, book.out[-2000:]
    assert _calls(server) == [("POST", "/loans"), ("GET", f"/books/{SEEDED}")]
    assert server.books[SEEDED]["status"] == "lent"
    assert workflow(document, "lendBook-then-getBook")["steps"][1]["parameters"] == [
        {"name": "bookId", "in": "path", "value": "$inputs.bookId_body"}  # what the first step sent
    ]


def _comments(text):
    """workflowId -> the comment above it, its lines joined."""
    found, said = {}, []
    for line in text.splitlines():
        if line.startswith("  # "):
            said.append(line[4:])
        elif line.startswith("  - workflowId: "):
            if said:
                found[line.split(": ", 1)[1]] = " ".join(said)
            said = []
    return found


def test_each_chain_says_what_it_was_inferred_from(library):
    text = library[0].read_text(encoding="utf-8")
    assert _comments(text) == {
        "lendBook-then-getLoan": "chained by the OpenAPI link 'LoanById' of lendBook's 201 response: "
        "loanId <- $response.body#/loanId",
        "lendBook-then-getBook": "chained by the OpenAPI link 'LentBook' of lendBook's 201 response: "
        "bookId <- $request.body#/bookId",
        "books-lifecycle": "inferred from the resource structure: POST /books creates a book whose 'id' is "
        "the {bookId} of /books/{bookId}; then GET /books/{bookId}, PATCH /books/{bookId}, DELETE "
        "/books/{bookId} with it; the steps after PATCH take the 'id' it answered",
        "books-list-then-get": "inferred from the resource structure: GET /books lists the books; GET "
        "/books/{bookId} reads the first by its 'id' (/data/0/id)",
        "deleteBook": "the operations that remove or end something, last (`arazzo run` runs the workflows "
        "in this order, and the ones above read the example resources these remove): children before "
        "parents",
    }
    assert max(len(line) for line in text.splitlines() if line.lstrip().startswith("#")) <= 100
    ids = [w["workflowId"] for w in data(library[0])["workflows"]]
    assert "loans-lifecycle" not in ids  # the same chain as the LoanById link's: written once


def test_no_credential_is_an_input_the_engine_applies_the_scheme(capsys, library, monkeypatch):
    document = library[0]
    for flow in data(document)["workflows"]:
        names = {n.lower() for n in (flow.get("inputs") or {}).get("properties") or {}}
        assert not names & {"x-library-key", "librarykey"}, flow["workflowId"]
        for step in flow["steps"]:
            assert all(p["in"] != "header" for p in step.get("parameters") or ()), flow["workflowId"]
    listed = cli(capsys, "auth", document)
    assert "libraryKey (apiKey): header X-Library-Key" in listed.out
    assert "ARAZZO_AUTH_LIBRARYKEY_API_KEY" in listed.out
    refused, _ = _run_chain(capsys, library, "books-lifecycle")
    assert refused.code == 1 and "got 401" in refused.out  # without it the server refuses
    monkeypatch.setenv("ARAZZO_AUTH_LIBRARYKEY_API_KEY", KEY)
    passed, _ = _run_chain(capsys, library, "books-lifecycle")
    assert passed.code == 0, passed.out[-2000:]
    assert KEY not in passed.out and KEY not in passed.err


def test_the_generated_inputs_file_serves_one_workflow_the_others_names_left_out_and_said(capsys, library):
    """`--inputs-out` holds every workflow's inputs; `-w` with it sends the selected workflow's own and
    names the others' on stderr. A name no workflow declares is still a typo, and `--input` is always
    meant for the selection."""
    document, inputs, _ = library
    with LibraryServer() as server:
        result = run(capsys, document, server, "library", "-w", "books-lifecycle", "--inputs", inputs,
                     "--auth", f"libraryKey={KEY}")  # fmt: skip
    assert result.code == 0, result.out[-2000:]
    assert result.json["workflows"][0]["status"] == "passed"
    assert (
        f"note: --inputs {inputs}: not sent: bookId, bookId_body, loanId, member (the selected workflow "
        "does not declare them; other workflows of the document do)\n"
    ) in result.err
    assert [r.method for r in server.requests] == ["POST", "GET", "PATCH", "DELETE"]

    typo = inputs.with_name("typo.json")
    typo.write_text(inputs.read_text(encoding="utf-8").replace('"member"', '"membr"'), encoding="utf-8")
    refused = cli(capsys, "run", document, "-w", "books-lifecycle", "--inputs", typo)
    assert refused.code == 2 and "unknown input 'membr'" in refused.err
    assert "unknown input 'bookId'" not in refused.err
    flagged = cli(capsys, "run", document, "-w", "books-lifecycle", "--inputs", inputs, "--input", "member=x")
    assert flagged.code == 2 and "unknown input 'member'" in flagged.err
