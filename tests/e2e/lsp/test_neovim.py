"""`arazzo lsp` in Neovim: its own LSP client, configured with the `lua` block of docs/editor.md, opens a
document headless and reads the server's diagnostics. Without `nvim` (the Debian package `neovim`, which
tests/install-system-packages.sh installs) the test fails as a missing broker does, or with
ARAZZO_TESTS_WITHOUT=neovim is skipped, the run listing the claim as not tested (tests/e2e/processkit.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.e2e.processkit import broker_binary, find_binary

from .kit import ROOT, copy_docs, server_env

CHECK = """
local ok = vim.wait(120000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, {code = d.code, message = d.message, lnum = d.lnum, col = d.col, severity = d.severity})
end
local out = io.open(vim.env.ARAZZO_NVIM_OUT, "w")
out:write(vim.fn.json_encode({waited = ok, diagnostics = found}))
out:close()
vim.cmd("qall!")
"""


def _documented_config() -> str:
    """The `lua` block of docs/editor.md, its `arazzo` command the server of this checkout."""
    text = (ROOT / "docs" / "editor.md").read_text()
    block = re.search(r"```lua\n(.*?)```", text, re.S).group(1)
    assert 'cmd = { "arazzo", "lsp" }' in block
    command = ", ".join(json.dumps(word) for word in (sys.executable, "-m", "arazzo_runner.cli", "lsp"))
    return block.replace('cmd = { "arazzo", "lsp" }', f"cmd = {{ {command} }}")


def test_neovims_own_client_shows_the_diagnostics(tmp_path):
    nvim = broker_binary("neovim", find_binary("nvim"), "Debian package neovim")
    copy_docs(tmp_path)
    document = tmp_path / "adopt.arazzo.yaml"
    document.write_text(
        (tmp_path / "adopt.yaml").read_text().replace("operationId: listPets", "operationId: listPet")
    )
    (tmp_path / "init.lua").write_text(_documented_config())
    (tmp_path / "check.lua").write_text(CHECK)
    out = tmp_path / "diagnostics.json"
    env = {
        **server_env(),
        "ARAZZO_NVIM_OUT": str(out),
        "XDG_STATE_HOME": str(tmp_path),
        "HOME": str(tmp_path),
    }
    finished = subprocess.run(
        [
            nvim,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            str(tmp_path / "init.lua"),
            "-c",
            "luafile check.lua",
            str(document),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert finished.returncode == 0, finished.stderr
    seen = json.loads(out.read_text())
    assert seen["waited"] is True
    [diagnostic] = seen["diagnostics"]
    assert diagnostic["code"] == "operation-exists"
    assert (
        diagnostic["message"]
        == "operationId 'listPet' was not found in source 'pets'; did you mean listPets?"
    )
    line = document.read_text().splitlines().index("        operationId: listPet")
    assert (diagnostic["lnum"], diagnostic["col"]) == (line, len("        operationId: "))
    assert diagnostic["severity"] == 1  # vim.diagnostic.severity.ERROR
