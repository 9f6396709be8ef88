"""Tool names from workflowIds: valid for every API, collisions resolved in order, every rename said."""

from __future__ import annotations

import pytest

from arazzo_runner.agents.tools.names import VALID, assign_names, base_name


@pytest.mark.parametrize(
    ("workflow_id", "expected"),
    [
        ("get-pet", "get-pet"),
        ("get_pet_2", "get_pet_2"),
        ("buy pet.now", "buy_pet_now"),
        ("créer/un animal", "cr_er_un_animal"),
        ("...", "workflow"),
        ("a" * 70, "a" * 64),
        ("$x$" + "b" * 70, "x_" + "b" * 62),
    ],
)
def test_a_workflow_id_becomes_a_valid_name(workflow_id, expected):
    assert base_name(workflow_id) == expected
    assert VALID.fullmatch(base_name(workflow_id))


def test_collisions_are_resolved_in_order_and_reported():
    names, notes = assign_names(
        [("a.yaml", "get-pet"), ("b.yaml", "get-pet"), ("b.yaml", "get pet"), ("c.yaml", "get-pet_2")]
    )
    # `get-pet_2` is some workflow's own name: a suffix never takes it
    assert names == ["get-pet", "get-pet_3", "get_pet", "get-pet_2"]
    assert notes == [
        "workflow 'get-pet' of b.yaml is the tool 'get-pet_3' ('get-pet' is the tool of workflow 'get-pet' "
        "of a.yaml)",
        "workflow 'get pet' of b.yaml is the tool 'get_pet' (not a valid tool name)",
    ]
    assert assign_names([("a", "x"), ("b", "x")]) == assign_names([("a", "x"), ("b", "x")])


def test_a_suffix_fits_in_64_characters():
    long = "w" * 64
    names, _ = assign_names([("a", long), ("b", long), ("c", long)])
    assert names == [long, "w" * 62 + "_2", "w" * 62 + "_3"]
    assert all(len(name) <= 64 for name in names)


def test_a_sanitised_name_that_collides_says_both_reasons():
    _, notes = assign_names([("a", "a_b"), ("b", "a b")])
    assert notes == [
        "workflow 'a b' of b is the tool 'a_b_2' (not a valid tool name; "
        "'a_b' is the tool of workflow 'a_b' of a)"
    ]
