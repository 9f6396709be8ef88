"""Masking text that arrives in pieces (a model's answer as it streams): `MaskingStream`.

`Masker.text` masks a whole text. A streamed text cannot wait to be whole, and cannot be masked piece
by piece either: a secret split across two pieces (`tok-3f9a` then `7c1e5b2d`) is in neither. So the
stream holds text back until no secret can be in it:

- the end of what arrived is held from the first position where it begins one of the secrets' forms
  (`Masker`'s forms: the secret and each encoding of it, `MIN_LENGTH` characters or more) without
  being the whole form: at most the longest form's length minus one. Released, it could be completed
  by the next piece into a secret whose first part is already on the screen;
- a cut never falls inside a form the held text holds whole (forms overlap: `abab` in `ababab`), so
  each form is masked where it lies whole, and a secret that arrived over several pieces shows as one
  `***`, as `Masker.text` shows it in the whole text;
- from a URL's `scheme://` on, text is held until a character ends the URL's userinfo (white space or
  one of `/?#"'<>`): a password written in a URL (`https://user:PASSWORD@host`) is masked by its
  place, which only the `@` after it tells; so is a last word that the next piece may turn into a
  scheme (`https` before `://`): a word's delay, so that a URL is masked whole.

What is released is masked by `Masker.text`; `flush` (the end of the answer) releases the rest. The
concatenation of everything released is the whole text as `Masker.text` masks it. The secrets are read
at each piece: a secret the run learns mid-answer is held back from then on.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .secrets import Masker

# a URL's userinfo runs to the first of these (`secrets._USERINFO`)
_USERINFO_END = re.compile(r"[\s/?#\"'<>]")
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")


class MaskingStream:
    """Feed pieces of one text with `feed`; each call returns the part now safe to show (masked, maybe
    empty); `flush` returns the rest. `emit`, when given, is also called with each non-empty part."""

    def __init__(self, masker: Masker, emit: Callable[[str], None] | None = None) -> None:
        self._masker = masker
        self._emit = emit
        self._pending = ""
        self._forms: list[str] | None = None
        self._by_first: dict[str, list[str]] = {}

    @property
    def held(self) -> str:
        """The text not released yet (unmasked: never show it)."""
        return self._pending

    def feed(self, piece: str) -> str:
        if not piece:
            return ""
        self._pending += piece
        if not self._masker.enabled:
            return self._release(len(self._pending), mask=False)
        return self._release(self._safe_end())

    def flush(self) -> str:
        """The end of the text: everything held, masked."""
        return self._release(len(self._pending), mask=self._masker.enabled)

    def _release(self, end: int, mask: bool = True) -> str:
        if end <= 0:
            return ""
        part, self._pending = self._pending[:end], self._pending[end:]
        shown = self._masker.text(part) if mask else part
        if shown and self._emit is not None:
            self._emit(shown)
        return shown

    def _safe_end(self) -> int:
        """Where the text may be cut: before every form's unfinished start, never inside a whole form,
        never inside a URL whose userinfo is not ended yet. Only the last `longest - 1` characters can
        begin an unfinished form, and only forms starting with the character at a position are tried
        there (a run has a few forms per secret, dozens of secrets)."""
        text, size = self._pending, len(self._pending)
        end = min(size, _open_url(text))
        by_first, longest = self._index()
        if not by_first:
            return end
        for at in range(max(0, size - longest + 1), end):
            if any(size - at < len(f) and f.startswith(text[at:]) for f in by_first.get(text[at], ())):
                end = at
                break
        moved = True
        while moved and end > 0:  # a cut inside a whole form moves to its start
            moved = False
            for at in range(max(0, end - longest + 1), end):
                if any(at + len(f) > end and text.startswith(f, at) for f in by_first.get(text[at], ())):
                    end, moved = at, True
                    break
        return end

    def _index(self) -> tuple[dict[str, list[str]], int]:
        """The masker's forms by their first character, and the longest one's length; built again
        when the run's secrets changed."""
        forms = self._masker._masked_forms()  # the masking package's own forms, read live
        if forms is not self._forms:
            self._forms = forms
            self._by_first = {}
            for form in forms:
                self._by_first.setdefault(form[0], []).append(form)
        return self._by_first, len(forms[0]) if forms else 0


def _open_url(text: str) -> int:
    """The start of a URL whose userinfo may still be running at the end of `text`: the last `://` with
    no white space or `/?#"'<>` after it, or a scheme the next piece may end with `://` (a trailing run
    of scheme characters, maybe with `:` or `:/`); `len(text)` when there is none."""
    at = text.rfind("://")
    if at != -1 and not _USERINFO_END.search(text, at + 3):
        return _scheme_start(text, at)
    tail = len(text)
    for ending in (":/", ":"):
        if text.endswith(ending):
            tail -= len(ending)
            break
    start = _scheme_start(text, tail)
    return start if start < tail else len(text)


def _scheme_start(text: str, end: int) -> int:
    """The start of the run of scheme characters (`[A-Za-z0-9+.-]`) that ends at `end`."""
    start = end
    while start > 0 and (text[start - 1] in _SCHEME_CHARS):
        start -= 1
    return start
