"""Payloads encrypted before they reach the Temporal service, when `ARAZZO_TEMPORAL_KEY` is set (the same
value on the client and every worker; any string, hashed to an AES-256 key).

Why a codec as well as credentials resolved on the workers: the workers resolve `ARAZZO_AUTH_*` from
their own environment, so credentials never cross from the client; but the request an exchange
activity sends carries them (an Authorization header), and its response may carry tokens. With the key,
history holds only ciphertext: an activity input, a response, a run's inputs and result. Without it, a
request carrying a credential is not sent (the step fails saying so): history never holds one in clear.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

KEY_VARIABLE = "ARAZZO_TEMPORAL_KEY"
_ENCODING = b"binary/arazzo-aes256gcm"


class SealingCodec(PayloadCodec):
    def __init__(self, secret: str) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._aead = AESGCM(hashlib.sha256(secret.encode()).digest())

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        sealed = []
        for payload in payloads:
            nonce = os.urandom(12)
            data = nonce + self._aead.encrypt(nonce, payload.SerializeToString(), None)
            sealed.append(Payload(metadata={"encoding": _ENCODING}, data=data))
        return sealed

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        opened = []
        for payload in payloads:
            if payload.metadata.get("encoding") != _ENCODING:
                opened.append(payload)
                continue
            try:
                plain = self._aead.decrypt(payload.data[:12], payload.data[12:], None)
            except Exception:
                raise ValueError(f"a payload sealed with another {KEY_VARIABLE}") from None
            opened.append(Payload.FromString(plain))
        return opened


def data_converter() -> Any:
    """Temporal's default converter, sealed with `ARAZZO_TEMPORAL_KEY` when it is set."""
    import dataclasses

    import temporalio.converter

    secret = os.environ.get(KEY_VARIABLE)
    default = temporalio.converter.DataConverter.default
    return dataclasses.replace(default, payload_codec=SealingCodec(secret)) if secret else default
