"""Which local files a document reads. A local document reads the files it references wherever they are
(relative paths against the document naming them), for sources, nested Arazzo documents and `$ref`s.
With a sandbox (`allow_paths`, the CLI's `--sandbox DIR`) a local read outside its folders fails with a
SourceError naming the path, the sandbox and the flag; symlinks are resolved first and folders compared
by path components, never by string prefix. (Remote documents: test_sources_remote.py.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import arazzo_runner
from arazzo_runner.errors import SourceError, UsageError
from arazzo_runner.sources import load_openapi
from arazzo_runner.sources.locations import allowed_roots, inside
from arazzo_runner.workspace import Workspace

OPENAPI = """\
openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses: {"200": {description: ok}}
"""
OPENAPI_WITH_REF = """\
openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    $ref: '%s'
"""
PATH_ITEM = """\
get:
  operationId: listPets
  responses: {"200": {description: ok}}
"""


def arazzo(url: str, kind: str = "openapi") -> str:
    return (
        "arazzo: 1.0.1\ninfo: {title: t, version: '1'}\n"
        f"sourceDescriptions: [{{name: api, url: '{url}', type: {kind}}}]\n"
        "workflows: [{workflowId: w, steps: [{stepId: s, operationId: listPets}]}]\n"
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """<tmp>/project/flows/ holds the Arazzo documents; specs/, common/ and <tmp>/secret/ hold others."""
    for folder in ("project/flows/sub", "project/specs", "project/common", "secret"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "project/specs/pets.yaml").write_text(OPENAPI)
    (tmp_path / "project/flows/pets.yaml").write_text(OPENAPI)
    (tmp_path / "secret/creds.yaml").write_text(OPENAPI)
    return tmp_path


def doc(tree: Path, url: str, name: str = "flows/main.arazzo.yaml", **kind: str) -> Path:
    path = tree / "project" / name
    path.write_text(arazzo(url, **kind))
    return path


def source_error(path: Path, **options: object) -> SourceError:
    workspace = arazzo_runner.load(path, **options)  # type: ignore[arg-type]
    with pytest.raises(SourceError) as info:
        workspace.source("api")
    return info.value


OUTSIDE = pytest.mark.parametrize(
    "url",
    [
        "../specs/pets.yaml",
        "../../secret/creds.yaml",
        "{tree}/secret/creds.yaml",
        "file://{tree}/secret/creds.yaml",
    ],
    ids=["relative-sibling", "relative-up", "absolute", "file-url"],
)


# -- a local document: anywhere -------------------------------------------------------------------------


@OUTSIDE
def test_a_local_document_reads_its_sources_wherever_they_are(
    tree: Path, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree / "secret")  # the working directory plays no part
    workspace = arazzo_runner.load(doc(tree, url.format(tree=tree)))
    assert workspace.roots is None
    assert workspace.source("api").operation("listPets") is not None


def test_refs_of_a_local_description_are_followed_anywhere(tree: Path) -> None:
    (tree / "project/common/pets-path.yaml").write_text(PATH_ITEM)
    (tree / "project/specs/split.yaml").write_text(OPENAPI_WITH_REF % "../common/pets-path.yaml")
    api = arazzo_runner.load(doc(tree, "../specs/split.yaml")).source("api")
    assert api.operation("listPets").path == "/pets"


def test_a_nested_arazzo_source_resolves_against_its_own_folder(tree: Path) -> None:
    (tree / "project/flows/sub/child.arazzo.yaml").write_text(arazzo("../../specs/pets.yaml"))
    parent = arazzo_runner.load(doc(tree, "./sub/child.arazzo.yaml", kind="arazzo"))
    child = parent.source("api")
    assert child.roots is None
    assert child.source("api").location == str(tree / "project/specs/pets.yaml")


def test_a_text_loaded_document_reads_from_its_locations_folder(tree: Path) -> None:
    workspace = Workspace.from_text(arazzo("../secret/creds.yaml"), str(tree / "project/main.arazzo.yaml"))
    assert workspace.source("api").location == str(tree / "secret/creds.yaml")


def test_low_level_loading_is_unconfined_unless_roots_are_given(tree: Path) -> None:
    base = str(tree / "project/flows/main.arazzo.yaml")
    assert load_openapi("../../secret/creds.yaml", base) is not None
    with pytest.raises(SourceError, match="is outside the sandbox"):
        load_openapi("../../secret/creds.yaml", base, roots=(str(tree / "project"),))


# -- the sandbox ----------------------------------------------------------------------------------------


@OUTSIDE
def test_the_sandbox_refuses_reads_outside_it_naming_path_folders_and_flag(tree: Path, url: str) -> None:
    err = source_error(doc(tree, url.format(tree=tree)), allow_paths=[tree / "project/flows"])
    target = os.path.realpath(tree / "project/flows" / url.format(tree=tree).removeprefix("file://"))
    assert f"{target} is outside the sandbox ({os.path.realpath(tree / 'project/flows')})" in err.message
    assert "--sandbox DIR" in err.message
    assert err.file == str(tree / "project/flows/main.arazzo.yaml") and err.line == 3


def test_the_sandbox_is_only_the_folders_given(tree: Path) -> None:
    """The document's own folder is not added: a sandbox is exactly what was listed."""
    path = doc(tree, "./pets.yaml")
    assert "is outside the sandbox" in source_error(path, allow_paths=[tree / "project/specs"]).message
    workspace = arazzo_runner.load(doc(tree, "../specs/pets.yaml"), allow_paths=[tree / "project/specs"])
    assert workspace.roots == (os.path.realpath(tree / "project/specs"),)
    assert workspace.source("api").operation("listPets") is not None


