"""Rules to findings: run a graph's rules, and turn each rule's issues into Findings.

Rules yield small Issues; only here do they get a rule id, the configured
severity, a file and a position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from tflint.config.settings import Config, RuleConfig
from tflint.engine.place import file_position, issue_position
from tflint.errors import UsageError
from tflint.finding import Finding, Issue, Severity
from tflint.tf.functions import called_functions
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

# What a rule's check() receives (its module's CHECKS; rules/__init__.py): most check a graph.
GRAPH = "graph"
# The category of the rules that compare two versions of a model instead of checking one graph.
COMPAT = "compat"

# Added to a finding inside a library function that nothing instantiates (see CalledFunctions).
NEVER_CALLED = "never called: TF does not check it at import; calling it would fail"

# A rule as it runs on one file: (id, module, severity, options).
RuleLevel = tuple[str, Any, Severity, Mapping[str, Any]]


class RuleCrash(Exception):
    """A rule raised: a bug in tflint (or a plugin), reported as exit 2, not as findings."""

    def __init__(self, rule_id: str, path: str, error: BaseException) -> None:
        super().__init__(f"internal error in rule {rule_id} on {path}: {type(error).__name__}: {error}")
        self.rule_id = rule_id
        self.path = path
        self.error = error

    def __reduce__(self) -> tuple[Any, ...]:
        # Crosses back from -j worker processes; the original error as text is enough there.
        return (RuleCrash, (self.rule_id, self.path, RuntimeError(f"{type(self.error).__name__}: {self.error}")))


def checks(module: Any) -> str:
    """What `module`'s check() receives: GRAPH, or another subject its CHECKS names."""
    return getattr(module, "CHECKS", GRAPH)


def is_compat_rule(rule_id: str, modules: Mapping[str, Any]) -> bool:
    """Whether the rule compares two versions of a model (runs in `tflint compat`) rather than checking
    one graph."""
    module = modules.get(rule_id)
    return module is not None and getattr(module, "CATEGORY", None) == COMPAT


def run_rules(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    progress: Callable[[str], None] | None = None,
    only: set[str] | None = None,
) -> Iterator[Finding]:
    """Run each enabled graph rule (built-in or from an enabled plugin; those in `only`, if given)
    on `index`; turn its issues into findings."""
    rules = config.modules
    for rule_id, rule_config in config.enabled():
        if only is not None and rule_id not in only:
            continue
        module = rules[rule_id]
        if checks(module) != GRAPH:
            continue
        if module.CATEGORY == COMPAT:
            continue  # compares two versions: `tflint compat` runs it (tflint.engine.compat)
        if progress is not None:
            progress(rule_id)
        issues = _guarded(rule_id, path, module.check, index, rule_config.options)
        yield from _findings(rule_id, rule_config, issues, index, path, label, config.uncalled_functions)


def _guarded(
    rule_id: str, path: str, check: Callable[..., Iterable[Issue]], index: GraphIndex, options: Any
) -> Iterator[Issue]:
    """The issues of one rule, read one at a time; whatever the rule raises becomes a RuleCrash."""
    try:
        yield from check(index, options)
    except UsageError:  # what a rule reads went away (a file truncated while read): one line, as it says
        raise
    except Exception as error:  # a rule bug must surface as one clear line, not a traceback
        raise RuleCrash(rule_id, path, error) from error


# The most findings one rule reports on one node, and in one graph. A few bytes of input can
# make a rule repeat itself without end (a million `^a` control inputs on one node): past these,
# the rest are counted, not reported, and one summary finding says how many were left out. The
# output grows with what is wrong, never with how often the input repeats it.
MAX_PER_NODE = 100
MAX_PER_GRAPH = 10_000


