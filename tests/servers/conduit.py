"""The articles, comments and favorites of the RealWorld API ("Conduit"), served with state as
`conduit.openapi.yaml` describes them: the real local server the generated workflows of a description
whose resources are wrapped (`{"article": {"slug": ...}}`) run against (`arazzo generate` tests).

    with ConduitServer() as server:
        ... arazzo run conduit.arazzo.yaml --server conduit=server.url --auth Token=TOKEN ...

As RealWorld's servers do: an article's slug is made from its title (`-2`, `-3`... when taken) and
changes when an update changes the title; a read, an update or a delete of a slug the server does not
hold answers 404, and deleting an article deletes its comments. Every request needs
`Authorization: TOKEN` (401 otherwise). `SEEDED` is the article (with comment 1) that exists from the
start: the description's examples name it.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from tests.servers.scripted import Recorded, ScriptedServer

DESCRIPTION = Path(__file__).with_name("conduit.openapi.yaml")
TOKEN = "Token jwt.conduit-4b1e"
SEEDED = "did-you-train-your-dragon"
_TEXTS = ("title", "description", "body")
_AUTHOR = {"username": "jake", "bio": "I work at statefarm", "following": False}


class ConduitServer(ScriptedServer):
    def __init__(self) -> None:
        super().__init__()
        self.articles: dict[str, dict[str, Any]] = {}
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self._next_comment = 1
        self._state = threading.Lock()
        self._add({"title": "Did you train your dragon?", "description": "A sequel", "body": "Yes."})
        self.comments[SEEDED].append(self._comment("First!"))
        routes = (
            ("GET", "/api/articles", self._list),
            ("POST", "/api/articles", self._create),
            ("GET", "/api/articles/{slug}", self._read),
            ("PUT", "/api/articles/{slug}", self._update),
            ("DELETE", "/api/articles/{slug}", self._delete),
            ("GET", "/api/articles/{slug}/comments", self._comments),
            ("POST", "/api/articles/{slug}/comments", self._add_comment),
            ("DELETE", "/api/articles/{slug}/comments/{id}", self._delete_comment),
            ("POST", "/api/articles/{slug}/favorite", self._favorite),
            ("DELETE", "/api/articles/{slug}/favorite", self._unfavorite),
        )
        for method, path, handler in routes:
            self.route(method, path)(self._guarded(handler))

    @property
    def api(self) -> str:
        return f"{self.url}/api"

    def _guarded(self, handler: Any) -> Any:
        def answer(request: Recorded) -> tuple:
            if request.headers.get("authorization") != TOKEN:
                return 401, {"errors": {"body": ["missing or wrong token"]}}
            with self._state:
                article = self.articles.get(request.params.get("slug", ""))
                if "slug" in request.params and article is None:
                    return 404, {"errors": {"article": ["not found"]}}
                return handler(request, article)

        return answer

    def _add(self, fields: dict[str, Any]) -> dict[str, Any]:
        article = {
            "slug": self._slug(fields["title"]), **{k: fields[k] for k in _TEXTS},
            "tagList": list(fields.get("tagList") or ()), "favorited": False, "favoritesCount": 0,
            "author": _AUTHOR,
        }  # fmt: skip
        self.articles[article["slug"]] = article
        self.comments[article["slug"]] = []
        return article

    def _slug(self, title: str) -> str:
        base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "article"
        slug, count = base, 1
        while slug in self.articles:
            count += 1
            slug = f"{base}-{count}"
        return slug

    def _comment(self, body: str) -> dict[str, Any]:
        comment = {"id": self._next_comment, "body": body, "author": _AUTHOR}
        self._next_comment += 1
        return comment

    def _list(self, request: Recorded, _: Any) -> tuple:
        articles = list(reversed(self.articles.values()))
        return 200, {"articles": articles, "articlesCount": len(articles)}

    def _create(self, request: Recorded, _: Any) -> tuple:
        fields = _member(request, "article")
        if fields is None or not all(isinstance(fields.get(k), str) for k in _TEXTS):
            return 422, {"errors": {"article": ["title, description and body are required"]}}
        return 201, {"article": self._add(fields)}

    def _read(self, request: Recorded, article: dict[str, Any]) -> tuple:
        return 200, {"article": article}

    def _update(self, request: Recorded, article: dict[str, Any]) -> tuple:
        fields = _member(request, "article")
        if fields is None:
            return 422, {"errors": {"article": ["an article object is expected"]}}
        old = article["slug"]
        if isinstance(fields.get("title"), str) and fields["title"] != article["title"]:
            del self.articles[old]  # a new title, a new slug (as RealWorld's servers do)
            article["slug"] = self._slug(fields["title"])
            self.articles[article["slug"]] = article
            self.comments[article["slug"]] = self.comments.pop(old)
        article.update({k: fields[k] for k in _TEXTS if isinstance(fields.get(k), str)})
        return 200, {"article": article}

    def _delete(self, request: Recorded, article: dict[str, Any]) -> tuple:
        del self.articles[article["slug"]]
        del self.comments[article["slug"]]
        return 200, b""

    def _comments(self, request: Recorded, article: dict[str, Any]) -> tuple:
        return 200, {"comments": self.comments[article["slug"]]}

    def _add_comment(self, request: Recorded, article: dict[str, Any]) -> tuple:
        fields = _member(request, "comment")
        if fields is None or not isinstance(fields.get("body"), str):
            return 422, {"errors": {"comment": ["a body is required"]}}
        comment = self._comment(fields["body"])
        self.comments[article["slug"]].append(comment)
        return 200, {"comment": comment}

    def _delete_comment(self, request: Recorded, article: dict[str, Any]) -> tuple:
        comments = self.comments[article["slug"]]
        kept = [c for c in comments if str(c["id"]) != request.params["id"]]
        if len(kept) == len(comments):
            return 404, {"errors": {"comment": ["not found"]}}
        self.comments[article["slug"]] = kept
        return 200, b""

    def _favorite(self, request: Recorded, article: dict[str, Any]) -> tuple:
        if not article["favorited"]:
            article.update(favorited=True, favoritesCount=article["favoritesCount"] + 1)
        return 200, {"article": article}

    def _unfavorite(self, request: Recorded, article: dict[str, Any]) -> tuple:
        if article["favorited"]:
            article.update(favorited=False, favoritesCount=article["favoritesCount"] - 1)
        return 200, {"article": article}


def _member(request: Recorded, name: str) -> dict[str, Any] | None:
    try:
        sent = request.json()
    except ValueError:
        return None
    inner = sent.get(name) if isinstance(sent, dict) else None
    return inner if isinstance(inner, dict) else None
