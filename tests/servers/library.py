"""A lending library with state, served as `library.openapi.yaml` describes it: the real local server the
generated chains run against (`arazzo generate` tests).

    with LibraryServer() as server:
        ... arazzo run generated.arazzo.yaml --server library=server.url --auth libraryKey=KEY ...

Books are created with a fresh uuid and kept until deleted: a read, an update or a delete of an id the
server did not give answers 404, so a chain passes only when each step passes on the value the one
before it answered. Every request needs `X-Library-Key: KEY` (401 otherwise). `SEEDED` is a book that
exists from the start (its id is the uuid example inputs are made with).
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

from tests.servers.scripted import Recorded, ScriptedServer

DESCRIPTION = Path(__file__).with_name("library.openapi.yaml")
KEY = "lib-key-7d3c9a1e"
SEEDED = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
_FIELDS = ("title", "author", "year", "tags")


class LibraryServer(ScriptedServer):
    def __init__(self) -> None:
        super().__init__()
        self.books: dict[str, dict[str, Any]] = {
            SEEDED: {"id": SEEDED, "title": "Kindred", "author": "Octavia E. Butler", "status": "available"}
        }
        self.loans: dict[int, dict[str, Any]] = {}
        self._state = threading.Lock()
        routes = (
            ("GET", "/books", self._list),
            ("POST", "/books", self._create),
            ("GET", "/books/{bookId}", self._read),
            ("PATCH", "/books/{bookId}", self._update),
            ("DELETE", "/books/{bookId}", self._delete),
            ("POST", "/loans", self._lend),
            ("GET", "/loans/{loanId}", self._loan),
        )
        for method, path, handler in routes:
            self.route(method, path)(self._guarded(handler))

    def _guarded(self, handler: Any) -> Any:
        def answer(request: Recorded) -> tuple:
            if request.headers.get("x-library-key") != KEY:
                return 401, {"error": "X-Library-Key is missing or wrong"}
            with self._state:
                return handler(request)

        return answer

    def _list(self, request: Recorded) -> tuple:
        author = (request.query.get("author") or [None])[0]
        books = [b for b in self.books.values() if author is None or b.get("author") == author]
        return 200, {"data": books, "total": len(books)}

    def _create(self, request: Recorded) -> tuple:
        sent = _object(request)
        if sent is None or not sent.get("title") or not sent.get("author"):
            return 400, {"error": "title and author are required"}
        book = {"id": str(uuid.uuid4()), "status": "available", **{k: sent[k] for k in _FIELDS if k in sent}}
        self.books[book["id"]] = book
        return 201, book

    def _read(self, request: Recorded) -> tuple:
        book = self.books.get(request.params["bookId"])
        return (200, book) if book else (404, {"error": "no such book"})

    def _update(self, request: Recorded) -> tuple:
        book = self.books.get(request.params["bookId"])
        sent = _object(request)
        if book is None:
            return 404, {"error": "no such book"}
        if sent is None:
            return 400, {"error": "a JSON object is expected"}
        book.update({k: sent[k] for k in _FIELDS if k in sent})
        return 200, book

    def _delete(self, request: Recorded) -> tuple:
        if self.books.pop(request.params["bookId"], None) is None:
            return 404, {"error": "no such book"}
        return 204, b""

    def _lend(self, request: Recorded) -> tuple:
        sent = _object(request) or {}
        book = self.books.get(str(sent.get("bookId")))
        if book is None or not sent.get("member"):
            return 404, {"error": "no such book, or no member"}
        if book["status"] == "lent":
            return 409, {"error": "already lent"}
        book["status"] = "lent"
        loan = {
            "loanId": len(self.loans) + 1,
            "bookId": book["id"],
            "member": sent["member"],
            "due": "2026-10-01",
        }
        self.loans[loan["loanId"]] = loan
        return 201, loan

    def _loan(self, request: Recorded) -> tuple:
        text = request.params["loanId"]
        loan = self.loans.get(int(text)) if text.isdigit() else None
        return (200, loan) if loan else (404, {"error": "no such loan"})


def _object(request: Recorded) -> dict[str, Any] | None:
    try:
        sent = request.json()
    except ValueError:
        return None
    return sent if isinstance(sent, dict) else None
