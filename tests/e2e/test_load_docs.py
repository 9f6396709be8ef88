"""docs/load.md cannot rot: its locustfile runs as written under Locust's own command line, against a
local server for the document it names (only the server's URL is put in for localhost:8080)."""

from __future__ import annotations

import json
import re
import sys

import yaml

from tests.e2e.helpers import ROOT
from tests.e2e.loadkit import Counter, finish, start, stats_rows
from tests.servers.scripted import Recorded, ScriptedServer
from tests.timeouts import long_test

OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "shop", "version": "1"},
    "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    "security": [{"bearer": []}],
    "paths": {
        "/orders": {"post": {"operationId": "createOrder",
                             "requestBody": {"content": {"application/json": {}}},
                             "responses": {"201": {"description": "created"}}}},
        "/products": {"get": {"operationId": "listProducts", "responses": {"200": {"description": "ok"}}}},
        "/audit": {"get": {"operationId": "audit", "responses": {"200": {"description": "ok"}},
                           "parameters": [{"name": "since", "in": "query", "schema": {"type": "string"}}]}},
    },
}  # fmt: skip
STRING = {"type": "string"}
DOCUMENT = {
    "arazzo": "1.0.1",
    "info": {"title": "shop", "version": "1"},
    "sourceDescriptions": [{"name": "shop", "url": "./shop.openapi.yaml", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "checkout",
            "inputs": {"type": "object", "properties": {"currency": STRING, "customer": STRING}},
            "steps": [{"stepId": "createOrder", "operationId": "createOrder",
                       "requestBody": {"payload": {"currency": "$inputs.currency",
                                                   "customer": "$inputs.customer"}},
                       "successCriteria": [{"condition": "$statusCode == 201"}]}],
        },
        {
            "workflowId": "browse",
            "steps": [{"stepId": "products", "operationId": "listProducts",
                       "successCriteria": [{"condition": "$statusCode == 200"}]}],
        },
        {
            "workflowId": "audit",
            "inputs": {"type": "object", "properties": {"since": STRING}},
            "steps": [{"stepId": "check", "operationId": "audit",
                       "parameters": [{"name": "since", "in": "query", "value": "$inputs.since"}],
                       "successCriteria": [{"condition": "$statusCode == 200"}],
                       "outputs": {"clean": "$response.body#/clean"}}],
            "outputs": {"clean": "$steps.check.outputs.clean"},
        },
    ],
}  # fmt: skip


def _locustfile() -> str:
    text = ROOT.joinpath("docs/load.md").read_text(encoding="utf-8")
    section = text[text.index("## `ArazzoUser` in a locustfile") :]
    (code,) = re.findall(r"^```python\n(.*?)^```$", section.split("\n## ", 1)[0], re.S | re.M)
    return code


@long_test
def test_the_locustfile_of_docs_load_md_runs_as_written(tmp_path) -> None:
    (tmp_path / "shop.openapi.yaml").write_text(yaml.safe_dump(OPENAPI, sort_keys=False))
    (tmp_path / "shop.arazzo.yaml").write_text(yaml.safe_dump(DOCUMENT, sort_keys=False))
    (tmp_path / "customers.jsonl").write_text('{"customer": "ann"}\n{"customer": "bob"}\n')
    counter = Counter()
    bodies: list[dict] = []
    with ScriptedServer() as server:

        @server.route("POST", "/orders")
        def order(request: Recorded) -> tuple:
            counter.enter(request, "order")
            counter.leave()
            bodies.append(request.json())
            return 201, {}

        @server.route("GET", "/products")
        def products(request: Recorded) -> tuple:
            counter.enter(request, "products")
            counter.leave()
            return 200, []

        @server.route("GET", "/audit")
        def audit(request: Recorded) -> tuple:
            counter.enter(request, "audit")
            counter.leave()
            return 200, {"clean": request.query.get("since") == ["2026-01-01"]}

        code = _locustfile().replace("http://localhost:8080", server.url)
        (tmp_path / "shop_locust.py").write_text(code)
        argv = [sys.executable, "-m", "locust", "-f", tmp_path / "shop_locust.py", "--headless", "-u", 2,
                "-r", 2, "-t", "3s", "--csv", tmp_path / "stats", "--only-summary"]  # fmt: skip
        exit_code, out, err = finish(start(argv, env={"SHOP_TOKEN": "tok-docs-1"}))
    assert exit_code == 0, out + err
    rows = set(stats_rows(tmp_path / "stats")) - {"Aggregated"}
    shopper = {"checkout.createOrder", "workflow checkout", "browse.products", "workflow browse"}
    assert {"audit.check", "workflow audit"} <= rows <= shopper | {"audit.check", "workflow audit"}
    assert rows & shopper  # Shopper ran its weighted workflows (which ones: chance, 3 : 1)
    assert stats_rows(tmp_path / "stats")["Aggregated"]["Failure Count"] == "0"
    assert counter.tokens == {"Bearer tok-docs-1"}
    assert all(body["currency"] == "EUR" and body["customer"] in ("ann", "bob") for body in bodies)
    # Admin subclasses Shopper: its own task replaces the weighted workflows, it does not add to them
    probe = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('shop_locust', sys.argv[1])\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "tasks = {c: [t.__name__ for t in getattr(module, c).tasks] for c in ('Shopper', 'Admin')}\n"
        "print(json.dumps(tasks))\n"
    )
    listed = finish(
        start([sys.executable, "-c", probe, tmp_path / "shop_locust.py"], env={"SHOP_TOKEN": "x"})
    )
    assert json.loads(listed[1]) == {"Shopper": ["_run_chosen_workflow"], "Admin": ["audit"]}, listed
