"""Which credentials a step's operation gets: looked up (`http/credentials.py`) under its source's name in
the run's family of documents (`a`, `kid/a`: `sources/family.py`), so a nested document naming a source
like its parent's is another source, with the sources defining each scheme name known for the bare forms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...http.credentials import Credentials, Owners
    from .base import Host


def step_credentials(host: Host, base: Any, workspace: Any, source: str) -> Credentials:
    """The credentials of the operation of `source` (of `workspace`, the run's document by default):
    `--auth`, the inputs (the step's workflow's, then the run's), the environment."""
    from ...http.credentials import Credentials  # an operation's: a message step asks `brokers`

    return Credentials(
        host.options.auth,
        [base.inputs, host.inputs],
        host.options.environ,
        source=family_source(host, workspace, source),
        owners=scheme_owners(host),
    )


def family_source(host: Host, workspace: Any, name: str) -> str:
    """Source `name` of `workspace` by its place in the run's family of documents (`a`, `kid/a`):
    credentials are keyed by it, so a nested document naming a source like its parent's is another
    source. The chains are walked once per run, when a nested document's operation needs them."""
    if workspace is None or workspace is host.root:
        return name
    from ...sources.family import family_key, family_paths

    path = (host.family_paths or {}).get(id(workspace))
    if path is None:  # first asked, or a document loaded since (the walk skipped it then)
        host.family_paths = family_paths(host.root)
        path = host.family_paths.get(id(workspace), ("?",))  # unreachable: a name nobody gives
    return family_key(path, name)


def scheme_owners(host: Host) -> Owners:
    """Which sources of the run's family define each scheme name, asked for when first needed."""
    return lambda: _scheme_owners(host)


def _scheme_owners(host: Host) -> dict[str, frozenset[str]]:
    """Which sources (by family name) define each scheme name, over the run's family of documents
    (credentials are keyed by source and scheme, and a bare scheme name is ambiguous when several
    define it): made once per run, only when a credential is found in a bare form or the environment."""
    if host.scheme_owners is None:
        from ...http.auth_listing import scheme_sources

        host.scheme_owners = scheme_sources(host.root)
    return host.scheme_owners
