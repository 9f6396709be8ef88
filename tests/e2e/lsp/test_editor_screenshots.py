"""`docs/editor_screenshots.py`, the script that made docs/editor.md's screenshots: Neovim in a
pseudo-terminal (the documented `lua` configuration) shows the server's diagnostic, its completion of a
response pointer and its hover with the last run's value, as the script reads the screen; the pages are
photographed in headless Chromium at the size of the committed images, which docs/editor.md shows."""

from __future__ import annotations

import importlib.util
import re
import struct

from tests.e2e.processkit import broker_binary, find_binary
from tests.timeouts import long_test
from tests.untested import importorskip_untested

from .kit import ROOT

SCRIPT = ROOT / "docs" / "editor_screenshots.py"


def _script():
    spec = importlib.util.spec_from_file_location("editor_screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@long_test
def test_the_script_shows_the_servers_answers_in_neovim_and_made_the_docs_images(tmp_path):
    broker_binary("neovim", find_binary("nvim"), "Debian package neovim")
    importorskip_untested("pyte", "docs/editor_screenshots.py (the editor's screenshots)")
    script = _script()
    shots = script.sessions(tmp_path / "session")
    assert set(shots) == {"diagnostics", "completion", "hover"}

    diagnostics = shots["diagnostics"][0].splitlines()
    [row] = [line for line in diagnostics if re.match(r"E\s+27 ", line)]  # the sign, line 27
    assert "operationId: getPets" in row
    assert "operationId 'getPets' was not found in source 'petstore'; did you mean getPet?" in row
    menu = shots["completion"][0]
    for name, kind in (("id", "integer"), ("name", "string"), ("species", "string"), ("status", "string")):
        assert re.search(rf"\s{name}\s+Property {kind}\s", menu), menu
    hover = shots["hover"][0]
    assert "`$response.body#/name`: string (GET /pets/{petId})" in hover
    assert 'last run: `$response.body#/name` = `"Rex"`' in hover
    assert "step `getPet`, from `petstore.arazzo.report.json`" in hover

    made = script.photograph(shots, tmp_path, tmp_path)
    page = (ROOT / "docs" / "editor.md").read_text()
    shown = re.findall(r"\]\(images/(editor-[a-z]+\.png)\)", page)
    assert sorted(shown) == sorted(path.name for path in made)
    for path in made:
        committed = ROOT / "docs" / "images" / path.name
        assert _png_size(committed.read_bytes()) == _png_size(path.read_bytes()), path.name
