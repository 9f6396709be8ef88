"""The masking rules (`arazzo_runner.secrets.Masker`) and which inputs are secrets."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, quote_plus

from arazzo_runner import Masker
from arazzo_runner.executor.inputs import secret_values

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
