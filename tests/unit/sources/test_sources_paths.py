"""Local reads are confined: a source or `$ref` outside the Arazzo document's folder (plus `allow_paths`,
the CLI's `--allow-path DIR`) fails with a SourceError naming the path and the flag. Symlinks are
resolved before the check. One rule for everything: an allowed OpenAPI file's `$ref`s may reach only
the same allowed folders, not the siblings of that file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import arazzo_runner
from arazzo_runner.errors import SourceError
from arazzo_runner.sources import load_openapi
from arazzo_runner.sources.locations import allowed_roots
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
    """<tmp>/project/flows/ holds the Arazzo documents; <tmp>/project/specs/ and <tmp>/secret/ do not."""
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


def test_inside_the_documents_folder_loads(tree: Path) -> None:
    assert arazzo_runner.load(doc(tree, "./pets.yaml")).source("api").operation("listPets") is not None


@pytest.mark.parametrize(
    "url",
    [
        "../specs/pets.yaml",
        "../../secret/creds.yaml",
        "{tree}/secret/creds.yaml",
        "file://{tree}/secret/creds.yaml",
    ],
    ids=["relative-sibling", "relative-up", "absolute", "file-url"],
)
def test_outside_the_documents_folder_is_refused_naming_path_and_flag(tree: Path, url: str) -> None:
    err = source_error(doc(tree, url.format(tree=tree)))
    target = os.path.realpath(tree / "project/flows" / url.format(tree=tree).removeprefix("file://"))
    assert f"{target} is outside the folders this document may read" in err.message
    assert os.path.realpath(tree / "project/flows") in err.message
    assert "--allow-path DIR" in err.message
    assert err.file == str(tree / "project/flows/main.arazzo.yaml") and err.line == 3


def test_allow_paths_widens_the_roots(tree: Path) -> None:
    workspace = arazzo_runner.load(doc(tree, "../specs/pets.yaml"), allow_paths=[tree / "project/specs"])
    assert workspace.source("api").operation("listPets") is not None
    assert workspace.roots == (
        os.path.realpath(tree / "project/flows"),
        os.path.realpath(tree / "project/specs"),
    )


def test_refs_of_an_allowed_file_may_not_reach_its_siblings(tree: Path) -> None:
    (tree / "project/common/pets-path.yaml").write_text(PATH_ITEM)
    (tree / "project/specs/split.yaml").write_text(OPENAPI_WITH_REF % "../common/pets-path.yaml")
    path = doc(tree, "../specs/split.yaml")

    err = source_error(path, allow_paths=[tree / "project/specs"])
    assert "cannot resolve $ref '../common/pets-path.yaml'" in err.message
    assert f"{os.path.realpath(tree / 'project/common/pets-path.yaml')} is outside the folders" in err.message
    assert "--allow-path DIR" in err.message

    both = [tree / "project/specs", tree / "project/common"]
    assert arazzo_runner.load(path, allow_paths=both).source("api").operation("listPets") is not None


def test_a_symlink_out_of_the_folder_counts_as_outside(tree: Path) -> None:
    link = tree / "project/flows/linked.yaml"
    link.symlink_to(tree / "secret/creds.yaml")
    err = source_error(doc(tree, "./linked.yaml"))
    assert f"{tree / 'secret/creds.yaml'} (through a symbolic link at {link})" in err.message

    (tree / "project/flows/sub/inner.yaml").symlink_to(tree / "project/flows/pets.yaml")
    assert arazzo_runner.load(doc(tree, "./sub/inner.yaml")).source("api") is not None


def test_a_symlinked_folder_out_of_the_root_counts_as_outside(tree: Path) -> None:
    (tree / "project/flows/escape").symlink_to(tree / "secret", target_is_directory=True)
    assert "is outside" in source_error(doc(tree, "escape/creds.yaml")).message


def test_a_nested_arazzo_source_shares_the_roots_of_the_document_that_loaded_it(tree: Path) -> None:
    (tree / "project/flows/sub/child.arazzo.yaml").write_text(arazzo("../pets.yaml"))
    parent = arazzo_runner.load(doc(tree, "./sub/child.arazzo.yaml", kind="arazzo"))
    child = parent.source("api")
    assert child.roots == parent.roots
    assert child.source("api").operation("listPets") is not None  # ../pets.yaml: inside flows/

    (tree / "project/flows/sub/child.arazzo.yaml").write_text(arazzo("../../specs/pets.yaml"))
    child = arazzo_runner.load(doc(tree, "./sub/child.arazzo.yaml", kind="arazzo")).source("api")
    with pytest.raises(SourceError, match="is outside the folders"):
        child.source("api")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_or_device_is_refused_without_waiting(tree: Path) -> None:
    """Opening a FIFO blocks until someone writes to it; a device such as /dev/zero never ends."""
    os.mkfifo(tree / "project/flows/pipe.yaml")
    assert "not a regular file" in source_error(doc(tree, "./pipe.yaml")).message
    assert "not a regular file" in source_error(doc(tree, "/dev/zero"), allow_paths=["/dev"]).message


def test_self_cannot_move_the_roots(tree: Path) -> None:
    path = tree / "project/flows/main.arazzo.yaml"
    path.write_text(
        f"$self: 'file://{tree}/secret/x.arazzo.yaml'\n" + arazzo("creds.yaml").replace("1.0.1", "1.1.0")
    )
    assert "is outside" in source_error(path).message


def test_text_loaded_documents_read_their_locations_folder(tree: Path) -> None:
    text = arazzo("../secret/creds.yaml")
    workspace = Workspace.from_text(text, str(tree / "project/main.arazzo.yaml"))
    with pytest.raises(SourceError, match="is outside"):
        workspace.source("api")
    remote = Workspace.from_text(arazzo(f"{tree}/project/flows/pets.yaml"), "https://example.com/a.yaml")
    assert remote.roots == ()
    with pytest.raises(SourceError, match=r"outside the folders this document may read \(none\)"):
        remote.source("api")


def test_a_shared_cache_does_not_bypass_the_check(tree: Path) -> None:
    wide = arazzo_runner.load(doc(tree, "../specs/pets.yaml"), allow_paths=[tree / "project/specs"])
    wide.source("api")
    narrow = Workspace.from_path(doc(tree, "../specs/pets.yaml", name="flows/b.arazzo.yaml"), wide.cache)
    with pytest.raises(SourceError, match="is outside"):
        narrow.source("api")


def test_low_level_loading_is_unconfined_unless_roots_are_given(tree: Path) -> None:
    base = str(tree / "project/flows/main.arazzo.yaml")
    assert load_openapi("../../secret/creds.yaml", base) is not None
    with pytest.raises(SourceError, match="is outside"):
        load_openapi("../../secret/creds.yaml", base, roots=allowed_roots(base))


def test_allowed_roots_are_real_absolute_folders(tree: Path) -> None:
    (tree / "alias").symlink_to(tree / "project", target_is_directory=True)
    roots = allowed_roots(str(tree / "alias/flows/x.yaml"), [tree / "alias/specs", "relative"])
    assert roots == (
        os.path.realpath(tree / "project/flows"),
        os.path.realpath(tree / "project/specs"),
        os.path.realpath("relative"),
    )
    assert allowed_roots("https://example.com/x.yaml") == ()


def test_the_working_directory_is_allowed_when_it_holds_the_document(tmp_path, monkeypatch):
    from arazzo_runner.sources.locations import allowed_roots

    project = tmp_path / "project"
    (project / "workflows").mkdir(parents=True)
    doc = project / "workflows" / "flow.arazzo.yaml"
    monkeypatch.chdir(project)
    assert allowed_roots(str(doc)) == (str((project / "workflows").resolve()), str(project.resolve()))
    monkeypatch.chdir(tmp_path / "project" / "workflows")  # the document's own folder: nothing wider
    assert allowed_roots(str(doc)) == (str((project / "workflows").resolve()),)


def test_the_working_directory_is_not_allowed_for_a_document_outside_it(tmp_path, monkeypatch):
    from arazzo_runner.sources.locations import allowed_roots

    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    doc = tmp_path / "elsewhere" / "flow.arazzo.yaml"
    assert allowed_roots(str(doc)) == (str((tmp_path / "elsewhere").resolve()),)


def test_home_and_root_never_widen_the_allowed_folders(tmp_path, monkeypatch):
    from arazzo_runner.sources.locations import allowed_roots

    (tmp_path / "downloads").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    doc = tmp_path / "downloads" / "evil.arazzo.yaml"
    assert allowed_roots(str(doc)) == (str((tmp_path / "downloads").resolve()),)
