"""Evaluation of `simple` conditions: comparison rules, truthiness, missing values, failure messages."""

import time
import timeit

import pytest

from arazzo_runner.criteria import PASSED, Outcome, compile_criterion
from arazzo_runner.expressions import Context, SimpleMessage

BODY = {
    "status": "Pending",
    "count": 3,
    "ratio": 0.5,
    "text_number": "10",
    "padded": " 42 ",
    "data": None,
    "empty": "",
    "items": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
    "none": [],
    "obj": {},
    "flag": True,
    "off": False,
    "zero": 0,
    "nested": {"a": {"b": "deep"}},
}


def make_ctx(status: int | None = 200, body=BODY, headers=None, **kwargs) -> Context:
    response = SimpleMessage(headers=headers or {"Content-Length": "120", "X-Rate": "0"}, body=body)
    return Context(status_code=status, response=response, **kwargs)


def run(condition: str, ctx: Context | None = None) -> Outcome:
    return compile_criterion(condition).evaluate(ctx or make_ctx())


def passes(condition: str, ctx: Context | None = None) -> bool:
    return run(condition, ctx).passed


# -- the spec's own examples


def test_spec_examples():
    assert passes("$statusCode == 200")
    assert not passes("$statusCode == 200", make_ctx(503))
    ok = make_ctx(body={"data": [1]})
    assert passes("$statusCode == 200 && $response.body.data != null", ok)
    assert not passes("$statusCode == 200 && $response.body.data != null")  # data is null
    assert passes("$response.body.count > $inputs.threshold", make_ctx(inputs={"threshold": 2}))


def test_passing_returns_the_shared_outcome():
    assert run("$statusCode == 200") is PASSED
    assert Outcome(True, None) == PASSED
    assert bool(PASSED) and not bool(Outcome(False, "x"))


# -- strings


@pytest.mark.parametrize(
    "condition",
    [
        "$response.body.status == 'pending'",
        "$response.body.status == 'PENDING'",
        "$response.body.status != 'done'",
        "'ABC' == 'abc'",
        "'Straße' == 'STRASSE'",  # casefold, not lower
        "'apple' < 'Banana'",  # case-insensitive ordering
        "'b' >= 'B'",
        "$response.body#/nested/a/b == 'DEEP'",
        "$response.header.content-length == '120'",
        "'it''s' == 'IT''S'",
    ],
)
def test_string_comparisons_are_case_insensitive(condition):
    assert passes(condition)


def test_string_equality_is_exact_apart_from_case():
    assert not passes("'abc' == 'abc '")
    assert not passes("'1.0' == '1'")  # two strings compare as strings for equality


# -- numbers and numeric strings


@pytest.mark.parametrize(
    "condition",
    [
        "$statusCode >= 200 && $statusCode < 300",
        "$response.body.count == 3.0",
        "$response.body.ratio < 1",
        "$response.body.count != 4",
        "$response.body.text_number > 9",  # '10' > 9, not '10' < '9'
        "'10' > 9",
        "'10' > '9'",  # numeric strings are ordered as numbers
        "'10' == 10",
        "10 == '10.0'",
        "$response.body.padded == 42",
        "$response.header.Content-Length > 100",
        "'1e2' == 100",
        "-1 < 0",
        "0.1 <= 0.1",
        "1e3 == 1000",
    ],
)
def test_numeric_comparisons_and_coercion(condition):
    assert passes(condition)


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("'abc' == 200", False),
        ("'abc' != 200", True),
        ("'abc' > 200", False),
        ("'abc' < 200", False),
        ("'' == 0", False),
        ("'0x10' == 16", False),
        ("'NaN' == 'nan'", True),  # strings, case-insensitive
    ],
)
def test_non_numeric_strings_against_numbers(condition, expected):
    assert passes(condition) is expected


# -- null


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("null == null", True),
        ("null != null", False),
        ("$response.body.data == null", True),
        ("$response.body.data != null", False),
        ("$response.body.count == null", False),
        ("$response.body.count != null", True),
        ("$response.body.empty == null", False),
        ("$response.body.zero == null", False),
        ("$response.body.off == null", False),
        ("$response.body.data < 1", False),
        ("$response.body.data >= 0", False),
        ("null <= null", False),
        ("null > null", False),
        ("'null' == null", False),
    ],
)
def test_null_equals_only_null(condition, expected):
    assert passes(condition) is expected


# -- booleans and incompatible types


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("$response.body.flag == true", True),
        ("$response.body.flag != false", True),
        ("$response.body.flag == 1", False),  # booleans are not numbers
        ("$response.body.off == 0", False),
        ("$response.body.flag != 1", True),
        ("$response.body.flag == 'true'", False),
        ("true > false", False),  # booleans are not ordered
        ("true >= true", False),
        ("$response.body.items == 2", False),
        ("$response.body.items != 2", True),
        ("$response.body.items > 1", False),
        ("$response.body.obj == 'x'", False),
        ("$response.body.obj != 'x'", True),
    ],
)
def test_booleans_and_incompatible_types(condition, expected):
    assert passes(condition) is expected


def test_arrays_and_objects_compare_by_deep_equality():
    ctx = make_ctx(inputs={"copy": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], "other": [1]})
    assert passes("$response.body.items == $inputs.copy", ctx)
    assert passes("$response.body.items != $inputs.other", ctx)
    assert passes("$response.body.obj == $inputs.empty", make_ctx(inputs={"empty": {}}))
    assert not passes("$response.body.items < $inputs.copy", ctx)


