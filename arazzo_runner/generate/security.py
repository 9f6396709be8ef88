"""The credentials a generated document's workflows want: the security schemes their operations require,
spelled as `arazzo run` takes them (`--auth SCHEME=VALUE`, `SOURCE:SCHEME` when several sources define
the name, `USER:PASSWORD` for basic), with the variables that can stand for the flag.

`arazzo generate` names them in its "run them:" hint: a hint without them runs every secured workflow
into a 401. An operation's requirement is its own `security` (even `[]`), else the description's; of
alternatives (`[{a: []}, {b: []}]`) the first is named, one credential being enough to run; an empty
alternative (`{}`, anonymous access) makes the operation want none.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..errors import ArazzoError
from ..records import Record

_PLACEHOLDER = MappingProxyType({"basic": "USER:PASSWORD", "cert": "CERT.pem"})


class Credential(Record, frozen=True):
    key: str  # the `--auth` key: the scheme's name, `SOURCE:SCHEME` when another source defines it too
    flag: str  # `--auth libraryKey=VALUE`
    sends: str  # where the credential goes (`header X-Library-Key`)
    environment: tuple[str, ...]  # the variables that stand for the flag (`ARAZZO_AUTH_LIBRARYKEY_API_KEY`)


def wanted_credentials(
    sources: list[Any], plans: list[Any], workflows: list[dict[str, Any]]
) -> list[Credential]:
    """The credentials the operations `workflows` call want, in the order first wanted (`sources`:
    build.Source, `plans`: operations.OperationPlan)."""
    from ..http.auth_listing import where
    from ..http.credentials import env_names, main_field, qualified

    by_target = {_target_key(plan.target): plan for plan in plans}
    defined: dict[str, list[str]] = {}
    for source in sources:
        for name in _schemes(source.description):
            defined.setdefault(name, []).append(source.name)
    found: dict[str, Credential] = {}
    for workflow in workflows:
        for step in workflow.get("steps") or ():
            plan = by_target.get(_target_key(step)) if isinstance(step, dict) else None
            if plan is None:
                continue
            schemes = _schemes(next(s.description for s in sources if s.name == plan.source))
            for name in _required(plan.operation):
                scheme = schemes.get(name)
                field = main_field(scheme) if isinstance(scheme, dict) else None
                if field is None:
                    continue  # undefined (the validator says so) or a kind no flag gives
                shared = len(defined.get(name, ())) > 1
                key = qualified(plan.source, name) if shared else name
                if key not in found:
                    variables = (env_names(name, scheme, plan.source if shared else None) or [[]])[0]
                    flag = f"--auth {key}={_PLACEHOLDER.get(field, 'VALUE')}"
                    found[key] = Credential(key, flag, where(scheme), tuple(variables))
    return list(found.values())


def _target_key(holder: dict[str, Any]) -> tuple[str, str] | None:
    for field in ("operationId", "operationPath"):
        if isinstance(holder.get(field), str):
            return field, holder[field]
    return None


def _schemes(description: Any) -> dict[str, Any]:
    try:
        return description.security_schemes
    except ArazzoError:  # a broken securitySchemes: the validator and the run say so
        return {}


def _required(operation: Any) -> list[str]:
    try:
        security = operation.security
    except ArazzoError:
        return []
    alternatives = [a for a in security or () if isinstance(a, dict)]
    if not alternatives or any(not a for a in alternatives):
        return []
    return [str(name) for name in alternatives[0]]
