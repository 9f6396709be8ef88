import os

from locust import between, task

from arazzo_runner.locust import ArazzoUser


class Shopper(ArazzoUser):
    document = "shop.arazzo.yaml"  # relative to this locustfile (or a loaded Workspace)
    workflows = {"checkout": 3, "browse": 1}  # weights; a str or a list for equal ones; None: all
    inputs = {"currency": "EUR"}
    inputs_file = "customers.jsonl"  # or rows = [{...}, ...]; rows_per = "iteration"
    servers = {"shop": "http://127.0.0.1:8090"}  # or Locust's --host for a document with one source
    auth = {"bearer": os.environ["SHOP_TOKEN"]}
    options = {"timeout": 10, "contract": "warn"}  # any other RunOptions field
    wait_time = between(0.5, 2)


class Admin(Shopper):  # the same document and settings, a task of its own instead of the weights
    @task
    def audit(self):
        result = self.run_workflow("audit", {"since": "2026-01-01"})  # events fired; a WorkflowResult
        if result is not None and not result.outputs.get("clean"):
            ...
