"""docs/load.md cannot rot: its locustfile is examples/shop/locustfile.py, which runs as written under
Locust's own command line with the example shop's document and customers, against a local server that
records what it answers (only the server's URL is put in for 127.0.0.1:8090)."""

from __future__ import annotations

import json
import re
import shutil
import sys

from tests.e2e.helpers import ROOT
from tests.e2e.loadkit import Counter, finish, start, stats_rows
from tests.servers.scripted import Recorded, ScriptedServer
from tests.timeouts import long_test

SHOP = ROOT / "examples" / "shop"


def _locustfile() -> str:
    text = ROOT.joinpath("docs/load.md").read_text(encoding="utf-8")
    section = text[text.index("## `ArazzoUser` in a locustfile") :]
    (code,) = re.findall(r"^```python\n(.*?)^```$", section.split("\n## ", 1)[0], re.S | re.M)
    assert code == (SHOP / "locustfile.py").read_text(encoding="utf-8"), "the page shows the example's file"
    return code


@long_test
def test_the_locustfile_of_docs_load_md_runs_as_written(tmp_path) -> None:
    for name in ("shop.openapi.yaml", "shop.arazzo.yaml", "customers.jsonl"):
        shutil.copy(SHOP / name, tmp_path / name)
    customers = [json.loads(line)["customer"] for line in (SHOP / "customers.jsonl").read_text().splitlines()]
    counter = Counter()
    bodies: list[dict] = []
    with ScriptedServer() as server:

        @server.route("POST", "/orders")
        def order(request: Recorded) -> tuple:
            counter.enter(request, "order")
            counter.leave()
            bodies.append(request.json())
            return 201, {"orderId": f"o{len(bodies)}"}

        @server.route("GET", "/orders/{id}")
        def read(request: Recorded) -> tuple:
            counter.enter(request, "read")
            counter.leave()
            return 200, {"orderId": request.params["id"], "status": "placed", "total": 4.5}

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

        code = _locustfile().replace("http://127.0.0.1:8090", server.url)
        (tmp_path / "shop_locust.py").write_text(code)
        argv = [sys.executable, "-m", "locust", "-f", tmp_path / "shop_locust.py", "--headless", "-u", 2,
                "-r", 2, "-t", "3s", "--csv", tmp_path / "stats", "--only-summary"]  # fmt: skip
        exit_code, out, err = finish(start(argv, env={"SHOP_TOKEN": "tok-docs-1"}))
    assert exit_code == 0, out + err
    rows = set(stats_rows(tmp_path / "stats")) - {"Aggregated"}
    shopper = {"checkout.createOrder", "checkout.getOrder", "workflow checkout", "browse.products",
               "workflow browse"}  # fmt: skip
    assert {"audit.check", "workflow audit"} <= rows <= shopper | {"audit.check", "workflow audit"}
    assert rows & shopper  # Shopper ran its weighted workflows (which ones: chance, 3 : 1)
    assert stats_rows(tmp_path / "stats")["Aggregated"]["Failure Count"] == "0"
    assert counter.tokens - {""} == {"Bearer tok-docs-1"}  # reading an order and the products: no token
    assert all(body["currency"] in ("EUR", "GBP", "USD") and body["customer"] in customers for body in bodies)
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
