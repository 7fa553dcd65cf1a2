"""The engine: runs the enabled rules over each graph of an artifact and builds Findings.

Rules yield small Issues; only here do they get a rule id, the configured
severity, a file and a position. Findings are returned sorted, so output is
deterministic whatever order rules run in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tflint.config import Config, RuleConfig
from tflint.finding import Finding, Issue, Severity
from tflint.index import GraphIndex, Node
from tflint.load import Artifact, GraphSource
from tflint.registry import OpRegistry

INVALID_GRAPH = "invalid-graph"


class RuleCrash(Exception):
    """A rule raised: a bug in tflint (or a plugin), reported as exit 2, not as findings."""

    def __init__(self, rule_id: str, path: str, error: BaseException) -> None:
        super().__init__(f"internal error in rule {rule_id} on {path}: {type(error).__name__}: {error}")
        self.rule_id = rule_id
        self.path = path
        self.error = error

    def __reduce__(self) -> tuple:
        # Crosses back from -j worker processes; the original error as text is enough there.
        return (RuleCrash, (self.rule_id, self.path, RuntimeError(f"{type(self.error).__name__}: {self.error}")))


def lint_artifact(artifact: Artifact, config: Config, registry: OpRegistry, progress: Callable[[str], None] | None = None) -> list[Finding]:
    """Every finding for one loaded file, sorted, after the file's inline suppressions.

    `progress` (if given) is called with the id of each rule as it starts,
    so a front end can show where a long run on a huge graph is.
    """
    if artifact.failure is not None:
        failure = artifact.failure
        kind = artifact.message_type or "graph"
        form = f"{artifact.form} " if artifact.form else ""
        return [
            Finding(
                rule=INVALID_GRAPH,
                severity=Severity.ERROR,
                message=f"cannot read {form}{kind}: {failure.message}",
                file=artifact.path,
                line=failure.line,
                column=failure.column,
            )
        ]
    findings: list[Finding] = []
    for source in artifact.graphs:
        index = build_index(source, registry, artifact)
        findings.extend(run_rules(index, config, artifact.path, source.label, progress))
    findings.sort(key=Finding.sort_key)
    if artifact.text is not None:
        from tflint.suppress import apply_inline

        findings = apply_inline(findings, artifact.text, artifact.path, config)
    return findings


def build_index(source: GraphSource, registry: OpRegistry, artifact: Artifact | None = None) -> GraphIndex:
    """The GraphIndex of one graph, with its stripped_op_list layered over `registry`."""
    if source.op_list is not None and len(source.op_list.op):
        registry = registry.with_op_list("stripped_op_list", source.op_list)
    return GraphIndex(
        source.graph,
        registry,
        nodes=source.node_list(),
        label=source.label,
        meta_graph=source.meta_graph,
        positions=source.positions,
        graph_id=source.graph_id,
        artifact=artifact,
    )


def run_rules(index: GraphIndex, config: Config, path: str, label: str | None, progress: Callable[[str], None] | None = None) -> Iterator[Finding]:
    """Run each enabled rule (built-in or from an enabled plugin) on `index`; turn its issues into findings."""
    rules = config.modules
    for rule_id, rule_config in config.enabled():
        module = rules[rule_id]
        if progress is not None:
            progress(rule_id)
        try:
            issues = list(module.check(index, rule_config.options))
        except Exception as error:  # a rule bug must surface as one clear line, not a traceback
            raise RuleCrash(rule_id, path, error) from error
        yield from _findings(rule_id, rule_config, issues, index, path, label)


def _findings(rule_id: str, rule_config: RuleConfig, issues: Iterable[Issue], index: GraphIndex, path: str, label: str | None) -> Iterator[Finding]:
    for issue in issues:
        node: Node | None = issue.node
        node_name = node.name if node is not None else None
        if rule_config.ignores(node_name):
            continue
        line, column = _position(issue, index)
        severity = rule_config.severity
        if issue.severity is not None and not rule_config.level_set:
            severity = issue.severity
        if severity == Severity.OFF:
            continue
        yield Finding(
            rule=rule_id,
            severity=severity,
            message=issue.message,
            file=path,
            line=line,
            column=column,
            node=node_name,
            function=node.function if node is not None else issue.function,
            graph=label,
        )


def _position(issue: Issue, index: GraphIndex) -> tuple[int | None, int | None]:
    if issue.position is not None:
        return issue.position
    node: Any = issue.node
    if node is None:
        if issue.function is not None:
            for scope in index.function_scopes:
                if scope.name == issue.function:
                    where = index.function_position(scope.function_ordinal)
                    if where:
                        return where
        return None, None
    if issue.field is not None:
        where = node.attr_position(issue.field)
        if where is not None:
            return where
    return node.line, node.column
