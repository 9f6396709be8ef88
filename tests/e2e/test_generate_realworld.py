"""`arazzo generate` on a description shaped like the RealWorld API (`tests/servers/conduit.openapi.yaml`),
run against a real local server with its state (`tests/servers/conduit.py`): the created article's slug
is one level down (`{"article": {"slug": ...}}`) and changes with its title, and the workflows of single
operations share the example article, so a delete run before the others would fail them."""

from __future__ import annotations

import shlex

import pytest

from tests.e2e.generatekit import data, generate, inputs_for, statuses, workflow
from tests.e2e.helpers import cli
from tests.servers.conduit import DESCRIPTION, SEEDED, TOKEN, ConduitServer


@pytest.fixture
def conduit(capsys, tmp_path):
    made, document, inputs = generate(capsys, tmp_path, DESCRIPTION)
    assert made.code == 0, made.err
    return made, document, inputs, tmp_path


def _run(capsys, server, *argv):
    """`arazzo run ARGV --format json` against the server (its API under `/api`, as RealWorld's)."""
    return cli(capsys, "run", *argv, "--format", "json", "--server", f"conduit={server.api}")


def _calls(server):
    return [(r.method, r.path.removeprefix("/api")) for r in server.requests]


def test_create_then_read_update_delete_finds_the_slug_one_level_down(capsys, conduit):
    """POST /articles answers `{"article": {"slug": ...}}`: the chain reads `/article/slug`; the update
    gives the article a new title, hence a new slug, which the delete takes from the update's answer."""
    _, document, inputs, folder = conduit
    chain = workflow(document, "articles-lifecycle")
    steps = {s["stepId"]: s for s in chain["steps"]}
    assert list(steps) == ["CreateArticle", "GetArticle", "UpdateArticle", "DeleteArticle"]
    assert steps["CreateArticle"]["outputs"]["slug"] == "$response.body#/article/slug"
    assert steps["GetArticle"]["parameters"] == [
        {"name": "slug", "in": "path", "value": "$steps.CreateArticle.outputs.slug"}
    ]
    assert steps["UpdateArticle"]["parameters"][0]["value"] == "$steps.CreateArticle.outputs.slug"
    assert steps["UpdateArticle"]["outputs"]["slug"] == "$response.body#/article/slug"
    assert steps["DeleteArticle"]["parameters"][0]["value"] == "$steps.UpdateArticle.outputs.slug"
    own = inputs_for(document, inputs, ["articles-lifecycle"], folder)
    with ConduitServer() as server:
        result = _run(capsys, server, document, "-w", "articles-lifecycle", "--inputs", own,
                      "--auth", f"Token={TOKEN}")  # fmt: skip
    assert result.code == 0, result.out[-2000:]
    assert _calls(server) == [
        ("POST", "/articles"),
        ("GET", "/articles/how-to-train-your-dragon"),
        ("PUT", "/articles/how-to-train-your-dragon"),
        ("DELETE", "/articles/did-you-train-your-dragon-2"),  # the slug the new title gave it
    ]
    assert list(server.articles) == [SEEDED]  # created, renamed, really deleted
    assert result.json["workflows"][0]["outputs"]["slug"] == "how-to-train-your-dragon"


def test_the_whole_document_runs_as_hinted_with_the_destructive_operations_last(capsys, conduit):
    """Run as the "run them:" hint says (the token for VALUE): every workflow passes, because the deletes
    of the example article, of its comment and of its favorite come after everything that reads them,
    the comment (a child) and the favorite before the article."""
    made, document, _, _ = conduit
    ids = [w["workflowId"] for w in data(document)["workflows"]]
    assert ids == [
        "GetArticles", "CreateArticle", "GetArticle", "UpdateArticle", "GetArticleComments",
        "CreateArticleComment", "CreateArticleFavorite", "articles-lifecycle", "articles-list-then-get",
        "DeleteArticleComment", "DeleteArticleFavorite", "DeleteArticle",
    ]  # fmt: skip
    (hint,) = [line for line in made.err.splitlines() if "; run them: " in line]
    words = shlex.split(hint.split("; run them: ", 1)[1])[2:]
    assert words[-2:] == ["--auth", "Token=VALUE"]
    argv = [f"Token={TOKEN}" if word == "Token=VALUE" else word for word in words]
    with ConduitServer() as server:
        result = _run(capsys, server, *argv)
    assert result.code == 0, result.out[-3000:]
    assert list(statuses(result)) == ids and set(statuses(result).values()) == {"passed"}
    assert _calls(server)[-3:] == [
        ("DELETE", f"/articles/{SEEDED}/comments/1"),
        ("DELETE", f"/articles/{SEEDED}/favorite"),
        ("DELETE", f"/articles/{SEEDED}"),
    ]
    assert SEEDED not in server.articles