def file_findings(subject: str, value: Any, path: str, rules: Iterable[RuleLevel]) -> list[Finding]:
    """The findings on `path` of the rules that check `subject` (a file that could not be read, its
    suppressions: not a graph), given `value` to check.

    `rules` are the (id, module, severity, options) that may run; those at OFF do not. Such
    findings are about no node: an issue's `position` (a parser's error, a directive) or `at_file()` places them.
    """
    found = []
    for rule_id, module, severity, options in rules:
        if severity == Severity.OFF or checks(module) != subject:
            continue
        try:
            issues = list(module.check(value, options))
        except Exception as error:  # a rule bug must surface as one clear line, not a traceback
            raise RuleCrash(rule_id, path, error) from error
        for issue in issues:
            line, column = issue.position or (file_position(value, issue.at) if issue.at else None) or (None, None)
            found.append(
                Finding(rule=rule_id, severity=severity, message=issue.message, file=path, line=line, column=column)
            )
    return found


def configured(config: Config) -> list[RuleLevel]:
    """(id, module, severity, options) of every rule `config` knows, at its configured level."""
    return [
        (rule_id, module, rule.severity, rule.options)
        for rule_id, module in config.modules.items()
        if (rule := config.rules.get(rule_id)) is not None
    ]


def _findings(
    rule_id: str,
    rule_config: RuleConfig,
    issues: Iterable[Issue],
    index: GraphIndex,
    path: str,
    label: str | None,
    uncalled: Severity | None = None,
) -> Iterator[Finding]:
    """Findings of a rule's issues; those inside a function nothing calls are capped at `uncalled` (if given).

    Issues marked `library` (checked by TensorFlow when it adds the library, called or not) keep their level.
    At most MAX_PER_NODE findings per node and MAX_PER_GRAPH in all are reported; a summary finding counts the rest.
    """
    per_node: dict[tuple[str, str | None], int] = {}
    left_out: dict[tuple[str, str | None], list[Any]] = {}  # node -> [count, most severe, the first left out]
    reported = 0
    graph_left_out: list[Any] = [0, Severity.OFF]
    ignores = rule_config.ignores if rule_config.ignore_nodes else None
    configured = rule_config.severity
    level_set = rule_config.level_set
    for issue in issues:
        node: Node | None = issue.node
        node_name = node.name if node is not None else None
        if ignores is not None and ignores(node_name):
            continue
        severity = configured if issue.severity is None or level_set else issue.severity
        if issue.lesser and severity > Severity.INFO:
            severity = Severity(max(Severity.INFO, severity - int(issue.lesser)))
        function = node.function if node is not None else issue.function
        message = issue.message
        if (
            uncalled is not None
            and function is not None
            and not issue.library
            and function not in called_functions(index)
        ):
            severity = min(severity, uncalled)
            message = f"{message} ({NEVER_CALLED})"
        if severity == Severity.OFF:
            continue
        if node_name is not None:
            key = (node_name, function)
            seen = per_node[key] = per_node.get(key, 0) + 1
            if seen > MAX_PER_NODE:
                entry = left_out.get(key)
                if entry is None:
                    left_out[key] = [1, severity, issue]
                else:
                    entry[0] += 1
                    if severity > entry[1]:
                        entry[1] = severity
                continue
        if reported >= MAX_PER_GRAPH:
            graph_left_out[0] += 1
            if severity > graph_left_out[1]:
                graph_left_out[1] = severity
            continue
        reported += 1
        line, column = issue_position(issue, index)
        yield Finding(
            rule=rule_id,
            severity=severity,
            message=message,
            file=path,
            line=line,
            column=column,
            node=node_name,
            function=function,
            graph=label,
            properties=issue.properties,
        )
    for (node_name, function), (count, severity, first) in left_out.items():
        line, column = issue_position(first, index)
        yield Finding(
            rule=rule_id,
            severity=severity,
            message=f"... and {count:,} more {rule_id} findings on node '{node_name}'"
            f" (at most {MAX_PER_NODE} are reported per rule and node)",
            file=path,
            line=line,
            column=column,
            node=node_name,
            function=function,
            graph=label,
        )
    if graph_left_out[0]:
        yield Finding(
            rule=rule_id,
            severity=graph_left_out[1],
            message=f"... and {graph_left_out[0]:,} more {rule_id} findings in this graph"
            f" (at most {MAX_PER_GRAPH:,} are reported per rule and graph)",
            file=path,
            graph=label,
        )
