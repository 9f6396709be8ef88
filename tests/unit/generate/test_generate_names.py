"""Ids, output and input names fitted to the specification's patterns, unique; patterns made into
example strings that match them."""

from __future__ import annotations

import re

import pytest

from arazzo_runner.generate.names import Unique, env_key, fit_id, fit_input, fit_output, singular
from arazzo_runner.generate.regex_example import pattern_example

ID = re.compile(r"[A-Za-z0-9_-]+")
OUTPUT = re.compile(r"^[a-zA-Z0-9.\-_]+$")


@pytest.mark.parametrize(
    ("text", "fitted"),
    [
        ("getPet", "getPet"),
        ("get-orders-{orderId}-workflow", "get-orders-orderId-workflow"),
        ("list.pets v2", "list-pets-v2"),
        ("/pets/{pet-id}/photos", "pets-pet-id-photos"),
        ("{}", "fallback"),
        ("ünïcode", "n-code"),
    ],
)
def test_ids(text, fitted):
    assert fit_id(text, "fallback") == fitted
    assert ID.fullmatch(fitted)


@pytest.mark.parametrize(
    ("text", "fitted"),
    [
        ("lists[0].id", "lists_0_.id"),
        ("first name", "first_name"),
        ("@type", "_type"),
        ("a/b", "a_b"),
        ("", "value"),
    ],
)
def test_output_names(text, fitted):
    assert fit_output(text) == fitted
    assert OUTPUT.match(fitted)


def test_input_names_have_no_dots_and_unique_means_unique_as_variables():
    assert fit_input("filter[status]") == "filter_status"
    assert fit_input("a.b") == "a_b"
    assert fit_input("X-Request-ID") == "X-Request-ID"
    names = Unique(sep="_", key=env_key)
    assert [names.take(n) for n in ("user-id", "user_id", "USER_ID", "userId")] == [
        "user-id",
        "user_id_2",
        "USER_ID_3",
        "userId",
    ]
    assert "user-id" in names and "USER-ID" in names


def test_unique_ids():
    ids = Unique(["taken"])
    assert [ids.take(n) for n in ("taken", "taken", "free")] == ["taken-2", "taken-3", "free"]


@pytest.mark.parametrize(
    ("plural", "one"), [("pets", "pet"), ("categories", "category"), ("boxes", "box"), ("address", "address")]
)
def test_singular(plural, one):
    assert singular(plural) == one


@pytest.mark.parametrize(
    "pattern",
    [
        r"^CR[0-9a-fA-F]{32}$",
        r"^[A-Z]{2}$",
        r"^\d{3}-\d{4}$",
        r"^(foo|bar)+$",
        r"[^abc]+",
        r"^(?:[a-z0-9]+(?:-[a-z0-9]+)*)$",
        r"^\+?[1-9]\d{1,14}$",
        r"^(0|[1-9][0-9]*)$",
        r"^[\w.-]+@[\w-]+\.[a-z]{2,}$",
        r"^(?P<year>\d{4})-(?<month>\d\d)$",
        r"\x41\u0042",
        r"^[^\s]{3,}$",
        r"^kyc_req_[0-9A-Z]{26}$",
    ],
)
@pytest.mark.parametrize("short", [True, False])
def test_a_pattern_gives_a_string_it_matches(pattern, short):
    found = pattern_example(pattern, short)
    assert found is not None and re.search(pattern.replace("(?<month>", "(?P<month>"), found), found


@pytest.mark.parametrize("pattern", [r"^(?=a)b", r"(a)\1", r"\p{L}+", "(a", "a)", r"[a"])
def test_what_the_reader_does_not_read_gives_none(pattern):
    assert pattern_example(pattern) is None


def test_hostile_patterns_end_in_none_within_bounds():
    assert pattern_example("(" * 5000 + "a" + ")" * 5000) is None  # too long to read
    assert pattern_example("(" * 900 + "a" + ")" * 900) in ("a", None)  # deep, yet no RecursionError escapes
    assert pattern_example("((a{256}){256}){256}") is None  # 16M characters: never built
    assert pattern_example("a{4096}") == "a" * 4096
