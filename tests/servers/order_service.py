"""The pet shop of workflows/order-events.arazzo.yaml, for its tests: HTTP orders, MQTT confirmations.

    python -m tests.servers.order_service MQTT_HOST MQTT_PORT [reject]

`POST /orders {"petId": n}` answers 202 `{"requestId", "status": "pending"}` and at once publishes
`{"requestId", "orderId", "status": "confirmed"}` (or "rejected" with `reject`) on
`shop/orders/confirmed`; `GET /orders/{id}` answers the order. Prints `PORT <n>` once it listens on a
free port of 127.0.0.1.
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOPIC = "shop/orders/confirmed"


def main(host: str, port: int, verdict: str) -> None:
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect(host, port)
    client.loop_start()
    orders: dict[int, dict] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            """Quiet: the tests read the results, not this log."""

        def _answer(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            if self.path != "/orders":
                self._answer(404, {"error": "not found"})
                return
            request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            request_id = uuid.uuid4().hex
            with lock:
                order_id = len(orders) + 1
                orders[order_id] = {"orderId": order_id, "petId": request.get("petId"), "status": verdict}
            self._answer(202, {"requestId": request_id, "status": "pending"})
            event = {"requestId": request_id, "orderId": order_id, "status": verdict}
            client.publish(TOPIC, json.dumps(event), qos=1).wait_for_publish(30)

        def do_GET(self) -> None:
            _, _, tail = self.path.rpartition("/")
            order = orders.get(int(tail)) if self.path.startswith("/orders/") and tail.isdigit() else None
            self._answer(200, order) if order else self._answer(404, {"error": "no such order"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), "rejected" if sys.argv[3:] == ["reject"] else "confirmed")
