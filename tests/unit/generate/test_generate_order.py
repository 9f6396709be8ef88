"""Which operations `arazzo generate` writes last (`generate/order.py`): those that remove or end
something, children before parents, the session's end last of all; safe methods never."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arazzo_runner.generate.order import destructive_rank, last_ones


def _plan(method: str, path: str, operation_id: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(method=method, path=path, operation=SimpleNamespace(operation_id=operation_id))


@pytest.mark.parametrize(
    ("method", "path", "operation_id", "rank"),
    [
        ("delete", "/pets/{petId}", "deletePet", 1),
        ("delete", "/pets/{petId}", None, 1),
        ("post", "/orders/{orderId}/cancel", None, 1),  # the last fixed segment
        ("post", "/orders/{orderId}", "cancelOrder", 1),  # the operationId's verb
        ("put", "/keys/{key}", "revoke_key", 1),
        ("post", "/users/{id}", "DeactivateUser", 1),
        ("post", "/user/logout", None, 2),
        ("post", "/session", "logOut", 2),
        ("post", "/session", "sign-out", 2),
        ("get", "/pets/delete", "deleteAllPetsPreview", 0),  # GET is safe, whatever its name
        ("post", "/pets", "addPet", 0),
        ("get", "/options", "dropdownOptions", 0),  # "dropdown" is not "drop"
        ("post", "/logs", "logEntry", 0),  # "log" alone ends nothing
        ("patch", "/pets/{petId}", "updatePet", 0),
    ],
)
def test_destructive_rank(method, path, operation_id, rank):
    assert destructive_rank(_plan(method, path, operation_id)) == rank


def test_the_ordinary_keep_their_order_the_destructive_children_first_the_session_last():
    plans = [
        _plan("post", "/logout", "logout"),
        _plan("delete", "/articles/{slug}"),
        _plan("get", "/articles"),
        _plan("delete", "/articles/{slug}/comments/{id}"),
        _plan("post", "/articles"),
        _plan("delete", "/tags/{tag}"),
        _plan("delete", "/articles/{slug}/favorite"),
    ]
    ordinary, last = last_ones(plans)
    assert [(p.method, p.path) for p in ordinary] == [("get", "/articles"), ("post", "/articles")]
    assert [(p.method, p.path) for p in last] == [
        ("delete", "/articles/{slug}/comments/{id}"),
        ("delete", "/articles/{slug}/favorite"),
        ("delete", "/articles/{slug}"),
        ("delete", "/tags/{tag}"),  # the same depth: the description's order
        ("post", "/logout"),
    ]
