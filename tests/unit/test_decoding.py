"""http/decoding.py alone: every coding undone gives the body back whole, in pieces of about PIECE bytes
whatever the chunks it is fed; stacked codings are undone last first; a body that does not fit its coding
is an httpx.DecodingError; what cannot be undone within a bound is `Undecodable` before anything is read."""

from __future__ import annotations

import asyncio
import gzip
import zlib

import httpx
import pytest

from arazzo_runner.bounds import decoding
from arazzo_runner.bounds.decoding import PIECE, BodyDecoder, Undecodable, decoded, iter_decoded
from tests.servers.bombs import HAS_BROTLI, bounded_brotli
from tests.untested import skip_untested, skipif_untested

DATA = b"".join(b"line %d of a body that compresses well\n" % n for n in range(40000))  # ~1.5 MB
needs_brotli = skipif_untested(
    not bounded_brotli(), "no brotli >= 1.2", "brotli-encoded bodies are decoded within their bounds"
)


def _brotli(data: bytes) -> bytes:
    import brotli

    return brotli.compress(data, quality=4)


def _all(decoder: BodyDecoder, blob: bytes, chunk: int) -> list[bytes]:
    pieces = []
    for at in range(0, len(blob), chunk):
        pieces.extend(decoder.decode(blob[at : at + chunk]))
    pieces.extend(decoder.flush())
    return pieces


CODED = {
    "gzip": lambda: gzip.compress(DATA),
    "x-gzip": lambda: gzip.compress(DATA),
    "deflate": lambda: zlib.compress(DATA),
    "gzip, gzip": lambda: gzip.compress(gzip.compress(DATA)),
    "deflate, gzip": lambda: gzip.compress(zlib.compress(DATA)),
    "GZip , identity": lambda: gzip.compress(DATA),
}


@pytest.mark.parametrize("chunk", [1, 977, 65536])
@pytest.mark.parametrize("coding", list(CODED))
def test_each_coding_gives_the_body_back_in_bounded_pieces(coding, chunk):
    if chunk == 1 and len(CODED[coding]()) > 20000:
        pytest.skip("one byte at a time only for the small encodings")
    pieces = _all(BodyDecoder(coding), CODED[coding](), chunk)
    assert b"".join(pieces) == DATA
    assert max(map(len, pieces)) <= PIECE


def test_raw_deflate_as_some_servers_send_it():
    deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    raw = deflate.compress(DATA) + deflate.flush()
    assert b"".join(_all(BodyDecoder("deflate"), raw, 4096)) == DATA


@needs_brotli
@pytest.mark.parametrize("coding", ["br", "gzip, br", "br, br"])
def test_brotli_pieces_stay_under_twice_the_piece(coding):
    blob = DATA
    for name in (c.strip() for c in coding.split(",")):  # in the order the server applied them
        blob = _brotli(blob) if name == "br" else gzip.compress(blob)
    pieces = _all(BodyDecoder(coding), blob, 100)
    assert b"".join(pieces) == DATA
    assert max(map(len, pieces)) < 2 * PIECE


def test_a_bomb_is_decoded_only_as_far_as_it_is_read():
    """64 MiB of zeros in one chunk: taking three pieces decodes three pieces, not the bomb."""
    blob = gzip.compress(bytes(64 * 2**20))
    pieces = BodyDecoder("gzip").decode(blob)
    taken = [next(pieces) for _ in range(3)]
    assert [len(piece) for piece in taken] == [PIECE] * 3


def test_identity_and_unknown_codings_are_left_as_they_came():
    assert b"".join(_all(BodyDecoder("identity"), DATA, 5000)) == DATA
    decoder = BodyDecoder("compress-of-my-own")
    assert not decoder.encoded
    assert b"".join(_all(decoder, DATA, 5000)) == DATA


def test_more_than_four_codings_are_not_read():
    four = gzip.compress(gzip.compress(gzip.compress(gzip.compress(b"four times"))))
    assert b"".join(_all(BodyDecoder("gzip, gzip, gzip, gzip"), four, 7)) == b"four times"
    with pytest.raises(Undecodable, match=r"has 5 content codings \(Content-Encoding: gzip, gzip, gzip, "):
        BodyDecoder("gzip, gzip, gzip, gzip, gzip")


def test_a_coding_without_a_bounded_decoder_is_refused_unread(monkeypatch):
    monkeypatch.setattr(decoding, "_brotli", lambda: None)
    monkeypatch.setattr(decoding, "_zstd", lambda: None)
    with pytest.raises(Undecodable) as caught:
        BodyDecoder("gzip, br")
    assert str(caught.value) == (
        "the response body is encoded with br (Content-Encoding: gzip, br), which cannot be decoded here "
        "within the size limit (brotli 1.2 or later is needed): it was not read"
    )
    with pytest.raises(Undecodable, match=r"encoded with zstd .*compression\.zstd is needed"):
        BodyDecoder("zstd")


def test_accept_encoding_names_only_what_is_decoded_within_a_bound():
    names = decoding.accept_encoding().split(", ")
    assert names[:2] == ["gzip", "deflate"]
    assert ("br" in names) == bounded_brotli()
    assert ("zstd" in names) == (decoding._zstd() is not None)


