"""A text body's bytes as text, by its `charset`, under the engine's one rule for text from outside.

The charset is the server's to name, so it is input: an unknown name raised LookupError out of the body's
parse (the run crashed), and some codecs Python knows are not charsets at all. `utf-7` (`+2AA-`),
`unicode_escape` and `raw_unicode_escape` (`\\ud800`) decode to lone surrogates, which no UTF-8 can carry:
every report writer then failed (UnicodeEncodeError); `punycode` and `idna` take no error handler (and
punycode is quadratic in the body's length); `hex`, `base64`, `zlib` and the like are bytes-to-bytes.
Those, and a name Python does not know, are read as UTF-8 instead, with a note saying so (`codec_of`).
Bytes that are no character in the charset read as U+FFFD, and any lone surrogate left as U+FFFD too
(`json_text.unpaired`), so every string the engine holds is Unicode.
"""

from __future__ import annotations

import codecs
import functools

from ..bounds.json_text import unpaired
from .body import charset_of

# Python codecs a server may name that are no charset to read a body with (module doc).
_NOT_CHARSETS = frozenset({"utf-7", "unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"})


def text_of(content: bytes, content_type: str | None, errors: str = "replace") -> str:
    """`content` as text by the charset of `content_type` (UTF-8 when it names none, or one not read
    here): each byte that is no character is U+FFFD (`errors="strict"`: UnicodeDecodeError instead),
    each lone surrogate U+FFFD."""
    codec, _ = codec_of(content_type)
    try:
        text = content.decode(codec, errors)
    except UnicodeDecodeError:
        if errors == "strict":
            raise
        text = content.decode("utf-8", "replace")
    except (UnicodeError, ValueError, TypeError):  # a codec that fails otherwise: read as UTF-8
        text = content.decode("utf-8", errors)
    return unpaired(text)


@functools.lru_cache(maxsize=64)
def codec_of(content_type: str | None) -> tuple[str, str | None]:
    """The codec a body of this content type is read with, and a note when it is not the charset named."""
    name = charset_of(content_type)
    try:
        info = codecs.lookup(name)
    except LookupError:
        return "utf-8", f"the response names an unknown charset '{name}': its body was read as UTF-8"
    if not info._is_text_encoding or info.name in _NOT_CHARSETS:
        return "utf-8", (
            f"the response's charset '{name}' is not read here (it is no charset for a body): "
            "its body was read as UTF-8"
        )
    return info.name, None
