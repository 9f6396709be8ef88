"""Compression bombs: a few hundred bytes to a few hundred KB on the wire that decode to many MiB of
zeros, made once per size and coding (gzip alone, gzip stacked on gzip, brotli), for the servers of the
tests to send with their `Content-Encoding`.

`brotli` is the module that compresses (any version); `BOUNDED_BROTLI` says whether the engine can
decode brotli within a bound here (bounds/decoding.py: brotli >= 1.2): without it a br body is refused
unread, with its own message.
"""

from __future__ import annotations

import functools
import importlib.util
import zlib

MiB = 2**20
CODINGS = ("gzip", "gzip, gzip", "br")
HAS_BROTLI = importlib.util.find_spec("brotli") is not None


def bounded_brotli() -> bool:
    """Whether the installed brotli decodes with an output limit (what the engine needs for br)."""
    if not HAS_BROTLI:
        return False
    import brotli

    return hasattr(brotli.Decompressor(), "can_accept_more_data")


@functools.lru_cache(maxsize=8)
def bomb(coding: str, size: int) -> bytes:
    """`size` bytes of zeros, compressed by `coding` ("gzip", "gzip, gzip" or "br")."""
    if coding == "br":
        import brotli

        compressor = brotli.Compressor(quality=4)
        parts = [compressor.process(bytes(MiB)) for _ in range(size // MiB)]
        return b"".join([*parts, compressor.finish()])
    data = _gzip_zeros(size)
    if coding == "gzip, gzip":  # the outer coding applied last, as the header lists it
        return _gzip(data)
    assert coding == "gzip", coding
    return data


def _gzip_zeros(size: int) -> bytes:
    gzip = zlib.compressobj(6, zlib.DEFLATED, 31)
    block = bytes(MiB)
    parts = [gzip.compress(block) for _ in range(size // MiB)]
    return b"".join([*parts, gzip.flush()])


def _gzip(data: bytes) -> bytes:
    gzip = zlib.compressobj(9, zlib.DEFLATED, 31)
    return gzip.compress(data) + gzip.flush()


def headers(coding: str, data: bytes | None, content_type: str = "application/json") -> dict[str, str]:
    """The bomb's response headers; its Content-Length unless `data` is None (a server that adds it)."""
    found = {"Content-Type": content_type, "Content-Encoding": coding}
    return found if data is None else {**found, "Content-Length": str(len(data))}
