"""Kafka and AMQP: run against a real broker only where one can be started from what the test extra
installs. Neither Kafka (a JVM service) nor RabbitMQ (an Erlang one) ships as a Python package, so on
this project's machines these are skipped, saying so; they are never mocked. The transports
(`arazzo_runner/messages/kafka.py`, `amqp.py`) are unit-checked for their registry entries only."""

from __future__ import annotations

import shutil

import pytest

RABBIT = shutil.which("rabbitmq-server")


@pytest.mark.skipif(
    not RABBIT, reason="no AMQP broker can be started from the test extra (RabbitMQ is an Erlang service)"
)
def test_amqp_send_and_receive_against_a_real_broker() -> None:
    pytest.fail("a RabbitMQ binary is present: write the real-broker test before relying on the transport")
