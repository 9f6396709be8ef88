"""successCriteria over real HTTP: all must pass, the default status rule, messages with the values seen."""

from __future__ import annotations

from tests.e2e.execkit import end, execute, hits, listing, ok200, only, pet, trail, when


def test_all_criteria_must_pass_and_only_failing_ones_are_reported(write, server):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1, "status": "sold"}))
    criteria = when("$statusCode == 200", "$response.body#/status == 'available'", "$response.body#/id == 1")
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=criteria)]})

    wf = only(result)
    assert result["status"] == "failed"
    assert trail(wf) == [("get", "failed", 1)]
    step = wf["steps"][0]
    assert step["statusCode"] == 200
    assert step["failedCriteria"] == ["$response.body#/status == 'available': got 'sold'"]
    assert wf["error"] == {
        "stepId": "get",
        "message": "successCriteria failed: $response.body#/status == 'available': got 'sold'",
    }


def test_every_criterion_passing_passes_the_step(write, server):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1, "status": "AVAILABLE", "tags": ["a", "b"]}))
    criteria = [
        *when("$statusCode == 200", "$response.body#/status == 'available'"),  # case-insensitive strings
        {"context": "$response.body", "condition": "$.tags[?@ == 'b']", "type": "jsonpath"},
        {"context": "$response.body#/status", "condition": "^AVAIL", "type": "regex"},
    ]
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=criteria)]})

    assert result["status"] == "passed"
    assert trail(only(result)) == [("get", "passed", 1)]


def test_failing_criterion_message_shows_the_status_seen(write, server):
    server.reply("GET", "/pets/{petId}", (503, {"error": "down"}))
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=ok200())]})

    wf = only(result)
    assert wf["steps"][0]["failedCriteria"] == ["$statusCode == 200: got 503"]
    assert wf["error"]["message"] == "successCriteria failed: $statusCode == 200: got 503"


def test_no_criteria_a_status_below_400_passes(write, server):
    server.reply("GET", "/pets/{petId}", (201, {"id": 1}))
    server.reply("GET", "/pets", (399, []))
    wf = only(execute(write, server, {"workflowId": "w", "steps": [pet("one"), listing("all")]}))

    assert wf["status"] == "passed"
    assert trail(wf) == [("one", "passed", 1), ("all", "passed", 1)]
    assert [s["statusCode"] for s in wf["steps"]] == [201, 399]


def test_no_criteria_status_400_fails_showing_the_status_and_stops(write, server):
    server.reply("GET", "/pets/{petId}", (400, {"error": "bad"}))
    wf = only(execute(write, server, {"workflowId": "w", "steps": [pet("one"), listing("all")]}))

    assert wf["status"] == "failed"
    assert trail(wf) == [("one", "failed", 1)]
    assert wf["steps"][0]["statusCode"] == 400
    assert "HTTP 400" in wf["error"]["message"]
    assert wf["error"]["stepId"] == "one"
    assert hits(server) == ["GET /pets/1"]  # the second step never sent anything


def test_criteria_given_a_4xx_can_be_success(write, server):
    """Explicit criteria replace the status rule: a 404 the workflow expects is a pass."""
    server.reply("GET", "/pets/{petId}", (404, {"error": "no such pet"}))
    steps = [
        pet("missing", successCriteria=when("$statusCode == 404"), outputs={"e": "$response.body#/error"})
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert wf["steps"][0]["outputs"] == {"e": "no such pet"}


def test_spec_example_no_pets_available_ends_on_an_empty_list(write, server):
    """The 1.1 spec's `noPetsAvailable`: `$response.body#/0 == null` ends the workflow on `[]`."""
    server.reply("GET", "/pets", (200, []))
    workflow = {
        "workflowId": "w",
        "steps": [
            listing(
                "find",
                successCriteria=ok200(),
                onSuccess=[end("noPetsAvailable", criteria=when("$response.body#/0 == null"))],
                outputs={"petId": "$response.body#/0/id"},
            ),
            pet("buy", "$steps.find.outputs.petId"),
        ],
        "outputs": {"petId": "$steps.find.outputs.petId"},
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert trail(wf) == [("find", "passed", 1)]
    assert wf["steps"][0]["action"] == "end"
    assert wf["outputs"] == {"petId": None}
    assert hits(server) == ["GET /pets"]


def test_spec_example_with_pets_continues_to_the_next_step(write, server):
    server.reply("GET", "/pets", (200, [{"id": 7}]))
    server.reply("GET", "/pets/{petId}", (200, {"id": 7}))
    workflow = {
        "workflowId": "w",
        "steps": [
            listing(
                "find",
                successCriteria=ok200(),
                onSuccess=[end("noPetsAvailable", criteria=when("$response.body#/0 == null"))],
                outputs={"petId": "$response.body#/0/id"},
            ),
            pet("buy", "$steps.find.outputs.petId"),
        ],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert trail(wf) == [("find", "passed", 1), ("buy", "passed", 1)]
    assert hits(server) == ["GET /pets", "GET /pets/7"]


def test_criterion_on_a_missing_body_member_fails_with_a_reason(write, server):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    steps = [pet("get", successCriteria=when("$response.body#/owner/name == 'ann'"))]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "failed"
    (message,) = wf["steps"][0]["failedCriteria"]
    assert message.startswith("$response.body#/owner/name == 'ann': ")
    assert "owner" in message


def test_a_catastrophic_regex_fails_its_step_and_the_run_goes_on(write, server, monkeypatch):
    """A document's pattern that backtracks exponentially on the response is stopped after the regex
    timeout: the step fails with that cause and the run ends normally instead of hanging."""
    from arazzo_runner.bounds import limits

    monkeypatch.setattr(limits, "REGEX_TIMEOUT", 0.05)
    server.reply("GET", "/pets/{petId}", (200, {"name": "a" * 40 + "b"}))
    regex = {"context": "$response.body#/name", "condition": "(a|aa)+$", "type": "regex"}
    workflow = only(
        execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=[regex])]})
    )
    assert workflow["status"] == "failed"
    [failed] = workflow["steps"][0]["failedCriteria"]
    assert failed.startswith("(a|aa)+$: matching was stopped after 0.05 s on 41 characters")
    assert hits(server) == ["GET /pets/1"]


