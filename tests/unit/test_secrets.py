"""The masking rules (`arazzo_runner.masking.secrets.Masker`) and which inputs are secrets."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, quote_plus

from arazzo_runner import Masker
from arazzo_runner.executor.inputs import secret_values
from arazzo_runner.masking.secrets import MIN_LENGTH, clip, cookie_values

SECRET = "pa ss/wörd+1"


def test_a_secret_is_masked_in_every_form_it_takes():
    masker = Masker({SECRET})
    forms = [
        SECRET,
        quote(SECRET, safe=""),
        quote(SECRET),
        quote_plus(SECRET),
        json.dumps(SECRET)[1:-1],
        base64.b64encode(SECRET.encode()).decode(),
    ]
    for form in forms:
        assert masker.text(f"<{form}>") == "<***>", form


def test_a_secret_is_masked_in_both_base64_alphabets():
    """A token in a JWT, a URL or a cookie is often urlsafe base64 (`-_` for `+/`, no padding)."""
    secret = "sk-live>?>?~~"
    standard = base64.b64encode(secret.encode()).decode()
    urlsafe = base64.urlsafe_b64encode(secret.encode()).decode().rstrip("=")
    assert standard.rstrip("=") != urlsafe  # the two alphabets differ for this one
    masker = Masker({secret})
    for form in (standard, urlsafe):
        assert masker.text(f"token={form};") == "token=***;", form


def test_values_built_from_secrets_are_masked():
    masker = Masker({"tok-123", "user:pw-456"})
    assert masker.text("Authorization: Bearer tok-123") == "Authorization: Bearer ***"
    basic = base64.b64encode(b"user:pw-456").decode()
    assert masker.text(f"Basic {basic}") == "Basic ***"


def test_short_values_are_never_masked_by_value_but_by_name():
    masker = Masker({"abc"}, headers={"X-Key"}, query={"key"})
    assert masker.text("abc and abcd") == "abc and abcd"
    assert masker.header("x-key", "abc") == "***"
    assert masker.url("http://h/p?key=abc&q=abc") == "http://h/p?key=***&q=abc"
    assert masker.query("key", "abc") == "***"


def test_sensitive_headers_are_masked_by_name():
    masker = Masker()
    assert masker.header("Authorization", "Bearer xy") == "Bearer ***"
    assert masker.header("authorization", "opaque") == "***"
    assert masker.header("Authorization", "tok3n extra") == "***"  # not a scheme: the word may be secret
    assert masker.header("Proxy-Authorization", "Basic zz") == "Basic ***"
    assert masker.header("Cookie", "a=1; b=2") == "a=***; b=***"
    assert masker.header("Set-Cookie", "sid=1; Path=/; HttpOnly") == "sid=***; Path=/; HttpOnly"
    assert masker.header("Content-Type", "text/plain") == "text/plain"
    assert masker.headers([("X-Other", "v"), ("Cookie", "a=b")]) == [("X-Other", "v"), ("Cookie", "a=***")]


def test_a_cookie_without_a_name_and_a_secret_in_set_cookie_attributes_are_masked():
    """A Cookie pair with no `=` is all value; a Set-Cookie's attributes are masked by value."""
    masker = Masker({"s3cr3t-value"})
    assert masker.header("Cookie", "a=1; loose") == "a=***; ***"
    assert masker.header("Set-Cookie", "sid=1; Path=/s3cr3t-value") == "sid=***; Path=/***"


def test_data_is_masked_deeply_and_copied():
    masker = Masker({"s3cret!"})
    value = {"a": ["x s3cret! y", {"s3cret!": 1}], "n": 5, "none": None}
    assert masker.data(value) == {"a": ["x *** y", {"***": 1}], "n": 5, "none": None}
    assert value["a"][0] == "x s3cret! y"


def test_the_secret_set_is_read_live():
    secrets: set[str] = set()
    masker = Masker(secrets)
    assert masker.text("token-1") == "token-1"
    secrets.add("token-1")  # the run fetched a token
    assert masker.text("token-1") == "***"
    secrets.discard("token-1")
    secrets.add("token-2")
    assert masker.text("token-1 token-2") == "token-1 ***"


def test_longer_secrets_win_over_the_shorter_ones_inside_them():
    masker = Masker({"abcd", "abcdefgh"})
    assert masker.text("abcdefgh") == "***"


def test_disabled_masker_passes_everything_through():
    masker = Masker({"secret-1"}, enabled=False)
    assert masker.text("secret-1") == "secret-1"
    assert masker.header("Authorization", "Bearer x") == "Bearer x"
    assert masker.data({"k": "secret-1"}) == {"k": "secret-1"}


