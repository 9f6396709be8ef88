"""Which workflows a finding's place belongs to (`validate/admission._Owners`): its own workflow; the
workflows using the component it is in, directly or through other components (a `$components.<kind>.
<name>` anywhere in them, lists included); every workflow for any other place (None)."""

from __future__ import annotations

from types import SimpleNamespace

from arazzo_runner.validate.admission import _Owners

USES_OUTER = [{"reference": "$components.failureActions.outer"}]
OUTER = {"name": "outer", "type": "retry", "criteria": [{"condition": "$components.inputs.inner-one"}]}
RAW = {
    "workflows": [
        {"workflowId": "a", "steps": [{"stepId": "s", "onFailure": USES_OUTER}]},
        {"workflowId": "b", "steps": [{"stepId": "t"}]},
    ],
    "components": {
        "failureActions": {"outer": OUTER},
        "inputs": {"inner-one": {"type": "object"}, "unused": {"type": "string"}},
    },
}


def owners() -> _Owners:
    workflows = [
        SimpleNamespace(at=("workflows", i), workflow_id=w["workflowId"])
        for i, w in enumerate(RAW["workflows"])
    ]
    return _Owners(SimpleNamespace(document=SimpleNamespace(raw=RAW, workflows=workflows)))


def test_a_component_belongs_to_the_workflows_using_it_directly_or_through_another() -> None:
    found = owners()
    assert found.of("/components/failureActions/outer/criteria/0/condition") == {"a"}
    assert found.of("/components/failureActions/outer") == {"a"}  # the component itself
    assert found.of("/components/inputs/inner-one/type") == {"a"}  # used by `outer` only
    assert found.of("/components/inputs/unused") == set()


def test_a_workflow_owns_its_places_and_any_other_place_is_everyones() -> None:
    found = owners()
    assert found.of("/workflows/1/steps/0") == {"b"} and found.of("/workflows/1") == {"b"}
    assert found.of("/workflows/7/steps") == set()  # no such workflow
    assert found.of("/sourceDescriptions/0/url") is None and found.of("") is None