def test_a_regex_written_as_a_javascript_literal_fails_saying_how_to_write_it(write, server):
    """`/^[0-9A-F]{8}$/i` (Respect's examples write regexes so) is a pattern whose slashes and `i` are
    characters to match: the criterion fails, and its message says so and gives the pattern to write;
    that pattern passes on the same response (issue 37, item 6)."""
    server.reply("GET", "/pets/{petId}", (200, {"id": "deadbeef"}))
    written = [{"context": "$response.body#/id", "condition": "/^[0-9A-F]{8}$/i", "type": "regex"}]
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=written)]})

    assert only(result)["steps"][0]["failedCriteria"] == [
        "/^[0-9A-F]{8}$/i: no match in 'deadbeef'; the slashes and the flag i are matched literally, as "
        "characters of the text (a regex condition is the pattern alone, in Python re syntax, flags "
        "inline): write (?i)^[0-9A-F]{8}$"
    ]
    fixed = [{"context": "$response.body#/id", "condition": "(?i)^[0-9A-F]{8}$", "type": "regex"}]
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=fixed)]})
    assert result["status"] == "passed"


def test_a_templated_javascript_literal_is_told_the_template_to_write(write, server):
    """`/^{$inputs.prefix}[0-9]+$/i`: the pattern to write is the document's template unwrapped,
    `(?i)^{$inputs.prefix}[0-9]+$`, not the rendered `(?i)^AB[0-9]+$` (the input's value hard-coded
    into the document in place of the input it reads)."""
    server.reply("GET", "/pets/{petId}", (200, {"id": "ab12"}))
    written = [{"context": "$response.body#/id", "condition": "/^{$inputs.prefix}[0-9]+$/i", "type": "regex"}]
    step = pet("get", successCriteria=written)
    result = execute(write, server, {"workflowId": "w", "steps": [step]}, inputs={"prefix": "AB"})
    [failed] = only(result)["steps"][0]["failedCriteria"]
    assert failed.startswith("/^AB[0-9]+$/i: no match in 'ab12'; the slashes and the flag i are"), failed
    assert failed.endswith("inline): write (?i)^{$inputs.prefix}[0-9]+$"), failed


def test_a_regex_that_only_looks_like_a_path_fails_without_a_hint(write, server):
    """`/pets/` may be a path to find in a URL: its miss is a plain miss."""
    server.reply("GET", "/pets/{petId}", (200, {"id": "deadbeef"}))
    criteria = [{"context": "$response.body#/id", "condition": "/pets/", "type": "regex"}]
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=criteria)]})
    assert only(result)["steps"][0]["failedCriteria"] == ["/pets/: no match in 'deadbeef'"]


def test_a_regex_over_an_object_fails_saying_it_met_the_json_text(write, server):
    """A regex is searched in its context as text; an object's text is its JSON, where `^[0-9a-f]{8}$`
    cannot match: the failure says what the pattern met (issue 37, item 12), and the member passes."""
    server.reply("GET", "/pets/{petId}", (200, {"id": "deadbeef"}))
    whole = [{"context": "$response.body", "condition": "^[0-9a-f]{8}$", "type": "regex"}]
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=whole)]})

    assert only(result)["steps"][0]["failedCriteria"] == [
        """^[0-9a-f]{8}$: no match in '{"id":"deadbeef"}'; the context $response.body is an object, """
        "searched as its compact JSON text: to match a member, make the context that member"
    ]
    member = [{"context": "$response.body#/id", "condition": "^[0-9a-f]{8}$", "type": "regex"}]
    result = execute(write, server, {"workflowId": "w", "steps": [pet("get", successCriteria=member)]})
    assert result["status"] == "passed"
