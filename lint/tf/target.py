"""What an older TensorFlow release's importer does with a graph written by a newer one.

Each check follows what the release's graph importer was measured to do
(tools/check_target_tf.py imports graphs into the real releases; its summary
is docs/target-tf.md):

- an op its registry lacks: `Op type not registered 'X' in binary running on
  ...` (a call to a function of the graph's library is not an op);
- an attr its OpDef lacks: `NodeDef mentions attr 'X' not in Op<...>` up to
  TF 2.4; from TF 2.5 on the importer logs "Unknown attributes will be
  ignored" and drops the attr, which changes nothing when its value is the
  newer OpDef's default and silently changes the computation otherwise.
  Importing a MetaGraphDef (or a SavedModel) first removes the graph's
  top-level unknown attrs whose value equals the default its
  `stripped_op_list` gives them (importer._RemoveDefaultAttrs);
- a value of the wrong kind, outside the allowed values, below the minimum,
  and a required attr (no default there) that the graph omits
  (`ValidateNodeDef`);
- GraphDef `versions` it refuses (`CheckVersions`): a producer below its
  minimum producer, a `min_consumer` above its own GraphDef version, or its
  version listed in `bad_consumers`;
- a node name with `>` (TF 1.15's `IsValidNodeName`; 2.0 added it);
- loading a MetaGraphDef without `saver_def` (`import_meta_graph`): the
  default Saver it builds over the saved collections refuses an op or a
  non-variable tensor there. Every release does, the newest included: a
  target run judges the release's loader, a run without one the graph.

Problems the newest bundled TensorFlow has too are left to the ordinary
rules (unknown-op, missing-attr, ...): a target problem is one that only the
older release has. An op that only older releases register (`TRTEngineOp`)
is judged by each target's OpDef, and unknown-op leaves it alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tflint.finding import Issue, Severity, at_field
from tflint.records import record, replace
from tflint.tf.attrs import AttrSpec, quote_string, type_name
from tflint.tf.index import GraphIndex
from tflint.tf.node import FUNCTION_NODE_NAME, GRAPH_NODE_NAME, Node
from tflint.tf.registry import bundled_ops
from tflint.tf.releases import (
    Release,
    first_release_with_attr,
    first_release_with_op,
    last_release_with_op,
    release_key,
)

# The first release whose importer ignores (logs and drops) an attr its OpDef lacks instead of failing.
IGNORES_UNKNOWN_ATTRS = (2, 5)
# The first release whose node-name grammar (IsValidNodeName) has `>`-joined segments: TF 1.15 refuses `a>b`
# (measured on every bundled release: 1.15 refuses, 2.0 to 2.21 accept).
NAME_SEGMENTS = (2, 0)
# The op types import_meta_graph's default Saver accepts as a tensor to save (saveable_object_util._VARIABLE_OPS).
_VARIABLE_OPS = frozenset({"Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp"})
# The collections that Saver saves (GraphKeys.GLOBAL_VARIABLES, GraphKeys.SAVEABLE_OBJECTS).
_SAVER_COLLECTIONS = ("variables", "saveable_objects")

OP_MISSING = "op-missing"
ATTR_UNKNOWN = "attr-unknown"  # the release refuses the graph
ATTR_IGNORED = "attr-ignored"  # the release imports it without the attr, and the attr was not its default
ATTR_VALUE = "attr-value"
ATTR_MISSING = "attr-missing"
VERSIONS = "versions"
NODE_NAME = "node-name"
SAVER = "saver"


@record(frozen=True)
class Problem:
    """One reason a release's importer refuses (or changes) a graph.

    `text` does not name the release (a rule joins the releases sharing a
    problem); `requirement` is the short reason `--min-tf` gives ("op Conv");
    `fixable` says that stripping attrs equal to their default removes it;
    `deferred` that the importer does not look (an attr in a function body of
    a GraphDef), so the graph imports and fails when the function first runs.
    """

    kind: str
    node: Node | None
    field: str | None
    text: str
    requirement: str
    fixable: bool
    deferred: bool  # in a function body of a graph (not a SavedModel): the import succeeds, a run fails
    built: bool  # in a function body tf.saved_model.load builds, called or not

    def __init__(
        self,
        kind: str,
        node: Node | None,
        field: str | None,
        text: str,
        requirement: str,
        fixable: bool = False,
        deferred: bool = False,
        built: bool = False,
    ) -> None:
        vars(self).update(
            kind=kind,
            node=node,
            field=field,
            text=text,
            requirement=requirement,
            fixable=fixable,
            deferred=deferred,
            built=built,
        )


def problems(graph: GraphIndex, release: Release) -> list[Problem]:
    """Every problem `release`'s importer has with `graph` (computed once per graph and release)."""
    cache = graph.derived(_ProblemCache)
    found = cache.by_release.get(release.name)
    if found is None:
        found = cache.by_release[release.name] = _problems(graph, release)
    return found


