"""The engine: lint one file (lint_path) or one loaded artifact (lint_artifact) into sorted Findings.

Rules run over each graph of the artifact (tflint.engine.findings, in several
processes for a big graph: tflint.engine.parallel), then the file's inline
suppressions apply (tflint.engine.suppress). Findings are returned sorted, so
output is deterministic whatever order rules run in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tflint.config.settings import Config
from tflint.engine.findings import NEVER_CALLED as NEVER_CALLED  # where tests and callers have found it
from tflint.engine.findings import RuleLevel, configured, file_findings, is_compat_rule
from tflint.engine.parallel import run_graph_rules
from tflint.finding import Finding
from tflint.read.load import Artifact, GraphSource, load_path
from tflint.runtime import process, user_regex
from tflint.tf.index import GraphIndex
from tflint.tf.registry import OpRegistry

# What the rules that report unreadable files check (their CHECKS): the Artifact whose failure is set.
UNREADABLE = "unreadable-file"
# What the rules that report files not linted check: an Artifact that is not a graph, or one tflint cannot read yet.
UNLINTED = "unlinted-file"


def lint_path(
    path: str,
    config: Config,
    registry: OpRegistry,
    input_type: str | None,
    stdin_name: str,
    rule_progress: Callable[[str], None] | None = None,
    rule_workers: int = 1,
) -> tuple[str, list[Finding], str | None]:
    """Load and lint one file: (the name it is shown under, its findings, what it holds if not a graph)."""
    with process.collector_paused():
        artifact = load_path(path, input_type, stdin_name=stdin_name, workers=rule_workers)
        findings = lint_artifact(artifact, config, registry, rule_progress, rule_workers)
        process.keep_if_retaining(artifact)
    return artifact.path, findings, artifact.skipped


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
    > 1 lets a big graph's rules run in that many processes (tflint.engine.parallel).
    """
    if artifact.skipped is not None or artifact.unsupported is not None:
        return sorted(file_findings(UNLINTED, artifact, artifact.path, configured(config)), key=Finding.sort_key)
    if artifact.failure is not None:
        # A file that could not be read never passes silently: its rules run whatever the config says.
        always: list[RuleLevel] = [
            (rule_id, module, module.DEFAULT_SEVERITY, {}) for rule_id, module in config.modules.items()
        ]
        return sorted(file_findings(UNREADABLE, artifact, artifact.path, always), key=Finding.sort_key)
    findings: list[Finding] = []
    interface = config.interface_for(artifact.path) if config.interfaces else None
    user_regex.reset_budget()  # user patterns share one time budget per file, whatever its node count
    for source in artifact.graphs:
        index = build_index(source, registry, artifact, config.import_args, interface)
        try:
            findings.extend(run_graph_rules(index, config, artifact.path, source.label, workers, progress))
        finally:
            index.release()
    findings.sort(key=Finding.sort_key)
    if artifact.text is not None:
        from tflint.engine.suppress import apply_inline

        findings = apply_inline(findings, artifact.text, artifact.path, config, _linting(config))
    return findings


def _linting(config: Config) -> Callable[[str], bool]:
    """The rules a lint runs, for judging suppressions: all but the compat rules."""
    modules = config.modules
    return lambda rule_id: not is_compat_rule(rule_id, modules)


def build_index(
    source: GraphSource,
    registry: OpRegistry,
    artifact: Artifact | None = None,
    imports: Any = None,
    interface: Any = None,
) -> GraphIndex:
    """The GraphIndex of one graph, with its stripped_op_list layered over `registry` (and how it is
    imported)."""
    if source.op_list is not None and len(source.op_list.op):
        registry = registry.with_op_list("stripped_op_list", source.op_list)
    return GraphIndex(
        source.graph,
        registry,
        nodes=source.node_list(),
        inputs_by_raw=source.inputs_by_raw,
        label=source.label,
        meta_graph=source.meta_graph,
        positions=source.positions,
        graph_id=source.graph_id,
        artifact=artifact,
        imports=imports,
        interface=interface,
    )
