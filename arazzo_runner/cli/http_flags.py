"""The HTTP-related flags of `arazzo run`: --auth, --input-file, --validate-requests, --contract (and
--validate-responses, its older name)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..http.contract import DEFAULT_MODE, LEGACY, MODES

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
    run.add_argument(
        "--validate-requests",
        choices=POLICIES,
        default="off",
        help="check requests against the OpenAPI description: warn, or fail the step (default off; needs "
        "the validation extra)",
    )
    run.add_argument(
        "--contract",
        choices=MODES,
        default=None,
        help="check every response against its OpenAPI description (status, Content-Type, body schema, "
        "required headers): warn (the default: each violation a warning), fail (a violation fails its "
        "step, onFailure applies) or off",
    )
    run.add_argument(
        "--validate-responses",
        choices=POLICIES,
        default=None,
        help="the older name of --contract: off, warn, error (= --contract fail)",
    )


def contract_mode(args: argparse.Namespace) -> str:
    """`--contract`, or what `--validate-responses` maps to (said once on stderr); both: a usage error."""
    legacy = getattr(args, "validate_responses", None)
    given = getattr(args, "contract", None)
    if legacy is None:
        return given or DEFAULT_MODE
    if given is not None:
        raise UsageError("--validate-responses is the older name of --contract: give one of them")
    mode = LEGACY[legacy]
    if not getattr(args, "contract_noted", False):
        args.contract_noted = True
        print(
            f"note: --validate-responses {legacy} is --contract {mode} (the contract checks; "
            "--validate-responses is their older name)",
            file=sys.stderr,
        )
    return mode


def run_options(args: argparse.Namespace, workspace: Any) -> dict[str, Any]:
    """RunOptions members from the flags; every --auth value is a secret of the run from the start."""
    from ..http.auth_keys import auth_secrets, check_auth_keys, parse_auth_items

    auth = parse_auth_items(args.auth)
    if auth:
        check_auth_keys(auth, workspace)
    return {
        "auth": auth,
        "secrets": auth_secrets(auth),
        "validate_requests": args.validate_requests,
        "contract": contract_mode(args),
    }


def warn_unread_variables(workspaces: list[Any], environ: Mapping[str, str]) -> None:
    """Each `ARAZZO_AUTH_*` variable no security scheme of the documents reads, on stderr before the run
    (a near miss would otherwise send the requests without their credential, unsaid)."""
    from ..http.auth_variables import unread_variables

    for line in unread_variables(workspaces, environ):
        print(f"warning: {line}", file=sys.stderr)


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
