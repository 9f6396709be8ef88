"""A property of steps as a graph (issue 36): for random dependency graphs, listed in a random array
order, a sequential run and a run with `--parallel N` give the same outputs and send the same requests,
and every request of a step arrives after the responses of the steps it depends on were sent.

Each step GETs /pets/<its id, then the ids its dependencies answered>, so a value read too early (or
not at all) changes a request and an output; the server stamps when each request arrived and when its
answer was written, on one monotonic clock."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arazzo_runner
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.servers.scripted import ScriptedServer


class _Stamps:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrived: dict[str, list[float]] = {}
        self.answered: dict[str, list[float]] = {}

    def clear(self) -> None:
        with self.lock:
            self.arrived.clear()
            self.answered.clear()


@pytest.fixture(scope="module")
def stamped(tmp_path_factory):
    stamps = _Stamps()
    with ScriptedServer() as server:

        @server.route("GET", "/pets/{petId}")
        def answer(request):
            pet_id = request.params["petId"]
            with stamps.lock:
                stamps.arrived.setdefault(pet_id, []).append(time.monotonic())
            time.sleep(0.001 * (hash(pet_id) % 3))  # answers in another order than they arrive
            with stamps.lock:
                stamps.answered.setdefault(pet_id, []).append(time.monotonic())
            return 200, {"id": pet_id}

        yield server, stamps, tmp_path_factory.mktemp("graphs")


@st.composite
def graphs(draw):
    """(steps in array order, as (stepId, [stepIds it reads], [stepIds it lists in dependsOn]))."""
    count = draw(st.integers(1, 7))
    names = [f"s{i}" for i in range(count)]  # a topological order: each may depend on earlier ones
    needs = []
    for i in range(count):
        earlier = names[:i]
        reads = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=3)) if earlier else []
        listed = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=2)) if earlier else []
        needs.append((names[i], reads, listed))
    return draw(st.permutations(needs))  # listed in any order: the run orders them


def _document(steps) -> dict:
    built = []
    for step_id, reads, listed in steps:
        value = step_id + "".join(f"-{{$steps.{r}.outputs.id}}" for r in reads)
        step = {
            "stepId": step_id,
            "operationId": "getPet",
            "parameters": [{"name": "petId", "in": "path", "value": value}],
            "successCriteria": [{"condition": "$statusCode == 200"}],
            "outputs": {"id": "$response.body#/id"},
        }
        if listed:
            step["dependsOn"] = listed
        built.append(step)
    outputs = {step_id: f"$steps.{step_id}.outputs.id" for step_id, _, _ in steps}
    return arazzo_doc({"workflowId": "w", "steps": built, "outputs": outputs}, version="1.1.0")


def _run(path, server, stamps, parallel: int):
    stamps.clear()
    result = arazzo_runner.run(path, servers={"pets": server.url}, parallel=parallel)
    with stamps.lock:
        return (
            result,
            {k: list(v) for k, v in stamps.arrived.items()},
            {k: list(v) for k, v in stamps.answered.items()},
        )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=graphs(), parallel=st.integers(2, 5))
def test_sequential_and_parallel_runs_agree_and_respect_every_dependency(stamped, steps, parallel):
    import yaml

    server, stamps, folder = stamped
    (folder / "pets.openapi.yaml").write_text(yaml.safe_dump(PETS_OPENAPI))
    path = folder / "graph.arazzo.yaml"
    path.write_text(yaml.safe_dump(_document(steps), sort_keys=False))

    one, one_arrived, _ = _run(path, server, stamps, 1)
    many, arrived, answered = _run(path, server, stamps, parallel)

    assert one.ok and many.ok, (one.to_dict(), many.to_dict())
    assert many.workflows[0].outputs == one.workflows[0].outputs
    assert sorted(arrived) == sorted(one_arrived)  # the same requests (each path once)
    assert all(len(times) == 1 for times in arrived.values())
    assert [s.step_id for s in many.workflows[0].steps] == [s.step_id for s in one.workflows[0].steps]
    sent = {s.step_id: s.outputs["id"] for s in many.workflows[0].steps}  # the path each step sent
    for step_id, reads, listed in steps:
        for needed in {*reads, *listed}:
            assert answered[sent[needed]][0] < arrived[sent[step_id]][0], (step_id, needed)