class _ProblemCache:
    def __init__(self, graph: GraphIndex) -> None:
        self.by_release: dict[str, list[Problem]] = {}


def _problems(graph: GraphIndex, release: Release) -> list[Problem]:
    found: list[Problem] = []
    newest = bundled_ops()
    ignores = release.key() >= IGNORES_UNKNOWN_ATTRS
    producer_ops = _stripped_op_list(graph)
    specs: dict[tuple[str, str, str], AttrSpec] = {}
    # tf.saved_model.load builds every function of the library (validating its nodes); importing a
    # GraphDef or MetaGraphDef only registers them (measured on TF 2.4: an unknown attr there imports).
    builds_functions = getattr(graph.artifact, "message_type", None) == "SavedModel"
    for scope in graph.scopes():
        in_function = scope.function is not None
        for node in scope.nodes:
            op = node.op
            if op in graph.function_by_name:
                continue
            new_def = newest.get(op)
            old_def = release.ops.get(op)
            if new_def is None and not any(op in target.ops for target in graph.registry.targets):
                continue  # unknown to the newest TF and to every target: unknown-op's business
            if old_def is None:
                added = first_release_with_op(op)
                since = f"; it was added in TF {added}" if added else ""
                if new_def is None:  # an op of older releases only (TRTEngineOp: the GPU wheels up to 2.11)
                    since = f"; only TF {added} to {last_release_with_op(op)} register it"
                # Checked when the library is added, called or not (measured: TF 1.15 refuses a GraphDef
                # whose function body uses an op it lacks).
                found.append(
                    Problem(
                        OP_MISSING,
                        node,
                        None,
                        f"Node '{node.name}': op {op} is not registered{since}",
                        f"op {op}",
                        built=in_function,
                    )
                )
                continue
            attr_problems = _attr_problems(node, op, old_def, new_def, ignores, in_function, producer_ops, specs)
            if in_function and not builds_functions:
                attr_problems = [_deferred(problem) for problem in attr_problems]
            elif in_function:
                attr_problems = [replace(problem, built=True) for problem in attr_problems]
            found.extend(attr_problems)
    found.extend(_version_problems(graph, release))
    if release.key() < NAME_SEGMENTS:
        found.extend(_name_problems(graph, builds_functions))
    found.extend(_saver_problems(graph))
    return found


def _name_problems(graph: GraphIndex, builds_functions: bool) -> list[Problem]:
    """Nodes named with `>` (legal since TF 2.0; a name otherwise bad is node-name-syntax's).

    Measured on TF 1.15: a top-level node fails the import; a function body's node fails when the function
    is instantiated (at import when a node calls it; an uncalled function imports), so a finding in a body
    is left to the engine's called-functions rule, except in a SavedModel, whose loader builds them all.
    """
    found = []
    for scope in graph.scopes():
        in_function = scope.function is not None
        grammar = FUNCTION_NODE_NAME if in_function else GRAPH_NODE_NAME
        for node in scope.nodes:
            if ">" in node.name and grammar.fullmatch(node.name):
                found.append(
                    Problem(
                        NODE_NAME,
                        node,
                        "name",
                        f"Node name '{node.name}' contains '>', which that release's node-name grammar lacks "
                        "(TF 2.0 added it)",
                        f"node name with '>' ({node.name})",
                        built=in_function and builds_functions,
                    )
                )
    return found


