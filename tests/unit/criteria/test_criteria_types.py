"""`regex`, `jsonpath` and `xpath` criteria, embedded `{$...}` expressions, condition types."""

import types

import pytest

from arazzo_runner.criteria import (
    JSONPathCriterion,
    RegexCriterion,
    SimpleCriterion,
    XPathCriterion,
    compile_criterion,
    condition_type,
)
from arazzo_runner.errors import ExpressionError
from arazzo_runner.expressions import Context, SimpleMessage

GOESSNER = {"type": "jsonpath", "version": "draft-goessner-dispatch-jsonpath-00"}
PETS = {"pets": [{"name": "Rex", "status": "available"}, {"name": "Tom", "status": "sold"}], "count": 2}
XML = "<root><pets><pet status='available'>Rex</pet><pet>Tom</pet></pets><total>2</total></root>"


def make_ctx(body=PETS, status: int = 200, **kwargs) -> Context:
    return Context(status_code=status, response=SimpleMessage(body=body), **kwargs)


def check(condition, type_, body=PETS, context="$response.body", **kwargs):
    return compile_criterion(condition, type_, context).evaluate(make_ctx(body, **kwargs))


# -- condition types


@pytest.mark.parametrize(
    ("type_", "expected"),
    [
        (None, ("simple", None)),
        ("simple", ("simple", None)),
        ("regex", ("regex", None)),
        ("jsonpath", ("jsonpath", "rfc9535")),
        ("xpath", ("xpath", "xpath-31")),
        ({"type": "xpath", "version": "xpath-10"}, ("xpath", "xpath-10")),
        (GOESSNER, ("jsonpath", GOESSNER["version"])),
        ({"type": "jsonpath"}, ("jsonpath", "rfc9535")),  # version omitted: the default
    ],
)
def test_condition_types(type_, expected):
    assert condition_type(type_) == expected


@pytest.mark.parametrize(
    "type_",
    [
        "JSONPath",
        "jsonpointer",
        "css",
        "",
        {"type": "jsonpath", "version": "rfc9999"},
        {"type": "xpath", "version": "xpath-40"},
        {"type": "jsonpointer", "version": "rfc6901"},
        {"type": "regex"},
        {"version": "xpath-30"},
        42,
    ],
)
def test_unknown_types_and_versions_are_compile_errors(type_):
    with pytest.raises(ExpressionError):
        compile_criterion("$.a", type_, "$response.body")


@pytest.mark.parametrize("type_", ["regex", "jsonpath", "xpath", GOESSNER])
@pytest.mark.parametrize("context", [None, "", "   "])
def test_context_is_required_for_typed_conditions(type_, context):
    with pytest.raises(ExpressionError, match="needs a context"):
        compile_criterion("$.a", type_, context)


def test_bad_context_expression_is_a_compile_error():
    with pytest.raises(ExpressionError):
        compile_criterion("^a$", "regex", "$response.bod")


def test_braced_context_is_tolerated():
    assert check("^200$", "regex", context="{$statusCode}").passed


def test_criterion_classes():
    assert isinstance(compile_criterion("true"), SimpleCriterion)
    assert isinstance(compile_criterion("^a", "regex", "$statusCode"), RegexCriterion)
    assert isinstance(compile_criterion("$", "jsonpath", "$response.body"), JSONPathCriterion)
    assert isinstance(
        compile_criterion("/a", {"type": "xpath", "version": "xpath-20"}, "$response.body"), XPathCriterion
    )


def test_non_string_condition():
    with pytest.raises(ExpressionError):
        compile_criterion(200)


# -- regex


def test_regex_spec_example_on_a_status_code():
    criterion = compile_criterion(r"^2\d{2}$", "regex", "$statusCode")
    assert criterion.evaluate(make_ctx(status=200)).passed
    outcome = criterion.evaluate(make_ctx(status=503))
    assert outcome.message == r"^2\d{2}$: no match in '503'"


def test_regex_uses_search_semantics():
    assert check("vail", "regex", context="$response.body#/pets/0/status").passed
    assert not check("^vail", "regex", context="$response.body#/pets/0/status").passed
    assert check("(?i)AVAILABLE", "regex", context="$response.body#/pets/0/status").passed


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ({"v": True}, "^true$"),
        ({"v": 1.5}, r"^1\.5$"),
        ({"v": [1, "a"]}, r'^\[1,"a"\]$'),
        ({"v": {"k": "v"}}, r'^\{"k":"v"\}$'),
        ({"v": ""}, "^$"),
    ],
)
def test_regex_context_conversion(body, pattern):
    assert check(pattern, "regex", body, context="$response.body#/v").passed


