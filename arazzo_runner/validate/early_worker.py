"""`arazzo validate` starts the XPath evaluation worker early when one of its documents will need it.

Checking an XPath criterion runs in the evaluation worker (`bounds/isolated.py`), a new interpreter that
imports elementpath: ~0.15 s of waiting, once per process, at the first such criterion. When the
documents of one invocation are known to need it, `isolated.prestart` starts that worker in the
background before the first document is validated, and the check finds it ready.

"Will need it" is decided cheaply and never guessed: a file is read (within the loader's size limit)
and only one that contains the letters `xpath` (any case) is loaded and walked; it needs the worker when
one of its criteria is an XPath condition that validation compiles: a known XPath version, a context
that parses and no `{$...}` in the condition (those are compiled when the run renders them). Those are
the conditions `rules/criteria.check_criterion` compiles under, with the same functions. Other XPath
(selectors, XML replacement targets) still starts the worker on first use, as before. No worker is
started for a `--schema-only` validation or when no document has such a criterion.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..errors import ArazzoError
from ..loader.limits import DEFAULT_LIMITS

_MENTIONS = re.compile(rb"xpath", re.IGNORECASE)


def needing_worker(files: Iterable[str], *, schema_only: bool = False) -> list[int]:
    """The indexes of `files` whose validation will ask the worker (none with `schema_only`)."""
    return [] if schema_only else [index for index, file in enumerate(files) if _needs_worker(file)]


def start_worker() -> None:
    from ..bounds import isolated

    isolated.prestart("xpath")


def checks_xpath(criterion: Any) -> bool:
    """Whether validating this Criterion Object compiles an XPath condition (so asks the worker)."""
    from ..criteria import condition_type  # (the selector engines they import: only for such a file)
    from ..criteria.contextual import embedded_expressions, parse_context

    try:
        kind, _ = condition_type(criterion.type)
        if kind != "xpath" or not isinstance(criterion.condition, str):
            return False
        parse_context(criterion.context, kind, criterion.condition)
        return embedded_expressions(criterion.condition) is None
    except ArazzoError:  # an invalid type, version, context or embedding: reported, never compiled
        return False


def _needs_worker(file: str) -> bool:
    if not _mentions_xpath(file):
        return False
    from ..loader import load_path
    from ..model import build_document
    from .checker import Checker
    from .walk import CriterionSite, sites

    try:
        loaded = load_path(file, positions=False)
        if not isinstance(loaded.data, dict):
            return False
        checker = Checker(loaded, build_document(loaded.data))
        return any(
            isinstance(site, CriterionSite) and checks_xpath(site.criterion) for site in sites(checker)
        )
    except ArazzoError:  # unreadable: its validation says so
        return False


def _mentions_xpath(file: str) -> bool:
    try:
        with open(file, "rb") as stream:
            text = stream.read(DEFAULT_LIMITS.max_bytes + 1)
    except OSError:
        return False
    return _MENTIONS.search(text) is not None
