"""Issue 28, row 5: an MQTT send/receive round trip. `arazzo run` of a workflow of K send + receive pairs
(each request answered by a responder, the reply correlated by its request id, one criterion, one
output) against the script a user would write instead: one aiomqtt client subscribed to the replies,
publishing each request (QoS 1) and waiting for the reply with its id, checking its status. Same
broker (mosquitto, or amqtt when mosquitto is not installed), same responder (its own process).

Whole processes, paired rounds (the order alternating), medians of CPU time (user + system of the
process): for 1 round trip, and the CPU a round trip adds, (cpu(K) - cpu(1)) / (K - 1).

    python bench/mqtt_roundtrip.py [--runs 7] [--trips 30] [--json PATH] [--against CHECKOUT]

`--against` also runs `arazzo` with another checkout's engine (its `PYTHONPATH`) in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import arazzo_command, machine_line, measure_process, median, write_json
from server import free_port

REQUESTS, REPLIES = "bench/requests", "bench/replies"

RESPONDER = """
import asyncio, json, sys
import aiomqtt

async def main(port):
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.subscribe(sys.argv[2], qos=1)
        print("READY", flush=True)
        async for message in client.messages:
            request = json.loads(message.payload)
            order = request["petId"] * 10 + 1
            reply = {"requestId": request["requestId"], "orderId": order, "status": "confirmed"}
            await client.publish(sys.argv[3], json.dumps(reply), qos=1)

asyncio.run(main(int(sys.argv[1])))
"""

BASELINE = """
import asyncio, json, sys
import aiomqtt

