"""`http/charset.text_of`: a text body read by the charset the server names, when it is one."""

from __future__ import annotations

import pytest

from arazzo_runner.http.charset import codec_of, text_of


def test_a_real_charset_is_used_without_a_note():
    assert text_of("caf\u00e9".encode("latin-1"), "text/plain; charset=ISO-8859-1") == "caf\u00e9"
    assert codec_of("text/plain; charset=ISO-8859-1") == ("iso8859-1", None)
    assert text_of(b"\xff\xfeh\x00i\x00", "text/plain; charset=utf-16") == "hi"


@pytest.mark.parametrize(
    "charset", ["utf-7", "unicode_escape", "raw-unicode-escape", "punycode", "idna", "hex"]
)
def test_codecs_that_are_no_charset_read_the_body_as_utf8_with_a_note(charset):
    """utf-7 and the escape codecs make lone surrogates, punycode and idna take no error handler (and
    punycode is quadratic), hex is bytes to bytes."""
    content_type = f"text/plain; charset={charset}"
    assert text_of(b"+2AA- \\ud800 \xc3\xa9", content_type) == "+2AA- \\ud800 \u00e9"
    assert codec_of(content_type)[1] == (
        f"the response's charset '{charset}' is not read here (it is no charset for a body): "
        "its body was read as UTF-8"
    )


def test_bytes_that_are_no_character_and_lone_surrogates_read_as_u_fffd():
    assert text_of(b"a\xffb", "text/plain") == "a\ufffdb"
    assert text_of(b"\x00\xd8", "text/plain; charset=utf-16-le") == "\ufffd"  # a lone high surrogate
    with pytest.raises(UnicodeDecodeError):
        text_of(b"a\xffb", "text/plain", "strict")
