"""The example APIs of examples/, served on this machine (standard library only), to run the example
documents against:

    python examples/serve.py petstore            # http://127.0.0.1:8080 (examples/petstore/)
    python examples/serve.py shop                # http://127.0.0.1:8090 (examples/shop/)
    python examples/serve.py shop --port 0       # any free port; the first line printed gives the URL
    python examples/serve.py petstore --delay 2  # every answer 2 s late (try Ctrl-C on a run)

The first line printed names the URL (`Example petstore API at http://127.0.0.1:8080 (Ctrl-C to
stop)`); Ctrl-C stops it. State is kept in memory, per process: a new server starts with the same pets
and no orders. The test suite starts it the same way, on a free port.

petstore: `GET /pets?status=&limit=`, `GET /pets/{id}`, `POST /pets/{id}/adoption` (a JSON body with
`adopter`; needs any `X-API-Key` or a bearer token from `POST /oauth/token`, client credentials: any
client id and secret), answering 201, or 409 when the pet is not available.
shop: `GET /products`, `POST /orders` and `GET /audit?since=` (both need any bearer token),
`GET /orders/{id}`.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

DEFAULT_PORTS = {"petstore": 8080, "shop": 8090}
PETS = [
    {"id": 1, "name": "Rex", "species": "dog", "status": "available"},
    {"id": 2, "name": "Tom", "species": "cat", "status": "pending"},
    {"id": 3, "name": "Bubbles", "species": "fish", "status": "available"},
    {"id": 4, "name": "Polly", "species": "parrot", "status": "adopted"},
    {"id": 7, "name": "Nala", "species": "cat", "status": "available"},
]
PRODUCTS = [
    {"sku": "tea", "name": "Green tea", "price": 4.5},
    {"sku": "coffee", "name": "Coffee beans", "price": 9.0},
    {"sku": "cocoa", "name": "Cocoa", "price": 6.25},
]
Answer = tuple[int, Any]


class Petstore:
    def __init__(self) -> None:
        self.pets = {pet["id"]: dict(pet) for pet in PETS}
        self.tokens: set[str] = set()

    def answer(self, method: str, path: list[str], query: dict, headers: Any, body: bytes) -> Answer:
        if method == "POST" and path == ["oauth", "token"]:
            return self.token(headers, body)
        if path[:1] != ["pets"]:
            return 404, {"code": 404, "message": f"no such path /{'/'.join(path)}"}
        if method == "GET" and len(path) == 1:
            status, limit = query.get("status", [None])[0], int(query.get("limit", ["20"])[0])
            found = [p for p in self.pets.values() if status in (None, p["status"])]
            return 200, found[:limit]
        pet = self.pets.get(int(path[1])) if len(path) > 1 and path[1].isdigit() else None
        if pet is None:
            return 404, {"code": 404, "message": f"no pet {path[1] if len(path) > 1 else ''}".strip()}
        if method == "GET" and len(path) == 2:
            return 200, pet
        if method == "POST" and path[2:] == ["adoption"]:
            return self.adopt(pet, headers, body)
        return 405, {"code": 405, "message": f"{method} is not allowed here"}

    def token(self, headers: Any, body: bytes) -> Answer:
        form = parse_qs(body.decode("utf-8", "replace"))
        basic = headers.get("Authorization", "").startswith("Basic ")
        if form.get("grant_type") != ["client_credentials"] or not (basic or form.get("client_id")):
            return 400, {"error": "invalid_request"}
        token = "tok-" + uuid.uuid4().hex
        self.tokens.add(token)
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}

    def adopt(self, pet: dict, headers: Any, body: bytes) -> Answer:
        bearer = headers.get("Authorization", "").removeprefix("Bearer ")
        if not headers.get("X-API-Key") and bearer not in self.tokens:
            return 401, {"code": 401, "message": "an X-API-Key or a bearer token from /oauth/token is needed"}
        adopter = _json(body).get("adopter")
        if not isinstance(adopter, str) or not adopter:
            return 400, {"code": 400, "message": "adopter: a name is required"}
        if pet["status"] != "available":
            return 409, {"code": 409, "message": f"{pet['name']} is {pet['status']}"}
        pet["status"] = "adopted"
        return 201, {"adoptionId": uuid.uuid4().hex[:12], "petId": pet["id"], "adopter": adopter}


class Shop:
    def __init__(self) -> None:
        self.orders: dict[str, dict] = {}
        self.lock = threading.Lock()

    def answer(self, method: str, path: list[str], query: dict, headers: Any, body: bytes) -> Answer:
        if method == "GET" and path == ["products"]:
            return 200, PRODUCTS
        if method == "POST" and path == ["orders"]:
            return self.order(headers, body)
        if method == "GET" and len(path) == 2 and path[0] == "orders":
            order = self.orders.get(path[1])
            return (200, order) if order else (404, {"message": f"no order {path[1]}"})
        if method == "GET" and path == ["audit"]:
            if not _bearer(headers):
                return 401, {"message": "a bearer token is needed"}
            since = query.get("since", [""])[0]
            with self.lock:
                count = len(self.orders)
            return 200, {"since": since, "orders": count, "clean": True}
        return 404, {"message": f"no such path /{'/'.join(path)}"}

    def order(self, headers: Any, body: bytes) -> Answer:
        if not _bearer(headers):
            return 401, {"message": "a bearer token is needed"}
        request = _json(body)
        product = next((p for p in PRODUCTS if p["sku"] == request.get("sku")), None)
        quantity = request.get("quantity", 1)
        if not request.get("customer") or product is None or not isinstance(quantity, int) or quantity < 1:
            return 400, {"message": "an order needs a customer, a known sku and a quantity of 1 or more"}
        order = {
            "orderId": uuid.uuid4().hex[:12],
            "customer": request["customer"],
            "sku": product["sku"],
            "quantity": quantity,
            "total": round(product["price"] * quantity, 2),
            "currency": request.get("currency", "EUR"),
            "status": "placed",
        }
        with self.lock:
            self.orders[order["orderId"]] = order
        return 201, order


def _bearer(headers: Any) -> str:
    authorization = headers.get("Authorization", "")
    return authorization.removeprefix("Bearer ").strip() if authorization.startswith("Bearer ") else ""


def _json(body: bytes) -> dict:
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def make_server(api: str, host: str = "127.0.0.1", port: int = 0, delay: float = 0.0) -> ThreadingHTTPServer:
    """The example API `api` ("petstore" or "shop") bound to host:port (0: a free one), not yet serving."""
    app = {"petstore": Petstore, "shop": Shop}[api]()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart

        def log_message(self, *args: object) -> None:
            """Quiet: the terminal is the workflow's."""

        def _serve(self) -> None:
            url = urlsplit(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if delay:
                time.sleep(delay)
            path = [part for part in url.path.split("/") if part]
            with lock:
                status, data = app.answer(self.command, path, parse_qs(url.query), self.headers, body)
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _serve

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve an example API of examples/.")
    parser.add_argument("api", choices=sorted(DEFAULT_PORTS))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, help="default: petstore 8080, shop 8090; 0: a free port")
    parser.add_argument("--delay", type=float, default=0.0, metavar="SECONDS", help="answer this late")
    args = parser.parse_args(argv)
    port = DEFAULT_PORTS[args.api] if args.port is None else args.port
    server = make_server(args.api, args.host, port, args.delay)
    bound_host, bound_port = server.server_address[:2]
    try:  # Ctrl-C from the moment it says where it listens
        print(f"Example {args.api} API at http://{bound_host}:{bound_port} (Ctrl-C to stop)", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