# -- truthiness of bare operands


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("$response.body.flag", True),
        ("$response.body.off", False),
        ("$response.body.count", True),
        ("$response.body.zero", False),
        ("$response.body.status", True),
        ("$response.body.empty", False),
        ("$response.body.items", True),
        ("$response.body.none", False),
        ("$response.body.obj", False),
        ("$response.body.data", False),
        ("$response.body", True),
        ("true", True),
        ("false", False),
        ("null", False),
        ("0", False),
        ("0.0", False),
        ("-1", True),
        ("''", False),
        ("'false'", True),  # a non-empty string
        ("!$response.body.empty", True),
        ("$response.body.flag && $response.body.count", True),
        ("$response.body.off || $response.body.none", False),
    ],
)
def test_bare_operands_are_truthiness_tests(condition, expected):
    assert passes(condition) is expected


# -- accessors


def test_member_and_index_accessors():
    assert passes("$response.body.items[1].name == 'B'")
    assert passes("$response.body.items[-1].id == 2")
    assert passes("$response.body.nested.a.b == 'deep'")
    assert passes("($response.body.items)[0]['name'] == 'a'")
    assert passes("($response.body).nested.a.b == 'deep'")


def test_accessor_on_a_group_that_misses():
    outcome = run("($response.body).nope == 1")
    assert not outcome.passed
    assert "no member 'nope'" in outcome.message


# -- missing values


def test_missing_operand_fails_with_its_reason():
    outcome = run("$inputs.apiKey == 'x'")
    assert outcome == Outcome(False, "$inputs.apiKey == 'x': input 'apiKey' was not provided")


def test_explicit_null_comparison_is_an_absence_test():
    # The spec's own example ends a workflow with `$response.body#/0 == null` when no pets came back.
    assert passes("$response.body#/absent == null")
    assert passes("null == $response.body#/absent")
    assert not passes("$response.body#/absent != null")


def test_missing_operand_still_fails_other_comparisons():
    outcome = run("$response.body#/absent == 'x'")
    assert not outcome.passed
    assert "absent" in outcome.message


def test_missing_operand_fails_even_with_negation():
    assert not passes("!$inputs.flag")
    assert not passes("$inputs.flag != 1")


def test_missing_response_and_status():
    outcome = run("$statusCode == 200", Context())
    assert not outcome.passed
    assert "no response" in outcome.message


def test_short_circuit_skips_missing_operands():
    assert passes("$statusCode == 200 || $inputs.absent == 1")
    assert not passes("$statusCode == 404 && $inputs.absent == 1")
    assert not passes("$statusCode == 200 && $inputs.absent == 1")


def test_bare_missing_operand_message_is_not_repeated():
    outcome = run("$response.body.nothing")
    assert not outcome.passed
    assert outcome.message.count("$response.body.nothing") == 1


# -- failure messages show the values seen


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("$statusCode == 200", "$statusCode == 200: got 503"),
        ("200 == $statusCode", "200 == $statusCode: got 503"),
        ("$response.body#/status == 'ok'", "$response.body#/status == 'ok': got 'Pending'"),
        ("$response.body.data != null", "$response.body.data != null: got null"),
        (
            "$statusCode == 503 && $response.body.count > 5",
            "$response.body.count > 5: got 3",
        ),
        (
            "$statusCode == 200 || $response.body.status == 'done'",
            "$statusCode == 200: got 503; $response.body.status == 'done': got 'Pending'",
        ),
        ("$statusCode == $response.body.count", "$statusCode == $response.body.count: got 503 and 3"),
        ("!($statusCode == 503)", "!($statusCode == 503): ($statusCode == 503) is true"),
        ("$response.body.empty", "$response.body.empty: got ''"),
        ("$response.body.none", "$response.body.none: got []"),
        ("false", "false: got false"),
        ("1 == 2", "1 == 2: got 1 and 2"),
        ("($statusCode == 200)", "($statusCode == 200): got 503"),
    ],
)
def test_failure_messages(condition, message):
    assert run(condition, make_ctx(503)).message == message


def test_long_values_are_truncated_in_messages():
    outcome = run("$response.body.blob == 'x'", make_ctx(body={"blob": "y" * 500}))
    assert len(outcome.message) < 150
    assert outcome.message.endswith("y...(420 more chars)'")


def test_strings_with_quotes_are_shown_escaped():
    outcome = run("$response.body.s == 'x'", make_ctx(body={"s": "it's"}))
    assert outcome.message.endswith("got 'it''s'")


# -- runtime problems never raise


def test_unexpected_values_fail_instead_of_raising():
    class Weird:
        def __eq__(self, other):
            raise RuntimeError("boom")

        __hash__ = object.__hash__

    outcome = run("$response.body == $inputs.w", make_ctx(body=Weird(), inputs={"w": Weird()}))
    assert not outcome.passed
    assert "boom" in outcome.message


def test_context_is_ignored_for_simple_conditions_but_validated():
    criterion = compile_criterion("$statusCode == 200", "simple", "$response.body")
    assert criterion.evaluate(make_ctx()).passed
    assert [str(e) for e in criterion.expressions()] == ["$response.body", "$statusCode"]


def test_evaluation_is_cheap():
    criterion = compile_criterion("$statusCode == 200")
    ctx = make_ctx()
    timings = timeit.repeat(lambda: criterion.evaluate(ctx), number=2000, repeat=3, timer=time.process_time)
    per_call = min(timings) / 2000  # CPU time: other processes on the machine do not count
    assert per_call < 20e-6  # a few microseconds in practice; generous for slow CI machines