def test_regex_fails_on_null_and_missing_context():
    outcome = check(".*", "regex", {"v": None}, context="$response.body#/v")
    assert outcome.message == ".*: the context $response.body#/v is null"
    outcome = check(".*", "regex", {}, context="$response.body#/v")
    assert not outcome.passed
    assert "is missing" in outcome.message


def test_a_catastrophic_pattern_fails_its_criterion_after_the_regex_timeout(monkeypatch):
    """`(a|aa)+$` on 40 `a`s and a `b` takes exponential time to fail: the match is stopped, the
    criterion fails with its cause, and the run goes on (Python's `re` could not be interrupted)."""
    from arazzo_runner.bounds import limits

    monkeypatch.setattr(limits, "REGEX_TIMEOUT", 0.05)
    outcome = check("(a|aa)+$", "regex", {"v": "a" * 40 + "b"}, context="$response.body#/v")
    assert not outcome.passed
    stopped = "matching was stopped after 0.05 s on 41 characters (the pattern backtracks catastrophically)"
    assert outcome.message == f"(a|aa)+$: {stopped}"
    assert check("(a|aa)+$", "regex", {"v": "a" * 40}, context="$response.body#/v").passed


def test_the_regex_timeout_is_one_second_by_default(monkeypatch):
    """Unpatched, the matcher has 1 s: a slice of it here (`patterns.SLICE`), then all of it in the
    evaluation worker, which the clock stops. Spies stand in for the `regex` module's compiled pattern
    (its C methods cannot be wrapped) and for the worker, and say that time ran out, so no test has to
    wait a second, let alone measure one."""
    from arazzo_runner.bounds import budget as budget_module
    from arazzo_runner.bounds import patterns

    given, sent = [], []

    class Spy:
        pattern = "(a|aa)+$"

        def search(self, text, timeout=None):
            given.append(timeout)
            raise TimeoutError

    def worker(op, args, spent):
        sent.append((op, args["timeout"], spent.left()))
        raise budget_module.BudgetExceeded(spent)

    monkeypatch.setattr(patterns, "interruptible", lambda pattern: Spy())
    monkeypatch.setattr(patterns, "_in_worker", worker)
    # the budget's clock stands still, so what is left of 1 s when the match starts is all of it, however
    # busy the machine is
    monkeypatch.setattr(budget_module, "time", types.SimpleNamespace(monotonic=lambda: 1000.0))
    outcome = check("(a|aa)+$", "regex", {"v": "a" * 40 + "b"}, context="$response.body#/v")
    assert given == [patterns.SLICE]
    assert sent == [("regex.match", 1.0, 1.0)]
    stopped = "matching was stopped after 1 s on 41 characters (the pattern backtracks catastrophically)"
    assert outcome.message == f"(a|aa)+$: {stopped}"


def test_regex_matching_follows_python_re_semantics():
    """The `regex` module matches as `re` does for the patterns `re` accepts, the sets the two read
    differently included (rewritten: tests/unit/test_patterns.py)."""
    import re
    import warnings

    samples = [
        "^2\\d{2}$", "(?i)avail", "\\bRex\\b", "a{2,3}?b", "(?P<x>o)(?P=x)", "[^\\W\\d]+", "(?s)a.b",
        "(?m)^t", "x*", "(?=R)R", "(?<!T)om", "[[:alpha:]]", "[a&&b]", "[x~~y]", "[]a]", "[^]x]", "[\\[]",
        "[^\\s\\S]", "(?i)[^\\w\\Wx]", "\\B", "x|\\B", "(?:a{1000}){1000}",
    ]  # fmt: skip
    texts = ["200", "Available", "Rex and Tom", "aaab", "foo", "_x1", "a\nb", "s\nt", "", "Rex", "Tom",
             "[:a]",
             "-", "]", "["]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # `re` warns about the ambiguous sets, on purpose here
        for pattern in samples:
            for text in texts:
                outcome = check(pattern, "regex", {"v": text}, context="$response.body#/v")
                assert outcome.passed == (re.search(pattern, text) is not None), (pattern, text)


