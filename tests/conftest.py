"""Session-wide test settings."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_validation_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`arazzo run` remembers documents that validated clean; tests keep that out of the user's cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("ARAZZO_CACHE_DIR", str(tmp_path_factory.mktemp("arazzo-cache")))
    mp.delenv("ARAZZO_NO_CACHE", raising=False)
    yield
    mp.undo()
