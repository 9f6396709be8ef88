"""The console's lines for a nested workflow (a workflow step, an x-forEach item each): its start, its
steps, and its end with its verdict (`child[0] (nested)`), between its parent's lines; only the top-level
workflow's end is left to the summary (the runner does not build that event for the console:
`quiet_at_top`). A real local server."""

from __future__ import annotations

import json
import re

import yaml

from tests.e2e.helpers import cli
from tests.e2e.test_secrets_members import _loop_document, _serve, _write
from tests.servers.scripted import ScriptedServer


def test_a_nested_workflows_end_has_its_line_and_the_top_levels_the_summary(tmp_path, capsys):
    path = _write(tmp_path)
    path.write_text(yaml.safe_dump(_loop_document(), sort_keys=False))
    cards = [{"code": 1, "user": "al"}, {"code": 2, "user": "bo"}]
    with ScriptedServer() as server:
        _serve(server)
        result = cli(capsys, "run", path, "--workflow", "loop", "--server", f"api={server.url}",
                     "--input", f"cards={json.dumps(cards)}")  # fmt: skip
        url = server.url
    assert result.code == 0, result.out + result.err
    lines = [re.sub(r"\d+ ms", "N ms", line.replace(url, "URL")) for line in result.out.splitlines()]
    mark = lines[2].split()[0]  # the passed mark of this stream (✓ or PASS)
    assert lines[:9] == [
        "workflow loop",
        "  workflow child",
        f"    {mark}  c  POST URL/echo  200  N ms",
        f"    {mark} child[0] (nested)",
        "  workflow child",
        f"    {mark}  c  POST URL/echo  200  N ms",
        f"    {mark} child[1] (nested)",
        f"  {mark}  each  200  N ms",
        f"{mark} loop passed (1 step, N ms)",
    ]
    assert result.out.count("(nested)") == 2
