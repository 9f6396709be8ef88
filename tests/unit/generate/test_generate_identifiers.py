"""Where `arazzo generate` finds the id a create answered (`generate/identifiers.py`): at the top, else
one level down in the member wrapping the resource; never in a member that holds something else."""

from __future__ import annotations

import pytest

from arazzo_runner.generate.identifiers import first_id_pointer, id_pointer

_S = {"type": "string"}


def _object(**properties):
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize(
    ("schema", "param", "collection", "pointer"),
    [
        (_object(id=_S, name=_S), "petId", "/pets", "/id"),
        (_object(id=_S, slug=_S), "slug", "/articles", "/slug"),  # named like the parameter, before `id`
        (_object(uuid=_S, articleId=_S), "key", "/articles", "/articleId"),  # `<noun>Id` before `uuid`
        (
            _object(article=_object(slug=_S, title=_S, author=_object(username=_S))),
            "slug",
            "/articles",
            "/article/slug",
        ),
        (_object(articles=_object(slug=_S)), "slug", "/articles", "/articles/slug"),  # plural wrapper
        (_object(data=_object(bookId=_S)), "bookId", "/books", "/data/bookId"),
        (_object(owner=_object(id=_S), order=_object(id=_S)), "orderId", "/orders", "/order/id"),
        (_object(meta=_object(id=_S), data=_object(bookId=_S)), "bookId", "/books", "/data/bookId"),
        (_object(user=_object(id=_S), pet=_object(petId=_S)), "petId", "/pets", "/pet/petId"),  # the name
        (_object(payload=_object(id=_S), status=_S), "id", "/things", "/payload/id"),  # the one object
        (_object(meta=_object(id=_S), links=_object(id=_S)), "thingId", "/things", None),  # not the thing's
        (_object(article=_object(body=_S)), "slug", "/articles", None),
        (_object(article=_object(slug=_object(x=_S))), "slug", "/articles", None),  # not a scalar
    ],
)
def test_id_pointer(schema, param, collection, pointer):
    assert id_pointer(schema, param, collection) == pointer


def test_the_first_listed_id_of_a_list_member():
    listing = _object(
        articles={"type": "array", "items": _object(slug=_S)}, articlesCount={"type": "integer"}
    )
    assert first_id_pointer(listing, "slug", "/articles") == "/articles/0/slug"