@pytest.mark.parametrize(("pattern", "position"), [("(unclosed", 0), ("a[", 1), ("x{2,1}", 2)])
def test_invalid_regex_is_a_compile_error(pattern, position):
    with pytest.raises(ExpressionError, match="invalid regular expression") as info:
        compile_criterion(pattern, "regex", "$statusCode")
    assert info.value.position == position


# -- jsonpath


def test_jsonpath_spec_examples():
    assert check("$[?count(@.pets) > 0]", "jsonpath").passed
    assert check("$.pets[*]", "jsonpath").passed
    assert not check("$.pets[*]", "jsonpath", {"pets": []}).passed
    assert not check("$[?count(@.pets) > 0]", "jsonpath", {"cats": []}).passed


def test_count_counts_nodes_not_array_items():
    # RFC 9535: `@.pets` selects one node (the array) whenever `pets` exists, so the spec's
    # `count(@.pets) > 0` passes on an empty array; `length()` or `@.pets[*]` test the items.
    assert check("$[?count(@.pets) > 0]", "jsonpath", {"pets": []}).passed
    assert not check("$[?length(@.pets) > 0]", "jsonpath", {"pets": []}).passed
    assert not check("$[?count(@.pets[*]) > 0]", "jsonpath", {"pets": []}).passed
    assert check("$[?count(@.pets[*]) > 0]", "jsonpath").passed


def test_root_filter_still_filters_arrays():
    body = [{"id": 1, "ok": True}, {"id": 2, "ok": False}]
    assert check("$[?@.ok == true]", "jsonpath", body).passed
    assert not check("$[?@.id > 5]", "jsonpath", body).passed


def test_jsonpath_queries():
    assert check("$.pets[?@.status == 'sold']", "jsonpath").passed
    assert not check("$.pets[?@.status == 'SOLD']", "jsonpath").passed  # RFC 9535: exact strings
    assert check("$..name", "jsonpath").passed
    assert check("$.count", "jsonpath", {"count": 0}).passed  # a node, even a falsy one, passes
    assert check("$.count", "jsonpath", {"count": None}).passed


def test_jsonpath_failure_message_shows_the_context():
    outcome = check("$.cats[*]", "jsonpath")
    assert outcome.message.startswith('$.cats[*]: no node matched in {"pets":')


def test_jsonpath_fails_on_null_context():
    assert check("$", "jsonpath", None).message == "$: the context $response.body is null"


def test_jsonpath_on_a_scalar_context():
    assert check("$", "jsonpath", "text").passed
    assert not check("$.a", "jsonpath", "text").passed


def test_invalid_jsonpath_is_a_compile_error():
    with pytest.raises(ExpressionError) as info:
        compile_criterion("$.pets[", "jsonpath", "$response.body")
    assert info.value.text == "$.pets["


def test_goessner_dialect():
    assert check("$.pets[?(@.status == 'sold')]", GOESSNER).passed
    assert check("$..name", GOESSNER).passed
    assert not check("$.cats", GOESSNER).passed
    assert check("$[?(@.count > 1)]", GOESSNER).passed  # root filter rule applies to both dialects


# -- the `<query> <op> <literal>` comparison form


@pytest.mark.parametrize(
    ("condition", "body", "expected"),
    [
        ('$.choices[0].finish_reason == "tool_calls"', {"choices": [{"finish_reason": "tool_calls"}]}, True),
        ('$.choices[0].finish_reason == "tool_calls"', {"choices": [{"finish_reason": "stop"}]}, False),
        ("$.status == 'requires_capture'", {"status": "requires_capture"}, True),
        ("$.status == 'REQUIRES_CAPTURE'", {"status": "requires_capture"}, False),  # case-sensitive
        ("$.status != 'x'", {"status": "y"}, True),
        ("$.count > 2", {"count": 3}, True),
        ("$.count > 2", {"count": 2}, False),
        ("$.count >= 2", {"count": 2}, True),
        ("$.count <= 2.5", {"count": 2}, True),
        ("$.count < -1", {"count": 0}, False),
        ("$.count == 2", {"count": 2.0}, True),
        ("$.count == 1e1", {"count": 10}, True),
        ("$.count == '2'", {"count": 2}, False),  # no coercion in JSON comparisons
        ("$.flag == true", {"flag": True}, True),
        ("$.flag == 1", {"flag": True}, False),
        ("$.value == null", {"value": None}, True),
        ("$.value != null", {"value": None}, False),
        ("$.name < 'b'", {"name": "a"}, True),
        ("$.name<'b'", {"name": "c"}, False),
        ("$.items[*].id == 2", {"items": [{"id": 1}, {"id": 2}]}, True),  # any node
        ("$.items[*].id > 5", {"items": [{"id": 1}, {"id": 2}]}, False),
        ("$.missing == 'x'", {}, False),
        ("$.missing != 'x'", {}, False),  # no node, nothing compares true
        ("$.a['x == y'] == 'z'", {"a": {"x == y": "z"}}, True),  # operators inside brackets are ignored
        ("$.a[?@.b == 1].c == 2", {"a": [{"b": 1, "c": 2}]}, True),
        ("$.s == 'it''s'", {"s": "it's"}, True),
        ("$.s == 'it\\'s'", {"s": "it's"}, True),
        ('$.s == "say \\"hi\\""', {"s": 'say "hi"'}, True),
        ('$.s == "\\u00e9"', {"s": "é"}, True),
    ],
)
def test_comparison_form(condition, body, expected):
    assert check(condition, "jsonpath", body).passed is expected


