"""The parsed-source store across processes: `arazzo validate` and `arazzo run` read a local description
parsed by an earlier process back from it instead of parsing it again (counted in each process: the
parse function is wrapped by a driver, see DRIVER), re-parse a changed file, ignore any entry they did
not write themselves, locate findings identically, and `--no-cache` / `ARAZZO_NO_CACHE` turn it off."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

# Runs `arazzo ARGS...` after wrapping the source parser, and prints how many descriptions it parsed.
DRIVER = """
import sys
import arazzo_runner.sources.cache as cache
real, parses = cache.parse_source, []
def counting(content, location):
    parses.append(location)
    return real(content, location)
cache.parse_source = counting
from arazzo_runner.cli import main
code = main(sys.argv[1:])
sys.stderr.write(f"\\nPARSES {len(parses)}\\n")
sys.exit(code)
"""


def _description(extra: int = 0) -> dict:
    """A description of ~50 KB (the store keeps documents of 32 KB and more): 150 operations returning
    a recursive schema (a `$ref` left for validators) and one with a `$dynamicRef` that resolves nowhere
    (a finding located inside the description)."""
    paths: dict = {}
    for index in range(150 + extra):
        ok = {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
        }
        paths[f"/things{index}"] = {
            "get": {
                "operationId": f"getThing{index}",
                "description": f"Lists the things of kind {index}, with a description long enough to weigh.",
                "responses": {"200": ok},
            }
        }
    broken = {"type": "object", "properties": {"b": {"$dynamicRef": "#nowhere"}}}
    paths["/broken"] = {
        "get": {
            "operationId": "getBroken",
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": broken}}}},
        }
    }
    node = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "big", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:1"}],
        "paths": paths,
        "components": {"schemas": {"Node": node}},
    }


def _project(folder: Path, steps: list[str]) -> Path:
    (folder / "api.yaml").write_text(yaml.safe_dump(_description(), sort_keys=False))
    flow = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
        "workflows": [
            {
                "workflowId": "w",
                "steps": [{"stepId": f"s{i}", "operationId": op} for i, op in enumerate(steps)],
            }
        ],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(flow, sort_keys=False))
    return path


def _arazzo(args: list[str], cache: Path, **env: str) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr without the count, descriptions parsed) of `arazzo ARGS` in a process."""
    environ = {k: v for k, v in os.environ.items() if k != "ARAZZO_NO_CACHE"}
    environ.update(PYTHONPATH=str(ROOT), ARAZZO_CACHE_DIR=str(cache), **env)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, env=environ, timeout=300
    )
    err, _, count = done.stderr.rpartition("\nPARSES ")
    assert count.strip().isdigit(), done.stderr
    return done.returncode, done.stdout, err, int(count)


def test_a_second_validate_reads_the_description_back_and_says_the_same(tmp_path):
    flow = _project(tmp_path, ["getThing3", "getBroken", "getThingy"])
    cache = tmp_path / "cache"
    off = _arazzo(["validate", str(flow)], cache, ARAZZO_NO_CACHE="1")
    assert not cache.exists()  # the store is never even created when off
    cold = _arazzo(["validate", str(flow)], cache)  # parses, keeps the data; locates: keeps positions
    warm = _arazzo(["validate", str(flow)], cache)  # data and positions read back
    assert [off[3], cold[3], warm[3]] == [1, 1, 0]
    assert off[:3] == cold[:3] == warm[:3]
    assert off[0] == 1
    api = tmp_path / "api.yaml"
    line = next(n for n, text in enumerate(api.read_text().splitlines(), 1) if "$dynamicRef" in text)
    assert f"cannot resolve $dynamicRef '#nowhere' ({api}:{line}:" in warm[1]  # located in the description
    assert "operationId 'getThingy' was not found in source 'api'" in warm[1]
    folder = cache / "sources"
    kinds = sorted(p.suffix for p in folder.iterdir())
    # the key; the data, positions and facts of each document (the description's: its references not
    # all plain; the Arazzo document's: valid under the official schema)
    assert kinds == ["", ".data", ".data", ".facts", ".facts", ".positions", ".positions"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o600}


def test_a_changed_description_is_parsed_again(tmp_path):
    flow = _project(tmp_path, ["getThing150"])  # only in the changed description
    cache = tmp_path / "cache"
    first = _arazzo(["validate", str(flow)], cache)
    assert first[0] == 1 and first[3] == 1
    assert "operationId 'getThing150' was not found" in first[1]
    api = tmp_path / "api.yaml"
    before = api.stat()
    api.write_text(yaml.safe_dump(_description(extra=1), sort_keys=False))
    os.utime(api, ns=(before.st_atime_ns, before.st_mtime_ns))  # even with the old mtime
    second = _arazzo(["validate", str(flow)], cache)
    assert second[3] == 1
    assert second[0] == 0, second[1]
    third = _arazzo(["validate", str(flow)], cache)
    assert third[3] == 0 and third[:3] == second[:3]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign key", "pickle", "marshal code"])