def _saver_problems(graph: GraphIndex) -> list[Problem]:
    """What import_meta_graph's default Saver refuses in a MetaGraphDef without a saver_def.

    Without a saver_def, import_meta_graph (and the TF1 SavedModel loader) builds `Saver()` over the
    restored `variables` and `saveable_objects` collections; a node_list entry naming an op rather than a
    tensor (`TypeError: can't convert Operation 'dense' to Tensor`), or a tensor of an op that is not a
    variable (`Variable to save is not a Variable`), fails it. Measured on every bundled release, 1.15 to
    2.21, after the graph itself imported.
    """
    meta = graph.meta_graph
    if meta is None or meta.HasField("saver_def"):
        return []
    found = []
    for key in _SAVER_COLLECTIONS:
        if key not in meta.collection_def or meta.collection_def[key].WhichOneof("kind") != "node_list":
            continue
        for entry in meta.collection_def[key].node_list.value:
            name, colon, _ = entry.partition(":")
            node = graph.node(name)
            if node is None or (colon and node.op in _VARIABLE_OPS):
                continue  # a missing node fails restoring the collection, before the Saver (not modelled)
            what = "a tensor of a non-variable op" if colon else "an op, not a tensor"
            found.append(
                Problem(
                    SAVER,
                    node,
                    None,
                    f"collection '{key}' lists '{entry}' ({node.op}), {what}: import_meta_graph builds a "
                    "default Saver (no saver_def) and fails on it",
                    f"collection '{key}' entry '{entry}'",
                )
            )
    return found


def _deferred(problem: Problem) -> Problem:
    if problem.kind == ATTR_IGNORED:
        return problem
    return Problem(
        problem.kind,
        problem.node,
        problem.field,
        problem.text + "; the graph imports (function bodies are checked when the function first runs), "
        "running the function fails",
        problem.requirement,
        problem.fixable,
        deferred=True,
    )


def _stripped_op_list(graph: GraphIndex) -> dict[str, Any]:
    meta = graph.meta_graph
    if meta is None or not meta.meta_info_def.HasField("stripped_op_list"):
        return {}
    return {op.name: op for op in meta.meta_info_def.stripped_op_list.op}


def _attr_problems(
    node: Node,
    op: str,
    old_def: Any,
    new_def: Any | None,
    ignores: bool,
    in_function: bool,
    producer_ops: dict[str, Any],
    specs: dict[tuple[str, str, str], AttrSpec],
) -> list[Problem]:
    found = []
    old_attrs = {attr.name: attr for attr in old_def.attr}
    # An op the newest TF lacks (one of older releases only) is judged by the release's OpDef alone.
    new_attrs = {attr.name: attr for attr in new_def.attr} if new_def is not None else {}
    attrs = node.attr
    for key in attrs:
        if key[:1] == "_":
            continue
        value = attrs[key]
        old = old_attrs.get(key)
        if old is None:
            new = new_attrs.get(key)
            if new is None and new_def is not None:
                continue  # unknown to the newest TF too: unknown-attr's business
            default = _default(new, producer_ops.get(op), key)
            is_default = default is not None and value == default
            if is_default and not in_function and op in producer_ops:
                continue  # importing a MetaGraphDef drops it first
            shown = attr_text(value)
            if not ignores:
                hint = (
                    "; it is the default: --fix strips it"
                    if is_default
                    else "; not the default: only a newer TF runs this node"
                )
                if new_def is None:
                    hint = ""  # an op of older releases only: no newer OpDef to compare with
                elif (op, key) == ("VarHandleOp", "debug_name") and not is_default:
                    # New releases label every variable so (for error messages); --fix keeps a non-default attr.
                    since = first_release_with_attr(op, key)
                    hint = f"; set by TF {since}+ on variables, not the default: drop it by hand"
                found.append(
                    Problem(
                        ATTR_UNKNOWN,
                        node,
                        key,
                        f"Node '{node.name}' ({op}): unknown attr '{key}' = {shown} there{hint}",
                        f"{op}.{key}" + ("" if is_default else " (not the default)"),
                        fixable=is_default,
                    )
                )
            elif not is_default:
                found.append(
                    Problem(
                        ATTR_IGNORED,
                        node,
                        key,
                        f"Node '{node.name}' ({op}): unknown attr '{key}' = {shown} there; "
                        "it imports the graph without it, so the node computes something else",
                        f"{op}.{key} (not the default)",
                    )
                )
            continue
        kind = value.WhichOneof("value")
        if kind == "placeholder" or kind is None:
            continue
        verdict = _spec(specs, op, old, "old").judge(value, kind)
        if verdict is None:
            continue
        new = new_attrs.get(key)
        if new is not None and _spec(specs, op, new, "new").judge(value, kind) is not None:
            continue  # the newest TF refuses it too
        for problem in (verdict.mismatch, verdict.minimum, verdict.allowed):
            if problem is not None:
                found.append(
                    Problem(
                        ATTR_VALUE,
                        node,
                        key,
                        f"Node '{node.name}' ({op}): attr '{key}' {problem} there",
                        f"{op}.{key} = {attr_text(value)}",
                    )
                )
    for attr in old_def.attr:
        if attr.name not in attrs and not attr.HasField("default_value"):
            new = new_attrs.get(attr.name)
            if new is None or new.HasField("default_value"):
                found.append(
                    Problem(
                        ATTR_MISSING,
                        node,
                        None,
                        f"Node '{node.name}' ({op}): attr '{attr.name}' ({attr.type}) is required there "
                        "(no default) but the graph omits it",
                        f"{op}.{attr.name} omitted",
                    )
                )
    return found


