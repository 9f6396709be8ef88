"""`MaskingStream`: a text that arrives in pieces shows no secret, neither whole nor as a start that a
later piece completes, and what it releases is, joined, the whole text as `Masker.text` masks it."""

from __future__ import annotations

import base64
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arazzo_runner.masking.secrets import MIN_LENGTH, Masker, variants
from arazzo_runner.masking.stream import MaskingStream

TOKEN = "tok-3f9a7c1e5b2d"
KEY = "sk-test-5e1d9b3a7c"


def streamed(masker, pieces):
    """Each piece's release, then the flush's."""
    stream = MaskingStream(masker)
    released = [stream.feed(piece) for piece in pieces]
    return released, stream.flush()


def test_a_secret_split_over_pieces_is_one_mask_and_never_shows_its_start():
    masker = Masker({TOKEN})
    released, rest = streamed(masker, ["Your token is tok-3f", "9a7c1e", "5b2d, keep it."])
    assert released == ["Your token is ", "", "***, keep "]
    assert rest == "it."


def test_a_start_that_turns_out_not_to_be_a_secret_is_released_with_the_next_piece():
    masker = Masker({TOKEN})
    released, rest = streamed(masker, ["see tok-3f9", "x and more"])
    assert released == ["see ", "tok-3f9x and "]
    assert rest == "more"


def test_at_most_the_longest_form_minus_one_is_held_for_secrets():
    masker = Masker({TOKEN})
    stream = MaskingStream(masker)
    longest = max(len(form) for form in variants(TOKEN))
    stream.feed("a " * 40 + TOKEN[:-1])
    assert stream.held == TOKEN[:-1] and len(stream.held) <= longest - 1
    assert stream.feed(TOKEN[-1]) == ""  # whole now, but a word may still become a URL's scheme
    assert stream.feed(" ok") == "*** "


def test_encoded_forms_are_held_and_masked_too():
    masker = Masker({KEY})
    encoded = base64.b64encode(KEY.encode()).decode()
    released, rest = streamed(masker, ["b64: " + encoded[:10], encoded[10:] + " end"])
    assert "".join(released) + rest == "b64: *** end"
    assert encoded[:10] not in "".join(released)


def test_a_password_in_a_url_is_masked_whatever_the_pieces():
    masker = Masker(set())
    text = "open https://ann:hunter2@example.com/x now"
    for cut in range(1, len(text)):
        released, rest = streamed(masker, [text[:cut], text[cut:]])
        assert "".join(released) + rest == "open https://ann:***@example.com/x now", cut
        assert "hunter" not in "".join(released)


def test_a_secret_the_run_learns_mid_answer_is_held_from_then_on():
    secrets: set[str] = set()
    masker = Masker(secrets)
    stream = MaskingStream(masker)
    assert stream.feed("first ") == "first "
    secrets.add(TOKEN)
    assert stream.feed("then tok-3f9a") == "then "
    assert stream.feed("7c1e5b2d.") + stream.flush() == "***."


def test_emit_is_called_with_each_non_empty_release():
    shown = []
    stream = MaskingStream(Masker({TOKEN}), shown.append)
    for piece in ["a ", "tok-3f", "9a7c1e5b2d", " b"]:
        stream.feed(piece)
    stream.flush()
    assert shown == ["a ", "*** ", "b"]


def test_a_disabled_masker_holds_nothing():
    stream = MaskingStream(Masker({TOKEN}, enabled=False))
    assert stream.feed("tok-3f") == "tok-3f" and stream.feed("9a7c1e5b2d") == "9a7c1e5b2d"


def test_overlapping_forms_are_never_cut():
    masker = Masker({"abab"})
    released, rest = streamed(masker, ["xx ab", "ab", "ab yy"])
    assert "".join(released) + rest == masker.text("xx ababab yy") == "xx ***ab yy"


SECRET_TEXT = st.text(alphabet="ab-c/ +", min_size=4, max_size=9)
TEXT = st.text(alphabet="ab-c/ +:@xh", max_size=60)


def _split(text, cuts):
    points = sorted({c % (len(text) + 1) for c in cuts})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    secrets=st.lists(SECRET_TEXT, min_size=1, max_size=3),
    parts=st.lists(st.one_of(TEXT, st.sampled_from(["<S0>", "<S1>", "<S2>"])), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_any_split_releases_the_whole_text_masked_and_never_a_secret(secrets, parts, cuts):
    """Random secrets (from a small alphabet, so that they overlap each other and the text), placed in
    random text, the text cut at random points: the releases join into `Masker.text` of the whole,
    no form of a secret is ever in what was released so far, and no released text ends with a start
    that the rest of the stream completes into a form."""
    text = "".join(secrets[int(p[2]) % len(secrets)] if p.startswith("<S") else p for p in parts)
    masker = Masker(set(secrets))
    stream = MaskingStream(masker)
    shown = ""
    for piece in _split(text, cuts):
        shown += stream.feed(piece)
        assert not any(form in shown for form in masker._masked_forms())
    assert shown + stream.flush() == masker.text(text)


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(alphabet="xy .", max_size=20),
    suffix=st.text(alphabet="xy .", max_size=20),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
)
def test_a_real_token_in_random_pieces_is_never_shown(prefix, suffix, cuts):
    text = f"{prefix}{TOKEN}{suffix}"
    stream = MaskingStream(Masker({TOKEN, KEY}))
    shown = "".join(stream.feed(piece) for piece in _split(text, cuts)) + stream.flush()
    assert shown == f"{prefix}***{suffix}"
    for n in range(4, len(TOKEN)):  # no start of it either, of the length masking recognises
        assert TOKEN[:n] not in shown


@settings(max_examples=200, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["see", "https", "://", "ann:", "pw", "@", "host", "/x", " ", "?"]), max_size=14
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
)
def test_urls_with_a_password_in_random_pieces_read_as_the_whole_text(words, cuts):
    text = "".join(words) + " https://ann:pw-secret-9@host/x"
    masker = Masker(set())
    stream = MaskingStream(masker)
    shown = ""
    for piece in _split(text, cuts):
        shown += stream.feed(piece)
        assert "pw-secret" not in shown
    assert shown + stream.flush() == masker.text(text)


def test_a_percent_encoded_secret_is_held_until_whole_and_masked():
    """The longest form of a secret with a space and non-ASCII letters is its percent-encoding: all of
    it but its last character is held, and it is masked however it is split."""
    from urllib.parse import quote

    secret = "pa ss/wörd+1"
    masker = Masker({secret})
    encoded = quote(secret, safe="")
    assert len(encoded) == max(len(form) for form in variants(secret))
    stream = MaskingStream(masker)
    assert stream.feed("a " * 30 + encoded[:-1]) == "a " * 30
    assert stream.held == encoded[:-1]
    for cut in range(1, len(encoded)):
        released, rest = streamed(masker, ["url: /p/" + encoded[:cut], encoded[cut:] + " end"])
        assert "".join(released) + rest == "url: /p/*** end", cut
        assert encoded[:MIN_LENGTH] not in "".join(released), cut
