"""The bounded validator classes (`arazzo_runner/sources/schema_patterns.py`): the same verdicts and
messages as jsonschema's and openapi-schema-validator's own classes on ordinary patterns (a differential
check over every class the engine builds, on written and on generated cases), and a pattern that runs
out of the check's time unwinds the check rather than deciding it."""

from __future__ import annotations

import random
import re
import warnings

import jsonschema
import pytest
from openapi_schema_validator import (
    OAS30ReadValidator,
    OAS30Validator,
    OAS30WriteValidator,
    OAS31Validator,
    OAS32Validator,
)

from arazzo_runner.sources.schema_keywords import bounded
from arazzo_runner.sources.schema_patterns import (
    PatternStopped,
    bounded_formats,
    checking,
    is_regex,
    matches,
)
from tests.cputime import cpu_bound

CLASSES = [
    jsonschema.Draft4Validator,
    jsonschema.Draft6Validator,
    jsonschema.Draft7Validator,
    jsonschema.Draft201909Validator,
    jsonschema.Draft202012Validator,
    OAS30Validator,
    OAS30ReadValidator,
    OAS30WriteValidator,
    OAS31Validator,
    OAS32Validator,
]
LONG = "a" * 40 + "!"


def _errors(cls, schema, instance, bound: bool = False) -> list[tuple]:
    checker = bounded_formats(cls.FORMAT_CHECKER) if bound else cls.FORMAT_CHECKER
    validator = (bounded(cls) if bound else cls)(schema, format_checker=checker)
    return sorted(
        (e.message, list(e.absolute_path), [str(p) for p in e.absolute_schema_path], e.validator)
        for e in validator.iter_errors(instance)
    )


def _same(cls, schema, instance) -> None:
    expected = _errors(cls, schema, instance)
    assert _errors(cls, schema, instance, bound=True) == expected, (cls.__name__, schema, instance)


