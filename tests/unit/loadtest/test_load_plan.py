"""The plan every user of a load test shares: workflows and weights, rows, the inputs of a run, the
options of each user, and the checks made before the first user starts."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from arazzo_runner.errors import UsageError
from arazzo_runner.loadtest.plan import LoadPlan
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc

BROWSE = {
    "workflowId": "browse",
    "inputs": {"type": "object", "properties": {"limit": {"type": "integer", "default": 2}}},
    "steps": [{"stepId": "list", "operationId": "listPets"}],
}
ADOPT = {
    "workflowId": "adopt",
    "inputs": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]},
    "steps": [
        {"stepId": "create", "operationId": "createPet", "requestBody": {"payload": {"o": "$inputs.who"}}}
    ],
}


@pytest.fixture
def shop(tmp_path):
    (tmp_path / "pets.openapi.yaml").write_text(yaml.safe_dump(PETS_OPENAPI))
    path = tmp_path / "shop.arazzo.yaml"
    path.write_text(yaml.safe_dump(arazzo_doc(BROWSE, ADOPT)))
    return path


def test_weights_from_an_id_a_list_a_mapping_or_every_workflow(shop) -> None:
    assert LoadPlan.build(shop, "adopt").weights == {"adopt": 1}
    assert LoadPlan.build(shop, ["adopt", "browse"]).weights == {"adopt": 1, "browse": 1}
    assert LoadPlan.build(shop, {"browse": 3, "adopt": 0}).weights == {"browse": 3}
    assert LoadPlan.build(shop).weights == {"browse": 1, "adopt": 1}


@pytest.mark.parametrize(
    ("workflows", "message"),
    [
        ({"browse": -1}, "a weight is a whole number of 0 or more"),
        ({"browse": True}, "a weight is a whole number of 0 or more"),
        ({"browse": 0}, "give at least one workflow a weight above 0"),
        ("nope", "no workflow 'nope'"),
    ],
)
def test_bad_weights_and_ids_are_usage_errors(shop, workflows, message) -> None:
    with pytest.raises(UsageError, match=message):
        LoadPlan.build(shop, workflows)


def test_workflows_are_drawn_by_weight(shop) -> None:
    plan = LoadPlan.build(shop, {"browse": 3, "adopt": 1})
    rng = random.Random(16)
    drawn = [plan.choose(rng) for _ in range(4000)]
    assert 2.7 < drawn.count("browse") / drawn.count("adopt") < 3.3


def test_rows_cycle_from_a_start_and_merge_over_the_inputs(shop) -> None:
    plan = LoadPlan.build(shop, ["browse", "adopt"], inputs={"who": "base", "limit": 9},
                          rows=[{"who": "ann"}, {"who": "bob"}, {"who": "cyd"}])  # fmt: skip
    assert [plan.take_row(1) for _ in range(4)] == [1, 2, 0, 1]
    assert plan.inputs_for("adopt", 1) == {"who": "bob"}  # several workflows: each gets what it declares
    assert plan.inputs_for("browse", 1) == {"limit": 9}
    assert plan.inputs_for("adopt", None) == {"who": "base"}
    assert LoadPlan.build(shop, "browse").take_row() is None


def test_rows_from_a_json_lines_file_next_to_the_locustfile(shop, tmp_path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"who": "ann"}\n\n{"who": "bob"}\n')
    plan = LoadPlan.build("shop.arazzo.yaml", "adopt", inputs_file="rows.jsonl", base=tmp_path)
    assert plan.rows == [{"who": "ann"}, {"who": "bob"}]
    with pytest.raises(UsageError, match="give rows or inputs_file, not both"):
        LoadPlan.build(shop, "adopt", inputs_file="rows.jsonl", rows=[{}], base=tmp_path)


def test_check_names_the_row_that_a_run_would_refuse(shop) -> None:
    servers = {"pets": "http://127.0.0.1:9"}
    plan = LoadPlan.build(shop, "adopt", rows=[{"who": "ann"}, {"who": 7}], servers=servers)
    with pytest.raises(UsageError, match=r"\(row 2\)"):
        plan.check()
    with pytest.raises(UsageError, match=r"--inputs-file row 2, line 5"):
        plan.check(["", " (--inputs-file row 2, line 5)"])
    typo = LoadPlan.build(shop, "adopt", rows=[{"whom": "ann"}], servers=servers)
    with pytest.raises(UsageError, match="whom"):
        typo.check()
    LoadPlan.build(shop, "adopt", rows=[{"who": "ann"}], servers=servers).check()  # nothing to refuse


def test_every_user_gets_its_own_options_and_secret_set(shop) -> None:
    plan = LoadPlan.build(shop, "browse", auth={"bearer": "tok-1", "bearer.client_auth": "post"},
                          options={"timeout": 5.0, "max_steps": 7})  # fmt: skip
    first, second = plan.new_options(), plan.new_options(on_event=print)
    assert first.secrets == {"tok-1"} and first.secrets is not second.secrets
    assert (first.timeout, first.max_steps, second.on_event) == (5.0, 7, print)
    assert first.auth == {"bearer": "tok-1", "bearer.client_auth": "post"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"client": object()}, "'client' is set by each Locust user itself"),
        ({"timeuot": 1}, "no run option 'timeuot'"),
    ],
)
def test_options_are_run_options(shop, options, message) -> None:
    with pytest.raises(UsageError, match=message):
        LoadPlan.build(shop, "browse", options=options)


def test_locusts_host_is_the_server_of_the_one_source(shop, tmp_path) -> None:
    plan = LoadPlan.build(shop, "browse", host="http://staging:8080")
    assert plan.options["servers"] == {"pets": "http://staging:8080"}
    named = LoadPlan.build(shop, "browse", host="http://staging:8080", servers={"pets": "http://x:1"})
    assert named.options["servers"] == {"pets": "http://x:1"}
    sources = [{"name": name, "url": "./pets.openapi.yaml", "type": "openapi"} for name in ("pets", "more")]
    doc = arazzo_doc(BROWSE, sources=sources)
    (tmp_path / "two.arazzo.json").write_text(json.dumps(doc))
    with pytest.raises(UsageError, match=r"has 2 source descriptions \(pets, more\)"):
        LoadPlan.build(tmp_path / "two.arazzo.json", "browse", host="http://staging:8080")
