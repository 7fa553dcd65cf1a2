"""Comparing two versions of a model: the `compat` rules run over their interfaces, Findings land in the new one.

The rules of category `compat` compare an old and a new version of a model
(a `tflint.tf.compat.VersionPair`) instead of checking one graph; they run
only here, and the other rules never run here. Their issues become
Findings exactly as the other rules' do (the rule's configured level, its
`ignore-nodes`, the new version's inline suppressions), located in the new
version's file: at the signature entry, dtype or shape they are about when
the file is text, else at the file with the meta graph named.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tflint.config.registry import registry_for
from tflint.config.resolve import ConfigCache
from tflint.config.settings import Config, RuleConfig
from tflint.engine.findings import MAX_PER_GRAPH, RuleCrash
from tflint.engine.findings import is_compat_rule as is_compat_rule  # re-exported (tflint.api imports it from here)
from tflint.engine.place import locator_of, meta_position
from tflint.engine.run import lint_artifact
from tflint.errors import UsageError
from tflint.finding import Finding, Issue, Severity
from tflint.read.interface import ModelVersion, read_version
from tflint.read.meta_positions import Locator
from tflint.runtime import process
from tflint.tf.compat import Interface, VersionPair, Where, meta_interface
from tflint.tf.registry import OpRegistry


def interface_of(version: ModelVersion) -> Interface:
    """The interface of a version that was read: its meta graphs by tag set.

    Of two meta graphs with the same tag set the first counts, as TensorFlow's
    loader takes the first that matches.
    """
    metas: dict[Any, Any] = {}
    for source in version.artifact.graphs:
        if source.meta_graph is None:
            continue
        nodes = {node.name: node for node in source.node_list()}
        meta = meta_interface(source.meta_graph, source.graph_id, source.label, nodes.get)
        metas.setdefault(meta.tags, meta)
    return Interface(version.name, metas)


def compare_versions(old: ModelVersion, new: ModelVersion, config: Config, registry: OpRegistry) -> list[Finding]:
    """Every finding of the enabled compat rules for `new` against `old`, sorted, after `new`'s suppressions.

    A version that does not parse is an `invalid-graph` finding in its own file, and nothing is compared.
    """
    unreadable = [version for version in (old, new) if version.artifact.failure is not None]
    if unreadable:
        return sorted(
            (finding for version in unreadable for finding in lint_artifact(version.artifact, config, registry)),
            key=Finding.sort_key,
        )
    pair = VersionPair(interface_of(old), interface_of(new), registry)
    path = new.artifact.path
    locator = locator_of(new.artifact)
    findings: list[Finding] = []
    for rule_id, rule_config in config.enabled():
        if not is_compat_rule(rule_id, config.modules):
            continue
        try:
            issues = list(config.modules[rule_id].check(pair, rule_config.options))
        except Exception as error:  # a rule bug must surface as one clear line, not a traceback
            raise RuleCrash(rule_id, path, error) from error
        findings.extend(_findings(rule_id, rule_config, issues, path, locator))
    findings.sort(key=Finding.sort_key)
    if new.artifact.text is not None:
        from tflint.engine.suppress import apply_inline

        findings = apply_inline(
            findings,
            new.artifact.text,
            path,
            config,
            judged=lambda rule: is_compat_rule(rule, config.modules),
            report_problems=False,
        )
    return findings


def compare_paths(
    pairs: Iterable[tuple[str, str]], configs: ConfigCache, op_defs: Sequence[str] = (), input_type: str | None = None
) -> list[tuple[str, Config, list[Finding]]]:
    """(the new version's file, its config, the findings) for each (old, new) pair of paths, read and compared.

    Each pair runs with the configuration of its new version. Raises UsageError for two versions
    of different kinds (a SavedModel against a MetaGraphDef).
    """
    compared: list[tuple[str, Config, list[Finding]]] = []
    for old_path, new_path in pairs:
        resolved = configs.for_path(new_path)
        registry = registry_for(resolved, op_defs)
        with process.collector_paused():
            old_version = read_version(old_path, input_type)
            new_version = read_version(new_path, input_type)
            kinds = (old_version.artifact.message_type, new_version.artifact.message_type)
            if None not in kinds and kinds[0] != kinds[1]:
                raise UsageError(
                    f"{old_path} is a {kinds[0]} and {new_path} a {kinds[1]}: compare two versions of the same kind"
                )
            if old_version.name == new_version.name:  # models/a/1 against models/b/1: the paths tell them apart
                old_version.name, new_version.name = old_path, new_path
            findings = compare_versions(old_version, new_version, resolved, registry)
        compared.append((new_version.artifact.path, resolved, findings))
    return compared


def _findings(
    rule_id: str, rule_config: RuleConfig, issues: Iterable[Issue], path: str, locator: Locator | None
) -> Iterator[Finding]:
    """The findings of a compat rule's issues: at most MAX_PER_GRAPH, as for a graph, and one that counts the rest."""
    reported = left_out = 0
    worst = Severity.OFF
    for issue in issues:
        node_name = issue.node.name if issue.node is not None else None
        if rule_config.ignores(node_name):
            continue
        severity = rule_config.severity
        if issue.severity is not None and not rule_config.level_set:
            severity = issue.severity
        if severity == Severity.OFF:
            continue
        if reported >= MAX_PER_GRAPH:
            left_out += 1
            worst = max(worst, severity)
            continue
        reported += 1
        where: Where | None = issue.where
        label = where.label if where is not None else None
        line = column = None
        if where is not None and where.meta is not None:
            label = label or where.meta.label
            # Past the element itself, a removed input or output points at the tag set, else the meta graph.
            found = meta_position(locator, where.meta.ordinal, (*where.at, ("tags",), ("meta",)))
            if found is not None:
                line, column = found
        yield Finding(
            rule=rule_id,
            severity=severity,
            message=issue.message,
            file=path,
            line=line,
            column=column,
            node=node_name,
            graph=label,
        )
    if left_out:
        yield Finding(
            rule=rule_id,
            severity=worst,
            message=f"... and {left_out:,} more {rule_id} findings in this comparison"
            f" (at most {MAX_PER_GRAPH:,} are reported per rule and graph)",
            file=path,
        )
