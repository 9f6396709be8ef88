"""The pytest plugin's offline runs: every request of a collected workflow answered from a HAR file
(`arazzo run --replay-http`'s rule, `http/har_replay.py`), so a suite runs in CI with no API up.

The file is `--arazzo-http-replay FILE` (relative to where pytest started), else the ini option
`arazzo_http_replay` (relative to the ini file); the fixture `arazzo_http_replay` gives it to each
workflow's run, and a conftest.py may override it (`request.node.workflow_id` tells which workflow
asks; None: that workflow goes to the network). A run answers from the file's first entry on, whatever
ran before it: tests keep their meaning in any order and alone (`-k`). A request the file does not hold
fails its test with the closest entry and the first difference.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

OPENED = pytest.StashKey[dict[str, Any]]()  # a HAR file read once per session, by path


def add_options(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--arazzo-http-replay",
        metavar="FILE",
        help="answer every request of the workflows from this HAR file (`arazzo run --record-http`'s, a "
        "browser's, Playwright's): nothing is sent",
    )
    parser.addini("arazzo_http_replay", "a HAR file answering every request of the workflows (offline)")


def replay_for(config: pytest.Config, given: Any) -> Any:
    """The `HttpReplay` a run answers from (None: the network): the fixture's path read once per
    session, each run given the entries afresh. A file that is not a HAR fails the test saying why."""
    if given is None:
        return None
    from .errors import UsageError
    from .http.har_replay import HttpReplay

    path = str(Path(config.rootpath, given))
    opened = config.stash.setdefault(OPENED, {})
    if path not in opened:
        try:
            opened[path] = HttpReplay.open(path)
        except UsageError as exc:
            pytest.fail(str(exc).replace("--replay-http", "arazzo_http_replay", 1), pytrace=False)
    return opened[path].fresh()


@pytest.fixture
def arazzo_http_replay(request: pytest.FixtureRequest) -> Path | None:
    """The HAR file the workflow under test is answered from, or None (the network); override in
    conftest.py for a file per document or workflow."""
    config = request.config
    given = config.getoption("arazzo_http_replay")
    if given:
        return Path(config.invocation_params.dir, given)
    ini = config.getini("arazzo_http_replay")
    if ini:
        base = config.inipath.parent if config.inipath is not None else config.rootpath
        return Path(base, ini)
    return None
