"""The rule registry: every built-in rule module, by id.

A rule is a module with `ID`, `CATEGORY`, `DEFAULT_SEVERITY`, `OPTIONS` and
`check(graph, options)`; its docstring is its documentation. Registration is
explicit so that `tflint rules` and the docs list exactly what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType

from tflint.rules import (
    duplicate_node_name,
    invalid_graph,
    unknown_op,
    unresolved_input,
)

RULES: dict[str, ModuleType] = {
    module.ID: module
    for module in (
        invalid_graph,
        duplicate_node_name,
        unresolved_input,
        unknown_op,
    )
}


def all_rules() -> Mapping[str, ModuleType]:
    """Every rule tflint knows, by id."""
    return RULES


def get(rule_id: str) -> ModuleType:
    """The rule module with this id; KeyError names close matches."""
    try:
        return RULES[rule_id]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(rule_id, list(RULES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise KeyError(f"no rule {rule_id!r}{hint}") from None