def _response(coding: str, blob: bytes) -> httpx.Response:
    request = httpx.Request("GET", "http://127.0.0.1:9/x")
    return httpx.Response(200, headers={"Content-Encoding": coding}, content=blob, request=request)


def test_a_body_that_does_not_fit_its_coding_is_a_decoding_error_with_its_request():
    with pytest.raises(httpx.DecodingError) as caught:
        list(iter_decoded(_response("gzip", b"not gzip at all")))
    assert "incorrect header check" in str(caught.value)
    assert str(caught.value.request.url) == "http://127.0.0.1:9/x"

    async def read() -> bytes:
        return b"".join([piece async for piece in decoded(_response("gzip", b"not gzip at all"))])

    with pytest.raises(httpx.DecodingError, match="incorrect header check"):
        asyncio.run(read())


@skipif_untested(not HAS_BROTLI, "no brotli", "brotli-encoded bodies are decoded within their bounds")
def test_a_broken_brotli_body_is_a_decoding_error():
    if not bounded_brotli():
        skip_untested("no brotli >= 1.2", "brotli-encoded bodies are decoded within their bounds")
    with pytest.raises(httpx.DecodingError):
        list(iter_decoded(_response("br", b"\xff" * 64)))


# -- bytes after the end of a stream, several gzip members, what a coding reads -----------------------


def _ended(coding: str) -> bytes:
    if coding == "gzip":
        return gzip.compress(b"{}")
    raw = zlib.compressobj(6, zlib.DEFLATED, -15)
    return raw.compress(b"{}") + raw.flush()


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_bytes_after_the_end_of_the_stream_are_refused_not_kept(coding):
    """zlib appends input after the end to `unused_data` (copying it all each time): every raw byte that
    followed was held, uncounted by any decoded-bytes limit. Now the first such byte is refused."""
    decoder = BodyDecoder(coding)
    assert b"".join(decoder.decode(_ended(coding))) == b"{}"
    with pytest.raises(decoding._Broken, match=r"^data after the end of the compressed body$"):
        list(decoder.decode(bytes(64 * 1024)))


def test_bytes_after_the_end_in_the_same_chunk_are_refused():
    with pytest.raises(decoding._Broken, match="data after the end of the compressed body"):
        list(BodyDecoder("gzip").decode(gzip.compress(b"{}") + b"junk"))


@pytest.mark.parametrize("chunk", [1, 2, 7, 65536])
def test_a_gzip_body_of_several_members_decodes_whole(chunk):
    """RFC 1952: a gzip file is a series of members; `gzip.decompress` reads them all, and so does this
    (the next member's magic may arrive split over two chunks)."""
    blob = gzip.compress(b"a") + gzip.compress(b"") + gzip.compress(DATA)
    assert b"".join(_all(BodyDecoder("gzip"), blob, chunk)) == gzip.decompress(blob) == b"a" + DATA


def test_a_body_ending_on_half_a_gzip_magic_is_broken():
    decoder = BodyDecoder("gzip")
    list(decoder.decode(gzip.compress(b"a") + b"\x1f"))
    with pytest.raises(decoding._Broken, match="data after the end"):
        list(decoder.flush())


def test_what_a_coding_reads_counts_against_the_limit():
    """An endless run of empty stored deflate blocks decodes to nothing: only the bytes read can stop it."""
    decoder = BodyDecoder("deflate", limit=100_000)
    blocks = b"\x00\x00\x00\xff\xff" * 10_000  # 50,000 bytes, no byte decoded
    assert b"".join(decoder.decode(blocks)) == b""
    assert b"".join(decoder.decode(blocks)) == b""
    with pytest.raises(decoding.EncodedTooLarge, match="larger than the limit of 100000 bytes before it is"):
        list(decoder.decode(b"\x00\x00\x00\xff\xff"))


def test_an_inner_codings_input_counts_against_the_limit():
    """ "gzip, gzip": the inner coding reads what the outer one decodes to; past the limit, it stops."""
    blob = gzip.compress(zlib.compress(DATA) * 1)  # the outer decodes to the inner's ~100 KB
    inner_size = len(zlib.compress(DATA))
    with pytest.raises(decoding.EncodedTooLarge, match="part-decoded"):
        _all(BodyDecoder("deflate, gzip", limit=inner_size - 1), blob, 65536)
    assert b"".join(_all(BodyDecoder("deflate, gzip", limit=inner_size), blob, 65536)) == DATA


def test_a_response_read_before_the_engine_saw_it_gives_its_content() -> None:
    """A caller's transport may answer with `httpx.Response(json=...)`, which httpx reads at once: its
    raw stream is gone (StreamConsumed), its content is decoded in memory; the readers take that."""
    import asyncio

    import httpx

    from arazzo_runner.bounds.decoding import decoded, iter_decoded

    def answer() -> httpx.Response:
        return httpx.Response(200, json={"ok": True})

    async def read() -> bytes:
        return b"".join([piece async for piece in decoded(answer(), 1000)])

    assert asyncio.run(read()) == b'{"ok":true}'
    assert b"".join(iter_decoded(answer(), 1000)) == b'{"ok":true}'