def test_an_entry_it_did_not_write_is_ignored_and_replaced(tmp_path, damage):
    flow = _project(tmp_path, ["getThing3", "getBroken"])
    cache = tmp_path / "cache"
    clean = _arazzo(["validate", str(flow)], cache)
    entry = max((cache / "sources").glob("*.data"), key=lambda p: p.stat().st_size)  # the description's
    raw = entry.read_bytes()
    marker = tmp_path / "executed"
    head = len(b"arazzo-parsed\n") + 32
    if damage == "garbage":
        forged = os.urandom(len(raw))
    elif damage == "truncated":
        forged = raw[: len(raw) // 2]
    elif damage == "foreign key":  # a well-formed entry MAC'd with a key that is not the store's
        import hashlib
        import hmac
        import marshal

        payload = marshal.dumps((("x",), {"openapi": "3.1.0"}))
        forged = raw[: head - 32] + hmac.new(b"k" * 32, payload, hashlib.sha256).digest() + payload
    elif damage == "pickle":  # what a pickle-based cache would run on load
        import pickle

        class Boom:
            def __reduce__(self):
                return (open, (str(marker), "w"))

        forged = raw[:head] + pickle.dumps(Boom())
    else:  # a code object where the data should be
        import marshal

        code = compile(f"open({str(marker)!r}, 'w')", "x", "exec")
        forged = raw[:head] + marshal.dumps(code)
    entry.write_bytes(forged)
    again = _arazzo(["validate", str(flow)], cache)
    assert again[:3] == clean[:3]
    assert again[3] == 1  # parsed again: the entry was not used
    assert not marker.exists()
    assert entry.read_bytes() != forged  # replaced by a good one
    assert _arazzo(["validate", str(flow)], cache)[3] == 0


def test_a_store_others_can_write_to_is_not_used(tmp_path):
    flow = _project(tmp_path, ["getThing3"])
    cache = tmp_path / "cache"
    assert _arazzo(["validate", str(flow)], cache)[3] == 1
    key = cache / "sources" / "key"
    key.chmod(0o644)  # readable by others: its MACs prove nothing
    assert [_arazzo(["validate", str(flow)], cache)[3] for _ in range(2)] == [1, 1]
    key.chmod(0o600)
    assert _arazzo(["validate", str(flow)], cache)[3] == 0
    (cache / "sources").chmod(0o777)  # anyone may replace entries: narrowed back (the folder is ours)
    assert _arazzo(["validate", str(flow)], cache)[3] == 0
    assert stat.S_IMODE((cache / "sources").stat().st_mode) == 0o700
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # as root: a folder another user owns
        os.chown(cache / "sources", 4321, -1)
        assert _arazzo(["validate", str(flow)], cache)[3] == 1
        os.chown(cache / "sources", 0, -1)
        assert _arazzo(["validate", str(flow)], cache)[3] == 0


def test_no_cache_reads_and_writes_nothing(tmp_path):
    flow = _project(tmp_path, ["getThing3"])
    cache = tmp_path / "cache"
    assert _arazzo(["validate", "--no-cache", str(flow)], cache)[3] == 1
    assert not cache.exists()
    assert _arazzo(["validate", str(flow)], cache)[3] == 1
    assert _arazzo(["validate", "--no-cache", str(flow)], cache)[3] == 1  # not read either
    assert _arazzo(["validate", str(flow)], cache)[3] == 0


def test_run_reads_back_what_validate_parsed(tmp_path):
    flow = _project(tmp_path, ["getThing3"])
    cache = tmp_path / "cache"
    assert _arazzo(["validate", str(flow)], cache)[3] == 1
    code, out, err, parses = _arazzo(["run", str(flow), "--dry-run"], cache)
    assert (code, parses) == (0, 0), out + err
    assert "GET http://127.0.0.1:1/things3" in out
    assert _arazzo(["run", str(flow), "--dry-run", "--no-cache"], cache)[3] == 1


def test_no_cache_in_process_leaves_the_environment_as_it_was(tmp_path, monkeypatch, capsys):
    from arazzo_runner.cli import main

    flow = _project(tmp_path, ["getThing3"])
    monkeypatch.setenv("ARAZZO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ARAZZO_NO_CACHE", raising=False)
    assert main(["validate", "--no-cache", str(flow)]) == 0
    assert "ARAZZO_NO_CACHE" not in os.environ
    assert not (tmp_path / "cache").exists()
    assert main(["validate", str(flow)]) == 0
    assert (tmp_path / "cache" / "sources").is_dir()
    assert "0 errors" in capsys.readouterr().out


def test_a_folder_the_store_did_not_make_is_left_as_it_is(tmp_path):
    """ARAZZO_CACHE_DIR naming a project whose `sources/` holds the user's files: the store changed the
    folder to 0700 and its eviction deleted the oldest of them past 256 files (found by review). Now such
    a folder is not used unless private, and only the store's own names are ever evicted."""
    flow = _project(tmp_path, ["getThing3"])
    project = tmp_path / "project"
    folder = project / "sources"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    mine = [folder / f"api-{index}.yaml" for index in range(300)]
    for path in mine:
        path.write_text("openapi: 3.1.0\n")
    assert [_arazzo(["validate", str(flow)], project)[3] for _ in range(2)] == [1, 1]  # not used
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755 and all(p.exists() for p in mine)
    folder.chmod(0o700)  # private: used, and the user's files outlive eviction
    assert [_arazzo(["validate", str(flow)], project)[3] for _ in range(2)] == [1, 0]
    assert all(p.exists() for p in mine)


def test_a_key_left_empty_is_made_again(tmp_path):
    """A full disk or a kill between creating the key and writing it left an empty key, and every later
    process found it the wrong size: the store was off for good, silently (found by review)."""
    flow = _project(tmp_path, ["getThing3"])
    cache = tmp_path / "cache"
    folder = cache / "sources"
    folder.mkdir(parents=True, mode=0o700)
    (folder / "key").write_bytes(b"")
    (folder / "key").chmod(0o600)
    assert [_arazzo(["validate", str(flow)], cache)[3] for _ in range(2)] == [1, 0]
    assert len((folder / "key").read_bytes()) == 32
    assert not [p for p in folder.iterdir() if p.name.startswith("key.")]  # nothing left aside
