"""The semantic rules, one small function per check, grouped by area.

`identifiers`: uniqueness and references to sources/components; `targets`: step and action targets,
dependsOn, parameter `in`; `values` and `criteria`: runtime expressions and conditions (syntax);
`references`: what the expressions refer to; `inputs`: inputs schemas and the names they declare;
`outputs`: output names and literal output values.
`run_rules` runs them all over one document.
"""

from __future__ import annotations

from ..checker import Checker
from ..flow import check_step_order
from ..regex_context import check_input_contexts
from ..walk import CriterionSite, sites
from . import extensions, identifiers, inputs, outputs, targets
from .criteria import check_criterion
from .dialect import check_rewrites
from .outputs import check_output_value
from .references import check_reference
from .values import check_accessors, check_replacement_targets, scan_value


def run_rules(ck: Checker) -> None:
    from .. import async_rules

    for rule in (
        *identifiers.RULES,
        *targets.RULES,
        *inputs.RULES,
        *outputs.RULES,
        *async_rules.RULES,
        *extensions.RULES,
    ):
        rule(ck)
    check_expressions(ck)
    for workflow in ck.document.workflows:
        check_input_contexts(ck, workflow)
    check_step_order(ck)  # after the expressions: it reads the steps they were found to read
    check_replacement_targets(ck)


def check_expressions(ck: Checker) -> None:
    """Every value and criterion of the document: syntax first, then what each expression refers to."""
    for site in sites(ck):
        if isinstance(site, CriterionSite):
            found = check_criterion(ck, site.criterion)
        elif site.role == "output":
            before = len(ck.findings)
            found = scan_value(ck, site.raw, site.at, typos=False)
            if not found:
                check_output_value(ck, site.raw, site.at, ck.findings[before:])
        else:
            found = scan_value(ck, site.raw, site.at)
        for expression, at in found:
            check_rewrites(ck, expression, at)
            check_accessors(ck, expression, at)
            check_reference(ck, expression, at, site.scope)
