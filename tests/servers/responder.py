"""A responder process for the event-driven tests: it subscribes to a request channel on a real broker
and answers each request on a reply channel, as an order service would.

    python -m tests.servers.responder PROTOCOL HOST PORT REQUESTS REPLIES

A request is JSON `{"requestId": ..., "mode": ..., "petId": ...}`; the answer depends on `mode`:
`ok` answers at once (well under a millisecond on this machine), `late` after `delayMs`, `never`
does not answer, `error` answers `{"status": "error", ...}`, `flood` answers after 1,500 messages for
other request ids (more than a subscription keeps). Before each real answer another one with a
different request id is published (a message for someone else, which correlation must skip). Over NATS
and Kafka the request id also travels in the `orderRequestId` header, over AMQP too (and in the
message's `correlation_id` property); over MQTT 3.1.1 (no headers) in the payload. `mqtt5` speaks MQTT 5:
the reply carries the `orderRequestId` and `service` user properties and a content type, goes to the
request's response topic when it names one (else to REPLIES) with its correlation data, and its
payload says what the request came with (`requestQos`, `requestHeaders`: its user properties). An
AMQP address is `exchange/routing-key` (the service declares the direct exchange and its own queue
bound to the key) or a queue on the default exchange. Prints `READY` once subscribed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys


def answers(request: dict) -> tuple[float, list[dict]]:
    """(delay in seconds, the payloads to publish) for one request."""
    request_id = request.get("requestId")
    mode = request.get("mode", "ok")
    if mode == "never":
        return 0.0, []
    noise = {"requestId": f"other-{request_id}", "orderId": -1, "status": "confirmed"}
    if mode == "flood":
        decoys = [{**noise, "requestId": f"other-{request_id}-{n}"} for n in range(1500)]
        return 0.0, [*decoys, {"requestId": request_id, "orderId": 1, "status": "confirmed"}]
    if mode == "error":
        return 0.0, [noise, {"requestId": request_id, "status": "error", "error": "out of stock"}]
    delay = float(request.get("delayMs", 0)) / 1000 if mode == "late" else 0.0
    order = {"requestId": request_id, "orderId": int(request.get("petId", 0)) * 10 + 1, "status": "confirmed"}
    return delay, [noise, order]


async def mqtt(host: str, port: int, requests: str, replies: str) -> None:
    import aiomqtt

    async with aiomqtt.Client(host, port) as client:
        await client.subscribe(requests, qos=1)
        print("READY", flush=True)
        async for message in client.messages:
            delay, payloads = answers(json.loads(message.payload))
            if delay:
                await asyncio.sleep(delay)
            for payload in payloads:
                await client.publish(replies, json.dumps(payload), qos=1)


async def mqtt5(host: str, port: int, requests: str, replies: str) -> None:
    import aiomqtt
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    async with aiomqtt.Client(host, port, protocol=aiomqtt.ProtocolVersion.V5) as client:
        await client.subscribe(requests, qos=2)  # a message is delivered at the QoS it was published at
        print("READY", flush=True)
        async for message in client.messages:
            request = getattr(message, "properties", None)
            users = getattr(request, "UserProperty", None) or []
            seen = {"requestQos": message.qos, "requestHeaders": dict(users)}
            topic = getattr(request, "ResponseTopic", None) or replies
            correlation = getattr(request, "CorrelationData", None)
            delay, payloads = answers(json.loads(message.payload))
            if delay:
                await asyncio.sleep(delay)
            for payload in payloads:
                properties = Properties(PacketTypes.PUBLISH)
                properties.UserProperty = [
                    ("orderRequestId", str(payload["requestId"])),
                    ("service", "orders"),
                ]
                properties.ContentType = "application/json"
                if correlation is not None:  # the decoy's differs
                    mine = payload["requestId"] == json.loads(message.payload).get("requestId")
                    properties.CorrelationData = correlation if mine else b"other-" + correlation
                body = json.dumps({**payload, **seen})
                await client.publish(topic, body, qos=1, properties=properties)


async def nats(host: str, port: int, requests: str, replies: str) -> None:
    import nats as nats_client

    client = await nats_client.connect(f"nats://{host}:{port}")

    async def handle(msg) -> None:
        delay, payloads = answers(json.loads(msg.data))
        if delay:
            await asyncio.sleep(delay)
        for payload in payloads:
            headers = {"orderRequestId": str(payload["requestId"])}
            await client.publish(replies, json.dumps(payload).encode(), headers=headers)
        await client.flush()

    await client.subscribe(requests, cb=handle)
    await client.flush()
    print("READY", flush=True)
    await asyncio.Event().wait()


async def kafka(host: str, port: int, requests: str, replies: str) -> None:
    import aiokafka

    servers = f"{host}:{port}"
    producer = aiokafka.AIOKafkaProducer(bootstrap_servers=servers)
    await producer.start()
    await producer.partitions_for(replies)  # both topics exist before the first request
    consumer = aiokafka.AIOKafkaConsumer(bootstrap_servers=servers, enable_auto_commit=False)
    await consumer.start()
    partitions = await producer.partitions_for(requests)
    assigned = [aiokafka.TopicPartition(requests, p) for p in sorted(partitions)]
    consumer.assign(assigned)
    await consumer.seek_to_end(*assigned)
    for partition in assigned:
        await consumer.position(partition)
    print("READY", flush=True)
    async for record in consumer:
        delay, payloads = answers(json.loads(record.value))
        if delay:
            await asyncio.sleep(delay)
        for payload in payloads:
            headers = [("orderRequestId", str(payload["requestId"]).encode())]
            await producer.send_and_wait(replies, json.dumps(payload).encode(), headers=headers)


async def amqp(host: str, port: int, requests: str, replies: str) -> None:
    """As a RabbitMQ service: its queues durable, the reply to the request's `reply_to` queue when it
    names one, with the request's `correlation_id` (else the request id); the reply's payload says what
    the request came with (`requestProperties`, `requestHeaders`: its headers table)."""
    import aio_pika

    connection = await aio_pika.connect(host=host, port=port)
    channel = await connection.channel(publisher_confirms=True)
    exchange_name, slash, key = requests.partition("/")
    if slash:
        exchange = await channel.declare_exchange(exchange_name, aio_pika.ExchangeType.DIRECT)
        queue = await channel.declare_queue("order-service", durable=True)
        await queue.bind(exchange, routing_key=key)
    else:
        queue = await channel.declare_queue(requests, durable=True)
    reply_exchange_name, slash, reply_key = replies.partition("/")
    if slash:
        reply_exchange = await channel.declare_exchange(reply_exchange_name, aio_pika.ExchangeType.DIRECT)
    else:
        reply_exchange, reply_key = channel.default_exchange, replies
        await channel.declare_queue(replies, durable=True)  # a service's own reply queue

    async def handle(message) -> None:
        async with message.process():
            request = json.loads(message.body)
            names = ("content_type", "correlation_id", "message_id", "reply_to", "type", "app_id")
            properties = {n: getattr(message, n) for n in names if getattr(message, n, None)}
            seen = {"requestProperties": properties, "requestHeaders": dict(message.headers or {})}
            delay, payloads = answers(request)
            if delay:
                await asyncio.sleep(delay)
            for payload in payloads:
                mine = payload["requestId"] == request.get("requestId")
                asked = message.correlation_id
                correlation = (asked if mine else f"other-{asked}") if asked else str(payload["requestId"])
                reply = aio_pika.Message(
                    json.dumps({**payload, **seen}).encode(),
                    content_type="application/json",
                    correlation_id=correlation,
                    headers={"orderRequestId": str(payload["requestId"])},
                )
                if message.reply_to:
                    await channel.default_exchange.publish(reply, routing_key=message.reply_to)
                else:
                    await reply_exchange.publish(reply, routing_key=reply_key)

    await queue.consume(handle)
    print("READY", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)
    protocol, host, port, requests, replies = sys.argv[1:6]
    run = {"mqtt": mqtt, "mqtt5": mqtt5, "nats": nats, "kafka": kafka, "amqp": amqp}[protocol]
    try:
        asyncio.run(run(host, int(port), requests, replies))
    except KeyboardInterrupt:
        sys.exit(0)