def test_comparison_form_is_flagged():
    assert compile_criterion("$.count > 2", "jsonpath", "$response.body").comparison_form is True
    assert compile_criterion("$[?@.count > 2]", "jsonpath", "$response.body").comparison_form is False
    embedded = compile_criterion("$.count > {$inputs.n}", "jsonpath", "$response.body")
    assert embedded.comparison_form is None
    assert embedded.has_embedded


def test_comparison_form_in_goessner_dialect():
    assert check("$.status == 'ok'", GOESSNER, {"status": "ok"}).passed


def test_comparison_form_messages():
    assert check("$.status == 'ok'", "jsonpath", {"status": "pending"}).message == (
        "$.status == 'ok': got 'pending'"
    )
    assert check("$.status == 'ok'", "jsonpath", {}).message == "$.status == 'ok': $.status selected nothing"
    assert check("$.a[*] == 3", "jsonpath", {"a": [1, 2]}).message == "$.a[*] == 3: got [1,2]"


@pytest.mark.parametrize(
    ("condition", "position"),
    [
        ("$.status == tool_calls", 12),  # bare word: not a literal
        ("$.status == $.other", 12),
        ("$.count > ", 10),
    ],
)
def test_comparison_form_needs_a_literal(condition, position):
    with pytest.raises(ExpressionError, match="must be a string, number") as info:
        compile_criterion(condition, "jsonpath", "$response.body")
    assert info.value.position == position


def test_comparison_form_with_an_invalid_query_reports_the_whole_text():
    with pytest.raises(ExpressionError) as info:
        compile_criterion("$.a[ == 1", "jsonpath", "$response.body")
    assert info.value.text == "$.a[ == 1"


# -- xpath


@pytest.mark.parametrize("version", ["xpath-10", "xpath-20", "xpath-30", "xpath-31"])
def test_xpath_spec_examples(version):
    type_ = {"type": "xpath", "version": version}
    assert check("count(/root/pets/*) > 0", type_, XML).passed
    assert check("/root/pets", type_, XML).passed
    assert not check("count(/root/pets/*) > 5", type_, XML).passed
    assert not check("/root/cats", type_, XML).passed


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("true()", True),
        ("false()", False),
        ("/root/total", True),
        ("number(/root/total)", True),
        ("number(/root/total) - 2", False),  # zero
        ("number('x')", False),  # NaN
        ("string(/root/total)", True),
        ("string(/root/nothing)", False),  # empty string
        ("/root/pets/pet[@status='available']", True),
        ("/root/pets/pet/@status = 'available'", True),
        ("/root/pets/pet[2]/@status", False),
    ],
)
def test_xpath_effective_boolean_value(condition, expected):
    assert check(condition, "xpath", XML).passed is expected


def test_xpath_failure_messages():
    assert check("/root/cats", "xpath", XML).message == "/root/cats: got an empty sequence"
    assert check("count(/root/pets/*) > 5", "xpath", XML).message == "count(/root/pets/*) > 5: got false"
    assert check("number(/root/total) - 2", "xpath", XML).message == "number(/root/total) - 2: got 0.0"


def test_xpath_bytes_context():
    assert check("/root/pets", "xpath", XML.encode()).passed


