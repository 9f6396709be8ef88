"""The HTTP-related flags of `arazzo run`: --auth, --input-file, --validate-requests, --validate-responses."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import UsageError

POLICIES = ("off", "warn", "error")


def add_run_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--auth",
        action="append",
        default=[],
        metavar="[SOURCE:]SCHEME[.FIELD]=VALUE",
        help="credential for a security scheme, of one source with SOURCE: (repeatable; see `arazzo auth "
        "FILE` for names and variables)",
    )
    run.add_argument(
        "--input-file",
        action="append",
        default=[],
        metavar="KEY=PATH",
        help="an input read from a file, as a data: URL (for file uploads; repeatable)",
    )
    for kind in ("requests", "responses"):
        run.add_argument(
            f"--validate-{kind}",
            choices=POLICIES,
            default="off",
            help=f"check {kind} against the OpenAPI description: warn, or fail the step (default off)",
        )


def run_options(args: argparse.Namespace, workspace: Any) -> dict[str, Any]:
    """RunOptions members from the flags; every --auth value is a secret of the run from the start."""
    auth = {}
    for item in args.auth:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            got = f"got {name!r}=..." if sep else "got an item without '=' (not shown: it may be the value)"
            raise UsageError(f"--auth expects [SOURCE:]SCHEME[.FIELD]=VALUE, {got}")
        auth[name] = value
    if auth:
        _check_scheme_names(auth, workspace)
    return {
        "auth": auth,
        "secrets": {v for k, v in auth.items() if not k.endswith(".client_auth")},
        "validate_requests": args.validate_requests,
        "validate_responses": args.validate_responses,
    }


def file_inputs(args: argparse.Namespace) -> dict[str, str]:
    """`--input-file KEY=PATH`: the file as a data: URL carrying its media type and file name."""
    inputs: dict[str, str] = {}
    for item in args.input_file:
        import mimetypes  # (its tables: only to name a file's media type)

        from ..http.multipart import data_url

        key, sep, path = item.partition("=")
        if not sep or not key or not path:
            raise UsageError(f"--input-file expects KEY=PATH, got {item!r}")
        file = Path(path)
        if not file.is_file():
            raise UsageError(f"--input-file {key}: no such file {path!r}")
        media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        inputs[key] = data_url(file.read_bytes(), media_type, file.name)
    return inputs


def _check_scheme_names(auth: dict[str, str], workspace: Any) -> None:
    """Each key names a scheme (`SCHEME`, `SCHEME.FIELD`) or a source's scheme (`SOURCE:SCHEME[.FIELD]`);
    a bare name that several sources define is ambiguous: credentials stay with the source they are for."""
    owners = scheme_owners(workspace)  # a source that cannot be loaded stops here, with its own message
    for key in auth:
        check_scheme_key(key, owners)


def scheme_owners(workspace: Any) -> dict[str, set[str]]:
    """Security scheme name -> the sources (of the document and its arazzo sources) defining it."""
    from ..http.auth_listing import describe_security

    owners: dict[str, set[str]] = {}
    for entry in describe_security(workspace):
        for scheme in entry["schemes"]:
            owners.setdefault(scheme["name"], set()).add(entry["source"])
    return owners


def check_scheme_key(key: str, owners: dict[str, set[str]]) -> list[str]:
    """The sources the `--auth` key `key` is for (one); UsageError when it names no scheme of `owners`
    or a scheme several of them define."""
    from ..http.credentials import FIELDS, qualified

    known = set(owners) | {qualified(s, name) for name, sources in owners.items() for s in sources}
    name, _, field = key.rpartition(".")
    scheme = key if key in known else name if name in known and field in FIELDS else None
    if scheme is None:
        listed = ", ".join(sorted(owners)) or "none"
        raise UsageError(
            f"--auth {key}=...: no security scheme named so (schemes: {listed}; fields: "
            f"{', '.join(FIELDS)}; SOURCE:SCHEME for the scheme of one source)"
        )
    sources = sorted(owners.get(scheme, ()))
    if len(sources) > 1:
        names = " and ".join(sources)
        forms = ", ".join(f"--auth {qualified(s, key)}=..." for s in sources)
        raise UsageError(
            f"--auth {key}=...: security scheme '{scheme}' is defined by sources {names}; name the "
            f"source it is for: {forms}"
        )
    return sources or [scheme.partition(":")[0]]
