"""The VS Code extension of `editors/vscode/`: `build.sh` packages it with `@vscode/vsce` (its pinned
dependencies installed from the npm registry), the .vsix holds what VS Code reads (the manifest with its
activation, languages and settings, the entry point, the bundled language client), and the LSP libraries
it bundles drive the real `arazzo lsp`, started with the command of the settings' defaults.

VS Code itself is not run here (no VS Code on this machine): that the editor loads the extension and its
client attaches to the documents is not tested. Without node and npm the module is skipped, the claim
listed as not tested at the end of the run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.timeouts import long_test
from tests.untested import skip_untested

from .kit import ROOT, copy_docs, server_env

EXTENSION = ROOT / "editors" / "vscode"
NODE, NPM = shutil.which("node"), shutil.which("npm")
# npm's words for a registry it cannot reach (no network): the claim is then untested, not failed
_UNREACHABLE = ("ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "ENETUNREACH")
if NODE is None or NPM is None:
    skip_untested("node and npm are not installed", "packaging the VS Code extension (editors/vscode)")


@pytest.fixture(scope="module")
def vsix(tmp_path_factory) -> Path:
    """The .vsix `build.sh` makes, from a copy of `editors/vscode/` (the checkout gets no node_modules)."""
    folder = tmp_path_factory.mktemp("vscode")
    source = folder / "vscode"
    shutil.copytree(EXTENSION, source, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    out = folder / "arazzo.vsix"
    built = subprocess.run(
        ["bash", str(source / "build.sh"), str(out)], capture_output=True, text=True, timeout=800
    )
    said = built.stdout[-3000:] + built.stderr[-3000:]
    if built.returncode != 0 and any(code in said for code in _UNREACHABLE):
        skip_untested("the npm registry is not reachable", "packaging the VS Code extension (editors/vscode)")
    assert built.returncode == 0, said
    assert f"Packaged: {out}" in built.stdout
    return out


@long_test
def test_the_vsix_holds_the_manifest_the_entry_point_and_the_language_client(vsix):
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("extension/package.json"))
        entry = archive.read("extension/extension.js").decode()
        vsixmanifest = archive.read("extension.vsixmanifest").decode()
        modules = ("vscode-languageclient", "vscode-languageserver-protocol", "vscode-jsonrpc")
        bundled = {m: json.loads(archive.read(f"extension/node_modules/{m}/package.json")) for m in modules}
    assert manifest["main"] == "./extension.js" and "extension/extension.js" in names
    assert manifest["activationEvents"] == ["onLanguage:arazzo-yaml", "onLanguage:arazzo-json"]
    languages = {item["id"]: item for item in manifest["contributes"]["languages"]}
    assert languages["arazzo-yaml"]["extensions"] == [".arazzo.yaml", ".arazzo.yml"]
    assert languages["arazzo-yaml"]["filenames"] == ["arazzo.yaml", "arazzo.yml"]
    assert languages["arazzo-json"]["extensions"] == [".arazzo.json"]
    for grammar in manifest["contributes"]["grammars"]:
        assert f"extension/{grammar['path'][2:]}" in names
    settings = manifest["contributes"]["configuration"]["properties"]
    assert settings["arazzo.server.path"]["default"] == "arazzo"
    assert settings["arazzo.server.args"]["default"] == ["lsp"]
    # the client VS Code runs: vscode-languageclient's node entry and the libraries it requires
    assert "require('vscode-languageclient/node')" in entry
    assert {m: package["name"] for m, package in bundled.items()} == {m: m for m in modules}
    assert bundled["vscode-languageclient"]["version"] == "9.0.1"
    assert "extension/node_modules/vscode-languageclient/lib/node/main.js" in names
    assert manifest["dependencies"] == {"vscode-languageclient": "9.0.1"}
    assert not any("/@vscode/vsce/" in name for name in names)  # the packager is not shipped
    assert "extension/build.sh" not in names
    assert 'Id="arazzo-lsp"' in vsixmanifest and 'Publisher="arazzo-runner"' in vsixmanifest


@long_test
def test_the_bundled_client_libraries_drive_the_server_the_settings_name(vsix, tmp_path):
    extracted = tmp_path / "unpacked"
    with zipfile.ZipFile(vsix) as archive:
        archive.extractall(extracted)
    copy_docs(tmp_path)
    document = tmp_path / "adopt.arazzo.yaml"
    text = (tmp_path / "adopt.yaml").read_text()
    document.write_text(text.replace("operationId: listPets", "operationId: listPet"))
    bin_folder = tmp_path / "bin"  # `arazzo` on the PATH: this checkout's CLI
    bin_folder.mkdir()
    shim = bin_folder / "arazzo"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m arazzo_runner.cli "$@"\n')
    shim.chmod(0o755)
    env = {**server_env(), "PATH": f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}"}
    client = Path(__file__).with_name("vsix_client.js")
    finished = subprocess.run(
        [NODE, str(client), str(extracted / "extension"), str(document)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stderr
    seen = json.loads(finished.stdout)
    assert seen["server"]["name"] == "arazzo"
    [diagnostic] = seen["diagnostics"]
    assert diagnostic["code"] == "operation-exists"
    assert diagnostic["source"] == "arazzo"
    assert seen["hover"]["contents"]["value"].startswith("**GET /pets/{petId}** `getPet`")