def test_the_sandbox_covers_refs(tree: Path) -> None:
    (tree / "project/common/pets-path.yaml").write_text(PATH_ITEM)
    (tree / "project/specs/split.yaml").write_text(OPENAPI_WITH_REF % "../common/pets-path.yaml")
    path = doc(tree, "../specs/split.yaml")

    err = source_error(path, allow_paths=[tree / "project/specs"])
    assert "cannot resolve $ref '../common/pets-path.yaml'" in err.message
    assert f"{os.path.realpath(tree / 'project/common/pets-path.yaml')} is outside the sandbox" in err.message

    both = [tree / "project/specs", tree / "project/common"]
    assert arazzo_runner.load(path, allow_paths=both).source("api").operation("listPets") is not None


@pytest.mark.parametrize("spelling", ["project", "project/"])
def test_the_sandbox_compares_path_components_not_string_prefixes(tree: Path, spelling: str) -> None:
    """The sandbox `project/` must not hold `project-evil/`, whose path starts with the same letters."""
    evil = tree / "project-evil"
    evil.mkdir()
    (evil / "creds.yaml").write_text(OPENAPI)
    (evil / "pets-path.yaml").write_text(PATH_ITEM)
    sandbox = [f"{tree}{os.sep}{spelling}"]

    err = source_error(doc(tree, "../../project-evil/creds.yaml"), allow_paths=sandbox)
    assert f"{evil / 'creds.yaml'} is outside the sandbox ({tree / 'project'})" in err.message

    (tree / "project/specs/split.yaml").write_text(OPENAPI_WITH_REF % "../../project-evil/pets-path.yaml")
    err = source_error(doc(tree, "../specs/split.yaml"), allow_paths=sandbox)
    assert f"{evil / 'pets-path.yaml'} is outside the sandbox" in err.message

    assert not inside(str(evil / "creds.yaml"), str(tree / "project"))
    assert inside(str(tree / "project"), str(tree / "project"))
    assert inside(str(tree / "project/specs/pets.yaml"), str(tree / "project"))


def test_a_symlink_out_of_the_sandbox_counts_as_outside(tree: Path) -> None:
    link = tree / "project/flows/linked.yaml"
    link.symlink_to(tree / "secret/creds.yaml")
    sandbox = [tree / "project/flows"]
    err = source_error(doc(tree, "./linked.yaml"), allow_paths=sandbox)
    assert f"{tree / 'secret/creds.yaml'} (through a symbolic link at {link})" in err.message

    (tree / "project/flows/sub/inner.yaml").symlink_to(tree / "project/flows/pets.yaml")
    assert arazzo_runner.load(doc(tree, "./sub/inner.yaml"), allow_paths=sandbox).source("api") is not None


