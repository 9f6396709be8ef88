"""Patterns written for `re`, matched by the `regex` module (`arazzo_runner/bounds/patterns.py`): the rewrites
that make the two agree, checked on the constructs they read differently and on thousands of generated
patterns, and the bound on what `regex` unrolls when it compiles."""

from __future__ import annotations

import random
import re
import warnings

import pytest
import regex

from arazzo_runner.bounds.patterns import UNROLL_LIMIT, for_empty_text, for_regex, unrolled_size
from tests.cputime import cpu_bound


@pytest.mark.parametrize(
    ("pattern", "rewritten"),
    [
        ("[[:alpha:]]", "[\\[:alpha:]]"),  # `re`: a set of `[:alph` then `]`; `regex`: a POSIX class
        ("[^[:digit:]x]", "[^\\[:digit:]x]"),
        ("[\\[a]", "[\\[a]"),  # escaped already: unchanged
        ("[\\\\[]", "[\\\\\\[]"),  # an escaped backslash, then a bare `[`
        ("[]a[]", "[]a\\[]"),  # a leading `]` is a member
        ("[a&&b]", "[a&&b]"),  # literal in both (VERSION0)
        ("[^\\s\\S]", "(?!)"),  # nothing for `re`, everything for `regex`
        ("x[^\\wa\\W]+y", "x(?!)+y"),
        ("[\\s\\S]", "[\\s\\S]"),  # everything, for both
        ("a\\[b", "a\\[b"),
    ],
)
def test_for_regex_rewrites_what_the_two_read_differently(pattern, rewritten):
    assert for_regex(pattern) == rewritten


def test_nonboundary_never_matches_an_empty_text():
    assert re.search("\\B", "") is None and regex.search("\\B", "") is not None  # why the rewrite exists
    assert for_empty_text("a|\\B|[\\B]") == "a|(?!)|[\\B]"
    assert regex.search(for_regex(for_empty_text("\\B")), "") is None


ATOMS = [*"ab.[]^$-&|~:()*+?{},\\", "[:alpha:]", "[[:digit:]]", "&&", "||", "--", "~~", "\\d", "\\w",
         "\\s", "\\b", "(?:", "(?=", "(?!", "(?<=", "(?P<n>", "(?P=n)", "\\1", "{2}", "{1,3}", "{,2}", "*?",
         "+?", "??", "[^", "]]", "[]", "\\]", "\\[", "(?i)", "(?x)", "#", " ", "\n", "(?>", "*+", "++",
         "\\Z", "\\A", "\\B", "\\D", "\\W", "\\S", "\\x41", "(?s)", "(?m)", "(?a)", "(?-i:", "(?#c)", "1",
         "A", "é", "[^\\s\\S]", "[^\\W\\w", "\\\\", "[\\\\[]", "[^\\d\\Da]"]  # fmt: skip


def test_regex_matches_what_re_matches_on_generated_patterns():
    """Random patterns over the constructs above (those `re` accepts), six texts each: the same match
    (span and groups) with `re` and with `regex` on the rewritten pattern. Seeded: the same run each
    time; the campaign that shaped the rewrites compared 31,000 valid patterns (120,000 generated)."""
    rng = random.Random(13)
    checked = 0
    with warnings.catch_warnings(), cpu_bound(30, "the differential check"):
        warnings.simplefilter("ignore", FutureWarning)
        while checked < 2000:
            pattern = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 9)))
            try:
                expected = re.compile(pattern)
            except (re.error, OverflowError, RecursionError):
                continue
            checked += 1
            compiled = regex.compile(for_regex(pattern))
            on_empty = regex.compile(for_regex(for_empty_text(pattern)))
            for _ in range(6):
                text = "".join(rng.choice("ab[]:&-|~alphdigt1A é\n#\\") for _ in range(rng.randint(0, 10)))
                want = expected.search(text)
                got = (on_empty if text == "" else compiled).search(text)
                assert (want and (want.span(), want.groups())) == (got and (got.span(), got.groups())), (
                    pattern,
                    text,
                )


@pytest.mark.parametrize(
    ("pattern", "size"),
    [
        ("abc", 3),
        ("a{1000}", 1000),
        ("a{1,100000}", 1),  # only the minimum count is unrolled
        ("a{100000,}", 100000),
        ("(a|b){3}", 9),
        ("((a{10}){10}){10}", 1000),
        ("[a{9}]{2}", 2),  # braces inside a set are members
    ],
)
def test_unrolled_size(pattern, size):
    assert unrolled_size(pattern) == size


def test_patterns_that_would_unroll_too_much_are_spotted_before_regex_compiles_them():
    """`regex` takes 0.6 s and 277 MB on a million copies, and never ends one level deeper."""
    assert unrolled_size("(?:a{1000}){1000}") > UNROLL_LIMIT
    assert unrolled_size("(?:(?:a{65535}){65535}){65535}") > UNROLL_LIMIT
    assert unrolled_size("x{99999999999}") > UNROLL_LIMIT
    assert unrolled_size("^[A-Za-z0-9]{32}$") <= UNROLL_LIMIT