SCHEMAS = [
    {"type": "string", "pattern": "^[a-z]+-\\d{3}$"},
    {"properties": {"id": {"pattern": "(?i)^[0-9A-F]{8}$"}, "tag": {"pattern": "x"}}},
    {"patternProperties": {"^x-": {"type": "string"}, "^[0-9]+$": {"type": "integer"}}},
    {"patternProperties": {"^x-": {}}, "additionalProperties": False},
    {"properties": {"a": {}}, "patternProperties": {"^b": {}}, "additionalProperties": {"type": "integer"}},
    {"properties": {"a": {}}, "additionalProperties": False},
    {"unevaluatedProperties": False, "patternProperties": {"^x-": {}}},
    {"unevaluatedProperties": {"type": "integer"},
     "allOf": [{"patternProperties": {"^s": {"type": "string"}}}]},
    {"unevaluatedProperties": False, "anyOf": [{"properties": {"a": {}}}, {"patternProperties": {"b$": {}}}]},
    {"unevaluatedProperties": False, "if": {"patternProperties": {"^i": {"type": "integer"}}},
     "then": {"properties": {"t": {}}}, "else": {"properties": {"e": {}}}},
    {"unevaluatedProperties": False, "dependentSchemas": {"d": {"patternProperties": {"^p": {}}}},
     "properties": {"d": {}}},
    {"unevaluatedProperties": False, "additionalProperties": {"type": "integer"}},
    {"propertyNames": {"pattern": "^[a-z]+$"}},
    {"items": {"pattern": "\\d"}},
    {"not": {"pattern": "^a"}},
    {"oneOf": [{"pattern": "^a"}, {"pattern": "b$"}]},
    {"properties": {"r": {"format": "regex"}}},
    {"pattern": "[[:alpha:]]"},  # `re` warns (a possible nested set), reads it literally: so does the bound
]  # fmt: skip
INSTANCES = [
    "abc-123", "abc", "ab", "b", "", "aXb", "x-1", "9", {}, {"id": "DEADBEEF", "tag": "xy"},
    {"id": "deadbeef", "tag": "y"}, {"x-a": "s", "12": 3, "12a": 1}, {"x-a": 1, "y": 2},
    {"a": 1, "b": "s", "c": 2},
    {"a": 1, "c": "s"}, {"s1": "t", "n": 2, "m": "x"}, {"ab": 1, "b": 2, "c": 3}, {"i": 1, "t": 2, "e": 3},
    {"i": "x", "e": 1}, {"d": 1, "p": 2, "q": 3}, {"Upper": 1, "lower": 2}, ["1", "a", "b2"], ["x"],
    {"r": "(a|b)+"}, {"r": "(unclosed"}, {"r": "(" * 600}, {"r": 5}, "[:a", ":", 7, None,
]  # fmt: skip


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_bounded_classes_say_what_the_originals_say(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the originals' `re` warns on `[[:alpha:]]`
        for schema in SCHEMAS:
            for instance in INSTANCES:
                if "r" in schema.get("properties", {}) and instance == {"r": "(" * 600}:
                    # the originals' `is_regex` lets a RecursionError out
                    with pytest.raises(RecursionError):
                        _errors(cls, schema, instance)
                    assert _errors(cls, schema, instance, bound=True) == [
                        (f"{'(' * 600!r} is not a 'regex'", ["r"], ["properties", "r", "format"], "format")
                    ]
                    continue
                _same(cls, schema, instance)


ATOMS = [*"ab.^$|()*+?[]-", "\\d", "\\w", "\\s", "[a-z]", "[^b]", "{2}", "{1,2}", "(?:", "(?i)", "x"]


def test_generated_patterns_give_the_same_verdicts():
    """Seeded random patterns (those `re` accepts) in `pattern` and `patternProperties` with
    `additionalProperties: false`, over random texts and keys, in a draft-2020-12 and an OpenAPI 3.0
    class: the same errors."""
    rng = random.Random(1313)
    checked = 0
    with warnings.catch_warnings(), cpu_bound(30, "the differential check"):
        warnings.simplefilter("ignore", FutureWarning)
        while checked < 400:
            pattern = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 6)))
            try:
                re.compile(pattern)
            except (re.error, OverflowError, RecursionError):
                continue
            checked += 1
            texts = ["".join(rng.choice("ab-1 xZ") for _ in range(rng.randint(0, 6))) for _ in range(4)]
            for cls in (jsonschema.Draft202012Validator, OAS30WriteValidator):
                _same(cls, {"pattern": pattern}, texts[0])
                _same(cls, {"items": {"pattern": pattern}}, texts)
                keyed = {"patternProperties": {pattern: {"type": "integer"}}, "additionalProperties": False}
                _same(cls, keyed, {text: index for index, text in enumerate(texts)})
            unevaluated = {"unevaluatedProperties": False, "patternProperties": {pattern: {}}}
            _same(jsonschema.Draft202012Validator, unevaluated, dict.fromkeys(texts, 0))
            _same(jsonschema.Draft201909Validator, unevaluated, dict.fromkeys(texts, 0))


@pytest.mark.parametrize("pattern", ["^x-", "^ab", "^é-ü", "^a b", "^-", "^x-+", "^x-$", "^x.", "^(x)"])
def test_a_plain_prefix_pattern_reads_as_re_reads_it_without_taking_matching_time(pattern):
    """`^` and plain characters (OpenAPI's `^x-` on every key) is `startswith`: `re`'s verdicts, and it
    needs none of the check's time, where every other pattern does."""
    texts = ["x-a", "x", "", "ab", "abc", "a b", "\nx-", "y\nx-", "é-üx", "x--", "-", "xy", "(x)"]
    for text in texts:
        assert matches(pattern, text) == (re.search(pattern, text) is not None), (pattern, text)
    plain = pattern in ("^x-", "^ab", "^é-ü", "^a b", "^-")
    with checking(0):
        if plain:
            assert [matches(pattern, text) for text in texts] == [
                re.search(pattern, t) is not None for t in texts
            ]
        else:
            with pytest.raises(PatternStopped):
                matches(pattern, "x-a")