def _default(new: Any | None, producer: Any, key: str) -> Any:
    """The default the writer had for attr `key`: the stripped_op_list's if it has one, else the newest OpDef's."""
    for attr in producer.attr if producer is not None else ():
        if attr.name == key and attr.HasField("default_value"):
            return attr.default_value
    return new.default_value if new is not None and new.HasField("default_value") else None


def _spec(specs: dict[tuple[str, str, str], AttrSpec], op: str, attr_def: Any, side: str) -> AttrSpec:
    key = (op, attr_def.name, side)
    spec = specs.get(key)
    if spec is None:
        spec = specs[key] = AttrSpec(attr_def.name, [attr_def])
    return spec


def _version_problems(graph: GraphIndex, release: Release) -> list[Problem]:
    versions = graph.versions
    if versions is None:
        return []
    found = []
    if versions.producer < release.min_producer:
        found.append(
            Problem(
                VERSIONS,
                None,
                "versions",
                f"GraphDef producer {versions.producer} is below the oldest it imports ({release.min_producer})",
                f"producer {versions.producer}",
            )
        )
    if versions.min_consumer > release.graph_def_version:
        found.append(
            Problem(
                VERSIONS,
                None,
                "versions",
                f"GraphDef min_consumer {versions.min_consumer} is above its GraphDef version "
                f"{release.graph_def_version}",
                f"min_consumer {versions.min_consumer}",
            )
        )
    if release.graph_def_version in versions.bad_consumers:
        found.append(
            Problem(
                VERSIONS,
                None,
                "versions",
                f"GraphDef bad_consumers lists its GraphDef version {release.graph_def_version}",
                f"bad_consumers {release.graph_def_version}",
            )
        )
    return found


def attr_text(value: Any) -> str:
    """A short, escaped rendering of an AttrValue for messages: `1`, `true`, `"NHWC"`, `DT_FLOAT`, `[1, 2]`."""
    kind = value.WhichOneof("value")
    if kind == "s":
        return quote_string(value.s[:32]) + ("..." if len(value.s) > 32 else "")
    if kind == "b":
        return "true" if value.b else "false"
    if kind in ("i", "f"):
        return repr(getattr(value, kind))
    if kind == "type":
        return type_name(value.type)
    if kind == "list":
        for name in ("i", "f", "b", "s", "type"):
            items = list(getattr(value.list, name))
            if items:
                shown = [
                    quote_string(item) if name == "s" else type_name(item) if name == "type" else repr(item)
                    for item in items[:4]
                ]
                return "[" + ", ".join(shown) + (", ...]" if len(items) > 4 else "]")
        return "[]"
    if kind == "func":
        return f"function {quote_string(value.func.name.encode('utf-8', 'replace'))}"
    return f"a {kind}" if kind else "an empty value"


def target_issues(graph: GraphIndex, kinds: tuple[str, ...]) -> Iterator[Issue]:
    """The issues of the given kinds for the run's targets, one per problem, naming the releases it holds for."""
    merged: dict[tuple[Any, ...], tuple[Problem, list[Release]]] = {}
    for release in graph.registry.targets:
        for problem in problems(graph, release):
            if problem.kind in kinds:
                key = (id(problem.node), problem.field, problem.text)
                entry = merged.get(key)
                if entry is None:
                    merged[key] = (problem, [release])
                else:
                    entry[1].append(release)
    for problem, releases in merged.values():
        text = f"{label(releases)}: {problem.text}"
        if problem.node is None:
            yield Issue(None, text, problem.field, at=at_field(problem.field or "versions"))
        else:
            severity = Severity.WARNING if problem.deferred else None
            yield Issue(problem.node, text, problem.field, severity=severity, library=problem.built)


def label(releases: list[Release] | tuple[Release, ...]) -> str:
    """`TF 1.15, 2.4` for the releases a finding holds for, oldest first."""
    return "TF " + ", ".join(item.name for item in sorted(releases, key=lambda item: release_key(item.name)))