def test_a_symlinked_folder_out_of_the_sandbox_counts_as_outside(tree: Path) -> None:
    (tree / "project/flows/escape").symlink_to(tree / "secret", target_is_directory=True)
    err = source_error(doc(tree, "escape/creds.yaml"), allow_paths=[tree / "project/flows"])
    assert "is outside the sandbox" in err.message


def test_a_sandbox_named_through_a_symlink_is_its_real_folder(tree: Path) -> None:
    (tree / "alias").symlink_to(tree / "project", target_is_directory=True)
    workspace = arazzo_runner.load(doc(tree, "../specs/pets.yaml"), allow_paths=[tree / "alias/specs"])
    assert workspace.roots == (os.path.realpath(tree / "project/specs"),)
    assert workspace.source("api").operation("listPets") is not None


def test_a_nested_arazzo_source_keeps_the_sandbox(tree: Path) -> None:
    (tree / "project/flows/sub/child.arazzo.yaml").write_text(arazzo("../pets.yaml"))
    sandbox = [tree / "project/flows"]
    parent = arazzo_runner.load(doc(tree, "./sub/child.arazzo.yaml", kind="arazzo"), allow_paths=sandbox)
    child = parent.source("api")
    assert child.roots == parent.roots == (os.path.realpath(tree / "project/flows"),)
    assert child.source("api").operation("listPets") is not None  # ../pets.yaml: inside flows/

    (tree / "project/flows/sub/child.arazzo.yaml").write_text(arazzo("../../specs/pets.yaml"))
    path = doc(tree, "./sub/child.arazzo.yaml", kind="arazzo")
    child = arazzo_runner.load(path, allow_paths=sandbox).source("api")
    with pytest.raises(SourceError, match="is outside the sandbox"):
        child.source("api")


def test_self_cannot_move_the_sandbox(tree: Path) -> None:
    path = tree / "project/flows/main.arazzo.yaml"
    path.write_text(
        f"$self: 'file://{tree}/secret/x.arazzo.yaml'\n" + arazzo("creds.yaml").replace("1.0.1", "1.1.0")
    )
    assert "is outside the sandbox" in source_error(path, allow_paths=[tree / "project"]).message


def test_a_shared_cache_does_not_bypass_the_sandbox(tree: Path) -> None:
    wide = arazzo_runner.load(doc(tree, "../specs/pets.yaml"))
    wide.source("api")
    narrow = Workspace.from_path(
        doc(tree, "../specs/pets.yaml", name="flows/b.arazzo.yaml"),
        wide.cache,
        allow_paths=[tree / "project/flows"],
    )
    with pytest.raises(SourceError, match="is outside the sandbox"):
        narrow.source("api")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_or_device_is_refused_without_waiting(tree: Path) -> None:
    """Opening a FIFO blocks until someone writes to it; a device such as /dev/zero never ends."""
    os.mkfifo(tree / "project/flows/pipe.yaml")
    assert "not a regular file" in source_error(doc(tree, "./pipe.yaml")).message
    assert "not a regular file" in source_error(doc(tree, "/dev/zero")).message


def test_allowed_roots(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    (tree / "alias").symlink_to(tree / "project", target_is_directory=True)
    local = str(tree / "project/flows/x.yaml")
    assert allowed_roots(local) is None
    assert allowed_roots(local, [tree / "alias/specs", "secret", tree / "project/specs"]) == (
        os.path.realpath(tree / "project/specs"),
        os.path.realpath(tree / "secret"),
    )
    assert allowed_roots("https://example.com/x.yaml") == ()
    assert allowed_roots("https://example.com/x.yaml", [tree / "secret"]) == ()  # remote: never local
    with pytest.raises(UsageError, match="sandbox folder 'missing' is not an existing folder"):
        allowed_roots(local, ["missing"])
    with pytest.raises(UsageError, match="is not an existing folder"):
        arazzo_runner.load(doc(tree, "./pets.yaml"), allow_paths=[tree / "project/flows/pets.yaml"])
