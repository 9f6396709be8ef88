"""A big body shown by its start (issue 43) is masked as if the whole body had been masked first, yet
only its start is scanned when that gives the same text (`http/bodies.py`); a failing step's excerpt
without a second parse is `tests/e2e/test_big_bodies.py`."""

from __future__ import annotations

import pytest

from arazzo_runner.http.bodies import _cut, render_body
from arazzo_runner.masking.secrets import Masker

SECRET = "s3cr3t-token-value"


def _reference(text: str, masker: Masker, limit: int) -> tuple[str, int]:
    """The whole text masked, then cut: what the start alone must give."""
    return _cut(masker.text(text), limit)


@pytest.mark.parametrize(
    "place",
    [
        0,  # at the start
        480,  # cut in two by the limit
        497,  # its first characters only before the cut
        520,  # just past the cut
        5_000,  # far past it
    ],
)
@pytest.mark.parametrize("form", [SECRET, f"https://user:{SECRET}@example.com/x"])
def test_a_big_body_shows_what_masking_it_whole_would_show(place, form):
    masker = Masker({SECRET})
    filler = '{"pad": "' + "y" * 100 + '"}, '
    text = (filler * 2_000)[:place] + form + filler * 2_000
    shown, omitted = _reference(text, masker, 500)
    for known_json in (False, True):
        body = render_body(text.encode(), "text/plain", masker, limit=500, known_json=known_json)
        assert body.text == shown
        assert SECRET[:4] not in body.text
        if place < 1_000:  # a secret past the start is counted as received, not as masked
            assert body.omitted == omitted


def test_a_url_password_that_starts_before_the_cut_is_masked_however_long():
    masker = Masker({SECRET})
    password = "p" * 3_000
    text = "z" * 400 + f" https://user:{password}@example.com/x " + "y" * 10_000
    body = render_body(text.encode(), "text/plain", masker, limit=500)
    assert "ppp" not in body.text
    assert body.text == _reference(text, masker, 500)[0]
