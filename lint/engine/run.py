"""The engine: runs the enabled rules over each graph of an artifact and builds Findings.

Rules yield small Issues; only here do they get a rule id, the configured
severity, a file and a position. Findings are returned sorted, so output is
deterministic whatever order rules run in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, cast

from tflint.config.settings import Config, RuleConfig
from tflint.finding import Finding, Issue, Severity
from tflint.read.load import Artifact, GraphSource
from tflint.runtime import user_regex
from tflint.tf.functions import called_functions
from tflint.tf.index import GraphIndex, Node
from tflint.tf.registry import OpRegistry

INVALID_GRAPH = "invalid-graph"
# The category of the rules that compare two versions of a model instead of checking one graph.
COMPAT = "compat"
NOT_A_GRAPH = "not-a-graph"
UNSUPPORTED_FORMAT = "unsupported-format"

# Added to a finding inside a library function that nothing instantiates (see CalledFunctions).
NEVER_CALLED = "never called: TF does not check it at import; calling it would fail"


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


def lint_artifact(
    artifact: Artifact,
    config: Config,
    registry: OpRegistry,
    progress: Callable[[str], None] | None = None,
    workers: int = 1,
) -> list[Finding]:
    """Every finding for one loaded file, sorted, after the file's inline suppressions.

    `progress` (if given) is called with the id of each rule as it starts,
    so a front end can show where a long run on a huge graph is. `workers`
    > 1 lets a big graph's rules run in that many processes (see run_rules_forked).
    """
    if artifact.skipped is not None or artifact.unsupported is not None:
        return _file_level(artifact, config)
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
    interface = config.interface_for(artifact.path) if config.interfaces else None
    user_regex.reset_budget()  # user patterns share one time budget per file, whatever its node count
    for source in artifact.graphs:
        index = build_index(source, registry, artifact, config.import_args, interface)
        try:
            if workers > 1 and len(index.nodes) >= FORK_MIN_NODES:
                findings.extend(run_rules_forked(index, config, artifact.path, source.label, workers, progress))
            else:
                findings.extend(run_rules(index, config, artifact.path, source.label, progress))
        finally:
            index.release()
    findings.sort(key=Finding.sort_key)
    if artifact.text is not None:
        from tflint.engine.suppress import apply_inline

        findings = apply_inline(findings, artifact.text, artifact.path, config, _linting(config))
    return findings


def is_compat_rule(rule_id: str, modules: Mapping[str, Any]) -> bool:
    """Whether the rule compares two versions of a model (runs in `tflint compat`) rather than checking one graph."""
    module = modules.get(rule_id)
    return module is not None and getattr(module, "CATEGORY", None) == COMPAT


def _linting(config: Config) -> Callable[[str], bool]:
    """The rules a lint runs, for judging suppressions: all but the compat rules."""
    modules = config.modules
    return lambda rule_id: not is_compat_rule(rule_id, modules)


def _file_level(artifact: Artifact, config: Config) -> list[Finding]:
    """The finding for a file that is not linted: not a graph, or a graph tflint cannot read yet.

    Text files point at their start; binary ones, as ever, have no lines.
    """
    if artifact.skipped is not None:
        rule, message = NOT_A_GRAPH, f"not a TensorFlow graph: {artifact.skipped}; not linted"
    else:
        rule, message = UNSUPPORTED_FORMAT, f"{artifact.unsupported}: not linted"
    setting = config.rules.get(rule)
    if setting is None or setting.severity == Severity.OFF:
        return []
    line = None if artifact.form == "binary" else 1
    return [Finding(rule, setting.severity, message, artifact.path, line, line)]


def build_index(
    source: GraphSource,
    registry: OpRegistry,
    artifact: Artifact | None = None,
    imports: Any = None,
    interface: Any = None,
) -> GraphIndex:
    """The GraphIndex of one graph, with its stripped_op_list layered over `registry` (and how it is imported)."""
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
        imports=imports,
        interface=interface,
    )


def run_rules(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    progress: Callable[[str], None] | None = None,
    only: set[str] | None = None,
) -> Iterator[Finding]:
    """Run each enabled rule (built-in or from an enabled plugin; those in `only`, if given) on `index`; turn its issues into findings."""
    rules = config.modules
    for rule_id, rule_config in config.enabled():
        if only is not None and rule_id not in only:
            continue
        module = rules[rule_id]
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
    except Exception as error:  # a rule bug must surface as one clear line, not a traceback
        raise RuleCrash(rule_id, path, error) from error


# The most findings one rule reports on one node, and in one graph. A few bytes of input can
# make a rule repeat itself without end (a million `^a` control inputs on one node): past these,
# the rest are counted, not reported, and one summary finding says how many were left out. The
# output grows with what is wrong, never with how often the input repeats it.
MAX_PER_NODE = 100
MAX_PER_GRAPH = 10_000


# Below this many nodes a graph's rules take less time than starting a process costs.
FORK_MIN_NODES = 20_000

# Roughly how long each rule takes on a large graph, in hundredths of a second per 100k nodes
# (bench/, a generated graph; other rules: about 1). Only used to hand out the costliest rules
# first in run_rules_forked, so no process is left with a long one at the end.
_RELATIVE_COST = {
    "shape-mismatch": 25,
    "type-attr-consistency": 12,
    "tensor-content": 12,
    "cycle": 10,
    "output-index-out-of-range": 5,
    "invalid-shape": 5,
    "missing-attr": 4,
    "input-count": 4,
    "node-name-syntax": 3,
    "unresolved-input": 3,
    "input-syntax": 2,
    "colocation-unresolved": 2,
    "control-input-order": 2,
}
# Rules that read one shared analysis (tflint.tf.attrs.attr_report) run in the same process, so it is built once.
_RUN_TOGETHER = ("missing-attr", "unknown-attr", "attr-type-mismatch", "allowed-values", "attr-minimum")


def run_rules_forked(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    workers: int,
    progress: Callable[[str], None] | None = None,
) -> list[Finding]:
    """Run the enabled rules shared among `workers` processes: this one and forked children.

    The children inherit the built index (fork shares its memory), so only
    their findings cross back, pickled through a pipe. The rules wait in a
    queue (another pipe, one entry per unit of rule_units, costliest first)
    from which every process takes the next one when it is done with its
    last: how long a rule takes varies with the graph, so no split made in
    advance keeps the processes equally busy. Analyses most rules share
    (signatures) are built first, so no child has to build its own.
    Findings are the same as run_rules' (the caller sorts them).
    """
    import os
    import pickle
    from functools import partial

    from tflint.runtime import fork as forked
    from tflint.tf.op_signatures import signatures

    signatures(index).table()
    units = rule_units([rule_id for rule_id, _ in config.enabled()])
    if len(units) > _MAX_QUEUED:  # a pipe holds at least a page; plugins could add rules without end
        units[_MAX_QUEUED - 1 :] = [[rule_id for unit in units[_MAX_QUEUED - 1 :] for rule_id in unit]]
    queue_read, queue_write = os.pipe()
    try:
        # Written whole before anyone reads (far below a pipe's capacity): a read of one entry
        # returns one whole entry or, once the queue is empty, end of file.
        os.write(queue_write, b"".join(number.to_bytes(_ENTRY, "little") for number in range(len(units))))
    finally:
        os.close(queue_write)
    children: list[forked.Child] = []
    try:
        for _ in range(workers - 1):
            children.append(
                forked.start(partial(_run_queued_in_child, index, config, path, label, units, queue_read), pickle)
            )
        findings = _run_queued(index, config, path, label, units, queue_read, progress)
    except BaseException:
        for child in children:
            child.stop()
        raise
    finally:
        os.close(queue_read)
    for number, child in enumerate(children):
        try:
            result = child.result()
            if isinstance(result, RuleCrash):
                raise result
        except BaseException:
            for other in children[number + 1 :]:
                other.stop()
            raise
        findings.extend(result)
    return findings


# Bytes per entry of run_rules_forked's queue (the number of a unit of rules), and the most entries.
_ENTRY = 2
_MAX_QUEUED = 1024


def rule_units(rule_ids: list[str]) -> list[list[str]]:
    """`rule_ids` as units of work for run_rules_forked, costliest first.

    A unit is one rule, or the rules that share an analysis built on first use.
    """
    units: list[list[str]] = [[rule_id] for rule_id in rule_ids if rule_id not in _RUN_TOGETHER]
    together = [rule_id for rule_id in rule_ids if rule_id in _RUN_TOGETHER]
    if together:
        units.append(together)
    return sorted(units, key=lambda unit: -sum(_RELATIVE_COST.get(rule_id, 1) for rule_id in unit))


def _run_queued(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    units: list[list[str]],
    queue: int,
    progress: Callable[[str], None] | None = None,
) -> list[Finding]:
    """Take units of rules from `queue` and run them until it is empty; their findings."""
    import os

    findings: list[Finding] = []
    while True:
        entry = os.read(queue, _ENTRY)
        if not entry:
            return findings
        findings.extend(
            run_rules(index, config, path, label, progress, only=set(units[int.from_bytes(entry, "little")]))
        )


def _run_queued_in_child(
    index: GraphIndex, config: Config, path: str, label: str | None, units: list[list[str]], queue: int
) -> list[Finding] | RuleCrash:
    """_run_queued in a forked child: a rule's crash is returned, to be raised in the parent."""
    try:
        return _run_queued(index, config, path, label, units, queue)
    except RuleCrash as crash:
        return crash


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
        line, column = _position(issue, index)
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
        )
    for (node_name, function), (count, severity, first) in left_out.items():
        line, column = _position(first, index)
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


def _position(issue: Issue, index: GraphIndex) -> tuple[int | None, int | None]:
    if issue.position is not None:
        return issue.position
    node: Any = issue.node
    if node is None:
        if issue.function is not None:
            for scope in index.function_scopes:
                if scope.name == issue.function:
                    where = index.function_position(cast(int, scope.function_ordinal))
                    if where:
                        return where
        return None, None
    if issue.field is not None:
        attr_where: tuple[int, int] | None = node.attr_position(issue.field)
        if attr_where is not None:
            return attr_where
    return node.line, node.column