async def main(port, trips):
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.subscribe(sys.argv[4], qos=1)
        for trip in range(trips):
            request_id = f"req-{trip}"
            body = {"requestId": request_id, "petId": 7}
            await client.publish(sys.argv[3], json.dumps(body).encode(), qos=1)
            async for message in client.messages:
                reply = json.loads(message.payload)
                if reply.get("requestId") == request_id:
                    assert reply["status"] == "confirmed", reply
                    print(reply["orderId"])
                    break

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
"""


def asyncapi() -> dict:
    message = {"contentType": "application/json", "payload": {"type": "object"}}
    reply = {**message, "correlationId": {"location": "$message.payload#/requestId"}}
    return {
        "asyncapi": "3.0.0",
        "info": {"title": "Orders", "version": "1.0.0"},
        "servers": {"broker": {"host": "127.0.0.1:1883", "protocol": "mqtt"}},
        "channels": {
            "requests": {"address": REQUESTS, "messages": {"Request": message}},
            "replies": {"address": REPLIES, "messages": {"Reply": reply}},
        },
        "operations": {
            "placeOrder": {
                "action": "receive",
                "channel": {"$ref": "#/channels/requests"},
                "reply": {"channel": {"$ref": "#/channels/replies"}},
            }
        },
    }


def document(trips: int) -> dict:
    steps = []
    for trip in range(trips):
        request_id = f"req-{trip}"
        steps.append(
            {
                "stepId": f"send{trip}",
                "operationId": "placeOrder",
                "action": "send",
                "requestBody": {"payload": {"requestId": request_id, "petId": 7}},
            }
        )
        steps.append(
            {
                "stepId": f"receive{trip}",
                "operationId": "placeOrder",
                "action": "receive",
                "correlationId": request_id,
                "timeout": 5000,
                "successCriteria": [{"condition": "$message.payload#/status == 'confirmed'"}],
                "outputs": {"orderId": "$message.payload#/orderId"},
            }
        )
    return {
        "arazzo": "1.1.0",
        "info": {"title": f"{trips} MQTT round trips", "version": "1"},
        "sourceDescriptions": [{"name": "orders", "url": "./orders.asyncapi.json", "type": "asyncapi"}],
        "workflows": [{"workflowId": "orders", "steps": steps}],
    }


class Broker:
    """mosquitto on a free port (amqtt when mosquitto is not installed), with the responder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.processes: list[subprocess.Popen] = []
        self.name = ""

    def __enter__(self) -> Broker:
        mosquitto = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
        if mosquitto:
            config = self.folder / "mosquitto.conf"
            config.write_text(
                f"persistence false\nlog_dest none\nlistener {self.port} 127.0.0.1\nallow_anonymous true\n"
            )
            command = [mosquitto, "-c", str(config)]
            self.name = "mosquitto"
        else:
            config = self.folder / "amqtt.yaml"
            config.write_text(
                json.dumps({"listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{self.port}"}}})
            )
            command = [str(Path(sys.executable).with_name("amqtt")), "-c", str(config)]
            self.name = "amqtt"
        self.processes.append(subprocess.Popen(command, stderr=subprocess.DEVNULL))
        time.sleep(0.5)
        responder = subprocess.Popen(
            [sys.executable, "-c", RESPONDER, str(self.port), REQUESTS, REPLIES],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.processes.append(responder)
        assert responder.stdout is not None and responder.stdout.readline().strip() == "READY"
        return self

    def __exit__(self, *exc: object) -> None:
        for process in reversed(self.processes):
            process.terminate()
            process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--trips", type=int, default=30)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument(
        "--against", metavar="CHECKOUT", help="another checkout's engine, run in the same rounds"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Broker(Path(tmp)) as broker:
        folder = Path(tmp)
        (folder / "orders.asyncapi.json").write_text(json.dumps(asyncapi()))
        commands = {}
        for trips in (1, args.trips):
            path = folder / f"trips-{trips}.arazzo.json"
            path.write_text(json.dumps(document(trips)))
            server = ["--server", f"orders=mqtt://127.0.0.1:{broker.port}"]
            commands[f"arazzo {trips}"] = [*arazzo_command(), "run", str(path), *server, "--format", "json"]
            if args.against:
                commands[f"against {trips}"] = commands[f"arazzo {trips}"]
            baseline = [sys.executable, "-c", BASELINE, str(broker.port), str(trips), REQUESTS, REPLIES]
            commands[f"aiomqtt {trips}"] = baseline
        found: dict[str, list] = {name: [] for name in commands}
        names = list(commands)
        for round_ in range(args.runs):
            for name in names if round_ % 2 == 0 else names[::-1]:
                env = (
                    {"PYTHONPATH": str(Path(args.against).resolve())} if name.startswith("against") else None
                )
                measured = measure_process(commands[name], env, quiet=True)
                if measured.code != 0:
                    raise SystemExit(f"{name}: exit {measured.code}")
                found[name].append(measured)
        load = os.getloadavg()[0]
    cpu = {name: median([m.cpu for m in runs]) for name, runs in found.items()}
    wall = {name: median([m.wall for m in runs]) for name, runs in found.items()}
    trips = args.trips
    who_ran = ("arazzo", "aiomqtt", "against") if args.against else ("arazzo", "aiomqtt")
    per = {who: (cpu[f"{who} {trips}"] - cpu[f"{who} 1"]) / (trips - 1) for who in who_ran}
    print(f"machine: {machine_line()}; broker {broker.name}; load average (1 min) at the end: {load:.2f}")
    print(f"method: whole processes, {args.runs} paired rounds alternating, medians of CPU (user+sys)")
    for name in commands:
        print(f"  {name:>11} round trip(s): CPU {cpu[name] * 1000:7.1f} ms, wall {wall[name] * 1000:7.1f} ms")
    ratio_one = cpu["arazzo 1"] / cpu["aiomqtt 1"]
    ratio_per = per["arazzo"] / per["aiomqtt"]
    print(f"whole process, 1 round trip: ours {cpu['arazzo 1'] * 1000:.1f} ms CPU, baseline "
          f"{cpu['aiomqtt 1'] * 1000:.1f} ms, ratio {ratio_one:.2f}x")  # fmt: skip
    print(f"per round trip ((K={trips}) - (K=1)) / {trips - 1}: ours {per['arazzo'] * 1e6:,.0f} µs CPU, "
          f"baseline {per['aiomqtt'] * 1e6:,.0f} µs, "
          f"+{(per['arazzo'] - per['aiomqtt']) * 1e6:,.0f} µs, ratio "
          f"{ratio_per:.2f}x (goal <= 1.3x CPU)")  # fmt: skip
    if args.against:
        print(f"against {args.against}: 1 round trip {cpu['against 1'] / cpu['aiomqtt 1']:.2f}x, "
              f"per round trip {per['against'] * 1e6:,.0f} µs CPU "
              f"({per['against'] / per['aiomqtt']:.2f}x)")  # fmt: skip
    figures = {"cpu": cpu, "wall": wall, "per_trip": per, "ratio_one": ratio_one, "ratio_per_trip": ratio_per}
    write_json(args.json, {"machine": machine_line(), "load": load, "broker": broker.name, **figures})


if __name__ == "__main__":
    main()