@pytest.mark.parametrize("body", [{"a": 1}, "not xml", "<a><b></a>", 42])
def test_xpath_on_non_xml_fails(body):
    outcome = check("/a", "xpath", body)
    assert not outcome.passed
    assert outcome.message.startswith("/a: ")


def test_xpath_refuses_xml_bombs():
    bomb = '<!DOCTYPE x [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>'
    outcome = check("/x", "xpath", bomb)
    assert not outcome.passed
    assert "unsafe XML" in outcome.message


def test_xpath_ebv_error_fails():
    outcome = check("(1, 2)", "xpath", XML)
    assert not outcome.passed
    assert "effective boolean value" in outcome.message


def test_invalid_xpath_is_a_compile_error():
    with pytest.raises(ExpressionError) as info:
        compile_criterion("/root/[", "xpath", "$response.body")
    assert info.value.position == 6


# -- embedded expressions


def test_embedded_expressions_in_regex():
    criterion = compile_criterion("^({$inputs.statusPattern})$", "regex", "$response.body#/pets/1/status")
    assert criterion.evaluate(make_ctx(inputs={"statusPattern": "sold|pending"})).passed
    outcome = criterion.evaluate(make_ctx(inputs={"statusPattern": "pending"}))
    assert outcome.message == "^(pending)$: no match in 'sold'"


def test_embedded_expressions_in_jsonpath():
    criterion = compile_criterion(
        '$[?(@.status == "{$inputs.expectedStatus}")]', "jsonpath", "$response.body"
    )
    assert criterion.evaluate(make_ctx({"status": "ok"}, inputs={"expectedStatus": "ok"})).passed
    assert not criterion.evaluate(make_ctx({"status": "ok"}, inputs={"expectedStatus": "ko"})).passed
    criterion = compile_criterion("$.pets[?@.status == '{$inputs.s}']", "jsonpath", "$response.body")
    assert criterion.evaluate(make_ctx(inputs={"s": "sold"})).passed


def test_embedded_expressions_in_xpath():
    body = "<root><items><price>5</price></items><items><price>15</price></items></root>"
    criterion = compile_criterion(
        "/root/items[price > {$steps.getPricing.outputs.minPrice}]", "xpath", "$response.body"
    )
    assert criterion.evaluate(make_ctx(body, steps={"getPricing": {"minPrice": 10}})).passed
    outcome = criterion.evaluate(make_ctx(body, steps={"getPricing": {"minPrice": 20}}))
    assert not outcome.passed


def test_embedded_values_are_converted_to_text():
    criterion = compile_criterion("^{$inputs.v}$", "regex", "$inputs.s")
    assert criterion.evaluate(make_ctx(inputs={"v": 200, "s": "200"})).passed
    assert criterion.evaluate(make_ctx(inputs={"v": True, "s": "true"})).passed
    assert criterion.evaluate(make_ctx(inputs={"v": None, "s": "null"})).passed


def test_embedded_missing_value_fails_with_reason():
    criterion = compile_criterion("^{$inputs.v}$", "regex", "$statusCode")
    outcome = criterion.evaluate(make_ctx())
    assert not outcome.passed
    assert "input 'v' was not provided" in outcome.message


def test_rendered_condition_that_does_not_compile_fails():
    criterion = compile_criterion("^({$inputs.p}$", "regex", "$statusCode")
    outcome = criterion.evaluate(make_ctx(inputs={"p": "2"}))
    assert not outcome.passed
    assert (
        outcome.message == "^(2$: invalid regular expression: missing ), unterminated subpattern at offset 1"
    )


def test_malformed_embedded_expression_is_a_compile_error():
    with pytest.raises(ExpressionError):
        compile_criterion("^{$inputs.}$", "regex", "$statusCode")


def test_braces_without_dollar_are_plain_text():
    assert check(r"^\d{3}$", "regex", context="$statusCode").passed
    assert not compile_criterion(r"^\d{3}$", "regex", "$statusCode").has_embedded


def test_expressions_lists_context_then_embedded():
    criterion = compile_criterion(
        "$[?@.a == '{$inputs.a}' && @.b == {$steps.s.outputs.b}]", "jsonpath", "$response.body"
    )
    assert [str(e) for e in criterion.expressions()] == ["$response.body", "$inputs.a", "$steps.s.outputs.b"]


def test_repr_mentions_type_and_condition():
    assert "jsonpath/rfc9535" in repr(compile_criterion("$", "jsonpath", "$response.body"))