def test_an_invalid_pattern_is_still_an_error_of_re():
    with pytest.raises(re.error):
        list(bounded(jsonschema.Draft202012Validator)({"pattern": "("}).iter_errors("x"))


@pytest.mark.parametrize(
    "schema",
    [{"pattern": "^(a|aa)+$"}, {"not": {"pattern": "^(a|aa)+$"}}, {"anyOf": [{"pattern": "^(a|aa)+$"}, {}]}],
)
def test_a_stopped_pattern_unwinds_the_check_never_deciding_a_branch(schema):
    validator = bounded(jsonschema.Draft202012Validator)(schema)
    with cpu_bound(5, "a check stopped after 0.2 s"), checking(0.2), pytest.raises(PatternStopped) as stopped:
        validator.is_valid(LONG)
    assert str(stopped.value) == (
        "pattern '^(a|aa)+$' could not be checked: matching was stopped after 0.2 s on 41 characters "
        "(the pattern backtracks catastrophically)"
    )


def test_the_patterns_of_one_check_share_its_time():
    """Fifty catastrophic values in one check: stopped once its 0.3 s are spent, not 0.3 s each."""
    validator = bounded(jsonschema.Draft202012Validator)({"items": {"pattern": "^(a|aa)+$"}})
    with cpu_bound(3, "fifty values in one check"), checking(0.3), pytest.raises(PatternStopped):
        list(validator.iter_errors([LONG] * 50))


def test_outside_a_check_each_match_has_the_default_time(monkeypatch):
    from arazzo_runner.bounds import limits

    monkeypatch.setattr(limits, "SCHEMA_PATTERN_TIMEOUT", 0.2)
    validator = bounded(jsonschema.Draft202012Validator)({"pattern": "^(a|aa)+$"})
    with cpu_bound(5, "a match outside any check"), pytest.raises(PatternStopped):
        validator.is_valid(LONG)


def test_format_regex_reads_values_as_re_does_without_keeping_them():
    assert is_regex("(a|b)+") and is_regex(5) and is_regex("[[:alpha:]]")
    assert not is_regex("(") and not is_regex("(" * 600) and not is_regex("a{99999999999}")
    value = "ab|" * 1000 + "c"
    assert is_regex(value)
    caches = [getattr(re, name, {}) for name in ("_cache", "_cache2")]
    assert not any(value in key for cache in caches for key in cache if isinstance(key, tuple))


def test_a_class_without_pattern_keywords_is_kept_and_classes_are_made_once():
    assert bounded(jsonschema.Draft3Validator).__name__ == "BoundedDraft3Validator"
    assert bounded(OAS31Validator) is bounded(OAS31Validator)
    assert bounded(OAS31Validator).check_schema == OAS31Validator.check_schema


def test_jsonschema_rs_matches_plain_patterns_in_linear_time_and_caps_the_others():
    """What `validate/schema.py` relies on for the official schemas: jsonschema-rs runs a pattern without
    lookaround or backreferences on the Rust `regex` crate (linear), and the others on fancy-regex, which
    gives up past its backtracking limit (the value then fails the pattern)."""
    import jsonschema_rs

    plain = jsonschema_rs.validator_for({"pattern": "^(a|aa)+$"})
    fancy = jsonschema_rs.validator_for({"pattern": "^(?!b)(a|aa)+(?=!)$"})
    backreference = jsonschema_rs.validator_for({"pattern": "^(a|aa)+\\1$"})
    with cpu_bound(3, "jsonschema-rs on catastrophic patterns"):
        assert not plain.is_valid("a" * 100_000 + "!")
        assert plain.is_valid("a" * 100_000)
        assert not fancy.is_valid(LONG)  # past the backtracking limit: failed, not run on
        assert not backreference.is_valid(LONG)
