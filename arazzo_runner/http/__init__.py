"""HTTP: request building from OpenAPI, transport, and server-sent event decoding."""