def test_password_and_write_only_inputs_at_any_depth_are_secrets():
    document = {"components": {"inputs": {"creds": {"type": "string", "writeOnly": True}}}}
    schema = {
        "type": "object",
        "properties": {
            "password": {"type": "string", "format": "password"},
            "plain": {"type": "string"},
            "nested": {"type": "object", "properties": {"key": {"$ref": "#/components/inputs/creds"}}},
            "list": {"type": "array", "items": {"type": "string", "format": "password"}},
            "either": {"anyOf": [{"type": "string", "writeOnly": True}, {"type": "null"}]},
            "pin": {"type": "integer", "format": "password"},
        },
    }
    value = {
        "password": "p1",
        "plain": "visible",
        "nested": {"key": "k1"},
        "list": ["l1", "l2"],
        "either": "e1",
        "pin": 1234,
    }
    assert sorted(secret_values(schema, value, document)) == ["e1", "k1", "l1", "l2", "p1"]


# -- forms on the wire, cuts, cookies (issue 13) -------------------------------------------------------

HOSTILE = "Xy7 Sup3r:s3cr3t!it's"


def test_allow_reserved_cookie_and_quoted_forms_are_masked():
    from arazzo_runner.http.serialize import cookie_encode, encode, form_encode

    masker = Masker({HOSTILE})
    forms = {
        "allowReserved query": encode(HOSTILE, allow_reserved=True),  # Xy7%20Sup3r:s3cr3t!it's
        "allowReserved form": form_encode(HOSTILE, allow_reserved=True),  # Xy7+Sup3r:s3cr3t!it's
        "cookie": cookie_encode(HOSTILE),
        "criteria message": HOSTILE.replace("'", "''"),
        "input error": repr(HOSTILE)[1:-1],
    }
    assert len(set(forms.values()) - {HOSTILE}) >= 3  # really other forms than the raw text
    for where, form in forms.items():
        assert masker.text(f"<{form}>") == "<***>", where


def test_a_cut_never_shows_the_start_of_a_secret():
    masker = Masker({HOSTILE})
    cut = clip("x" * 72 + HOSTILE + " and more", 80)
    assert cut == "x" * 72 + HOSTILE[:8] + "...(22 more chars)"
    assert masker.text(cut) == "x" * 72 + "***...(22 more chars)"
    assert masker.text(masker.text(cut)) == masker.text(cut)  # masking again changes nothing
    assert masker.clip("x" * 72 + HOSTILE + " and more", 80) == "x" * 72 + "*** and ...(4 more chars)"
    # the cut of `clip` itself: what it leaves before its marker may be where a secret began
    assert masker.clip("Xy7 Sup3r then", 9) == "***...(5 more chars)"


def test_a_cut_masks_only_a_real_start_of_four_characters_or_more():
    masker = Masker({HOSTILE})
    assert masker.text("ab Xy7...(5 more chars)") == "ab Xy7...(5 more chars)"  # 3 characters
    assert masker.text("ab Xy7 ...(5 more chars)") == "ab ***...(5 more chars)"
    assert masker.text("ab Xy8 S...(5 more chars)") == "ab Xy8 S...(5 more chars)"  # not the secret
    assert masker.text("Xy7 Sup3r then") == "Xy7 Sup3r then"  # no cut: a start alone is not a secret


def test_clip_cuts_long_values_only():
    assert clip("short", 10) == "short"
    assert clip("a" * 15, 10) == "a" * 10 + "...(5 more chars)"


def test_cookie_values_sent_and_set_become_secrets():
    headers = [
        ("Cookie", "sid=abc123; theme=dark"),
        ("Set-Cookie", "jar=jar-value; Path=/; HttpOnly"),
        ("X-Other", "a=b"),
    ]
    assert cookie_values(headers) == ["abc123", "dark", "jar-value"]


def test_a_value_holding_a_secret_is_recognised_in_data():
    masker = Masker({HOSTILE})
    assert masker.touches({"echo": [f"seen {HOSTILE}"]})
    assert masker.touches(f"q={quote(HOSTILE)}")
    assert not masker.touches({"echo": "nothing here"})
    assert not Masker({HOSTILE}, enabled=False).touches(HOSTILE)


def test_outputs_derived_from_a_secret_are_shown_masked_by_name():
    from arazzo_runner.executor.values import Outputs

    outputs = Outputs({"codes": [88, 121], "plain": "visible"})
    outputs.secret.add("codes")
    assert Masker().outputs(outputs) == {"codes": "***", "plain": "visible"}
    assert Masker(enabled=False).outputs(outputs) == outputs


def test_a_password_echoed_json_escaped_is_masked():
    """A server echoing the password inside JSON escapes its quote (and may escape its non-ASCII letters)."""
    password = 'pä"ss-wörd'
    masker = Masker({password})
    assert masker.text('{"echo": "pä\\"ss-wörd"}') == '{"echo": "***"}'
    assert masker.text('{"echo": "p\\u00e4\\"ss-w\\u00f6rd"}') == '{"echo": "***"}'


def test_a_cut_leaving_all_but_the_last_character_of_a_secret_shows_none_of_it():
    for secret in (HOSTILE, "tok-3f9a7c1e5b2d"):  # the second has no longer form starting as it does
        masker = Masker({secret})
        for kept in (MIN_LENGTH, len(secret) - 1):
            cut = clip("x" * 10 + secret + " and more", 10 + kept)
            assert cut.startswith("x" * 10 + secret[:kept] + "...(")
            assert masker.text(cut) == "x" * 10 + "***" + cut[10 + kept :], (secret, kept)
