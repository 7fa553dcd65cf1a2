"""Two ModelViews compared (`tflint diff`): what changed in nodes, functions, signatures, weights and cost.

Graphs are matched by tag set, functions by canonical name, nodes by name,
weights by variable name. A node removed and one added are a rename when the
structure says so: the same op, attrs and inputs (renames already found
applied, so a chain is followed); failing that the same inputs and a single
candidate each way (a node whose op was swapped, which TensorFlow names after
its op); failing that the same op and attrs read at the same places (a
renamed feed or Const, which have no inputs). A weight removed and one added
with the same content are a rename too. The serving-contract changes are `tflint compat`'s
findings, reported as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from tflint.engine.review import GraphView, ModelView, NodeView, SignatureView, Weight
from tflint.read.weights import Change
from tflint.records import record, replace

# A function body's input `node:out_arg:i`: the output arg is named after the producer's op.
_BODY_INPUT = re.compile(r"^(?P<node>[^:]+)(?::(?P<arg>[^:]+))?(?::(?P<index>\d+))?$")


@record(frozen=True)
class NodeChange:
    """A node present on both sides (perhaps renamed) whose op, inputs, control inputs, device or attrs changed.

    `fields` lists (what, old, new) for each difference: "op", "input 0", "control", "device", "attr T".
    """

    scope: str
    old_name: str
    new_name: str
    fields: tuple[tuple[str, str, str], ...]

    def __init__(self, scope: str, old_name: str, new_name: str, fields: tuple[tuple[str, str, str], ...]) -> None:
        vars(self).update(scope=scope, old_name=old_name, new_name=new_name, fields=fields)


@record(frozen=True)
class WeightChange:
    """A weight on both sides whose dtype, shape or content changed; `change` says how much (same size only)."""

    old: Weight
    new: Weight
    change: Change | None

    def __init__(self, old: Weight, new: Weight, change: Change | None) -> None:
        vars(self).update(old=old, new=new, change=change)


@record()
class GraphDiff:
    """What changed in one graph (a meta graph by its tags, or the GraphDef)."""

    label: str
    signatures_added: list[str]
    signatures_removed: list[str]
    signatures_changed: list[tuple[str, list[str]]]
    signatures_renamed: list[tuple[str, str]]
    functions_added: list[str]
    functions_removed: list[str]
    nodes_added: list[tuple[str, NodeView]]
    nodes_removed: list[tuple[str, NodeView]]
    nodes_changed: list[NodeChange]

    def __init__(
        self,
        label: str,
        signatures_added: list[str] | None = None,
        signatures_removed: list[str] | None = None,
        signatures_changed: list[tuple[str, list[str]]] | None = None,
        signatures_renamed: list[tuple[str, str]] | None = None,
        functions_added: list[str] | None = None,
        functions_removed: list[str] | None = None,
        nodes_added: list[tuple[str, NodeView]] | None = None,
        nodes_removed: list[tuple[str, NodeView]] | None = None,
        nodes_changed: list[NodeChange] | None = None,
    ) -> None:
        self.label = label
        self.signatures_added = signatures_added or []
        self.signatures_removed = signatures_removed or []
        self.signatures_changed = signatures_changed or []
        self.signatures_renamed = signatures_renamed or []
        self.functions_added = functions_added or []
        self.functions_removed = functions_removed or []
        self.nodes_added = nodes_added or []
        self.nodes_removed = nodes_removed or []
        self.nodes_changed = nodes_changed or []

    def empty(self) -> bool:
        return not any(
            (
                self.signatures_added,
                self.signatures_removed,
                self.signatures_changed,
                self.signatures_renamed,
                self.functions_added,
                self.functions_removed,
                self.nodes_added,
                self.nodes_removed,
                self.nodes_changed,
            )
        )


@record()
class ModelDiff:
    """Everything that changed between two versions of a model, and their summaries before and after."""

    old: ModelView
    new: ModelView
    graphs_added: list[str]
    graphs_removed: list[str]
    graphs: list[GraphDiff]
    weights_added: list[Weight]
    weights_removed: list[Weight]
    weights_renamed: list[tuple[Weight, Weight]]
    weights_changed: list[WeightChange]
    weights_unread: list[tuple[Weight, Weight]]
    compat: list[Any]

    def __init__(
        self,
        old: ModelView,
        new: ModelView,
        graphs_added: list[str] | None = None,
        graphs_removed: list[str] | None = None,
        graphs: list[GraphDiff] | None = None,
        weights_added: list[Weight] | None = None,
        weights_removed: list[Weight] | None = None,
        weights_renamed: list[tuple[Weight, Weight]] | None = None,
        weights_changed: list[WeightChange] | None = None,
        weights_unread: list[tuple[Weight, Weight]] | None = None,
        compat: list[Any] | None = None,
    ) -> None:
        self.old = old
        self.new = new
        self.graphs_added = graphs_added or []
        self.graphs_removed = graphs_removed or []
        self.graphs = graphs or []
        self.weights_added = weights_added or []
        self.weights_removed = weights_removed or []
        self.weights_renamed = weights_renamed or []
        self.weights_changed = weights_changed or []
        # Weights of the same form on both sides whose contents are still to compare (read_weights).
        self.weights_unread = weights_unread or []
        self.compat = compat or []

    @property
    def changed(self) -> bool:
        """Whether anything at all changed."""
        return bool(
            self.graphs_added
            or self.graphs_removed
            or any(not graph.empty() for graph in self.graphs)
            or self.weights_added
            or self.weights_removed
            or self.weights_renamed
            or self.weights_changed
            or self.compat
        )

    def ops_added(self) -> list[str]:
        return sorted(set(self.new.ops()) - set(self.old.ops()))

    def ops_removed(self) -> list[str]:
        return sorted(set(self.old.ops()) - set(self.new.ops()))


def diff_views(old: ModelView, new: ModelView) -> ModelDiff:
    """Compare two views: weights by form and digest, those left unread for `read_weights` to compare."""
    result = ModelDiff(old, new)
    old_graphs = {graph.label: graph for graph in old.graphs}
    new_graphs = {graph.label: graph for graph in new.graphs}
    if len(old.graphs) == 1 and len(new.graphs) == 1:
        # One graph each side: a meta graph whose tags changed is still the graph to compare.
        pairs = [(old.graphs[0], new.graphs[0])]
        if old.graphs[0].label != new.graphs[0].label:
            result.graphs_removed.append(old.graphs[0].label)
            result.graphs_added.append(new.graphs[0].label)
    else:
        result.graphs_removed = sorted(set(old_graphs) - set(new_graphs))
        result.graphs_added = sorted(set(new_graphs) - set(old_graphs))
        pairs = [(old_graphs[label], new_graphs[label]) for label in sorted(set(old_graphs) & set(new_graphs))]
    for old_graph, new_graph in pairs:
        result.graphs.append(_graph_diff(old_graph, new_graph))
    _weights(old.weights, new.weights, result)
    return result


def _graph_diff(old: GraphView, new: GraphView) -> GraphDiff:
    found = GraphDiff(new.label)
    found.signatures_removed = sorted(set(old.signatures) - set(new.signatures))
    found.signatures_added = sorted(set(new.signatures) - set(old.signatures))
    for key in list(found.signatures_removed):
        same = [
            other
            for other in found.signatures_added
            if _contract(new.signatures[other]) == _contract(old.signatures[key])
        ]
        if len(same) == 1:
            found.signatures_renamed.append((key, same[0]))
            found.signatures_removed.remove(key)
            found.signatures_added.remove(same[0])
    for key in sorted(set(old.signatures) & set(new.signatures)):
        changes = _signature_changes(old.signatures[key], new.signatures[key])
        if changes:
            found.signatures_changed.append((key, changes))
    functions = _function_renames(old, new)
    found.functions_removed = sorted(set(old.functions) - set(new.functions) - set(functions))
    found.functions_added = sorted(set(new.functions) - set(old.functions) - set(functions.values()))
    _nodes("graph", old.nodes, new.nodes, found, functions)
    pairs = [(name, name) for name in sorted(set(old.functions) & set(new.functions))] + sorted(functions.items())
    for old_name, new_name in pairs:
        _nodes(new_name, old.functions[old_name], new.functions[new_name], found, functions)
    return found


def _base(name: str) -> str:
    return name.partition("#")[0]


def _function_renames(old: GraphView, new: GraphView) -> dict[str, str]:
    """Old -> new canonical name of functions whose name alone changed: one trace of a base became several
    (or the reverse), and the content says which is which; or one function of a base each side."""
    removed = sorted(set(old.functions) - set(new.functions))
    added = sorted(set(new.functions) - set(old.functions))
    renames: dict[str, str] = {}
    for name in removed:
        same = [other for other in added if _base(other) == _base(name) and other not in renames.values()]
        by_content = [other for other in same if new.digests.get(other) == old.digests.get(name)]
        if by_content:
            renames[name] = by_content[0]
    # Traces whose content changed: paired within a base by how many nodes they share (name and op).
    for name in removed:
        if name in renames:
            continue
        right = [other for other in added if _base(other) == _base(name) and other not in renames.values()]
        if not right:
            continue
        before = {(node, view.op) for node, view in old.functions[name].items()}

        def shared(other: str, before: set[tuple[str, str]] = before) -> tuple[int, str]:
            after = {(node, view.op) for node, view in new.functions[other].items()}
            return len(before & after), other

        best = max(right, key=shared)
        if shared(best)[0] or len(right) == 1:
            renames[name] = best
    return renames


def _renamed_functions(text: str, functions: Mapping[str, str]) -> str:
    for old_name, new_name in functions.items():
        text = re.sub(rf"(?<![\w#-]){re.escape(old_name)}(?![\w#-])", new_name, text)
    return text


def _contract(signature: SignatureView) -> Any:
    """What a client of a signature relies on, its key aside: method, and each input's and output's dtype and shape."""
    return (
        signature.method,
        tuple((key, spec.dtype, spec.shape) for key, spec in signature.inputs.items()),
        tuple((key, spec.dtype, spec.shape) for key, spec in signature.outputs.items()),
    )


def _signature_changes(old: SignatureView, new: SignatureView) -> list[str]:
    from tflint.tf.op_signatures import dtype_name
    from tflint.tf.shapes.algebra import shape_text

    changes = []
    if old.method != new.method:
        changes.append(f"method {old.method} -> {new.method}")
    for direction, before, after in (("input", old.inputs, new.inputs), ("output", old.outputs, new.outputs)):
        for key in sorted(set(before) - set(after)):
            changes.append(f"{direction} {key} removed")
        for key in sorted(set(after) - set(before)):
            changes.append(f"{direction} {key} added")
        for key in sorted(set(before) & set(after)):
            a, b = before[key], after[key]
            if a.dtype != b.dtype:
                changes.append(f"{direction} {key} dtype {dtype_name(a.dtype)} -> {dtype_name(b.dtype)}")
            if a.shape != b.shape:
                changes.append(f"{direction} {key} shape {shape_text(a.shape)} -> {shape_text(b.shape)}")
    return changes


def _nodes(
    scope: str,
    old: Mapping[str, NodeView],
    new: Mapping[str, NodeView],
    found: GraphDiff,
    functions: Mapping[str, str],
) -> None:
    removed = {name: old[name] for name in old if name not in new}
    added = {name: new[name] for name in new if name not in old}
    renames = _renames(removed, added, scope != "graph", old, new)
    op_changed = {name for name, target in renames.items() if old[name].op != new[target].op}
    op_changed |= {name for name in old if name in new and old[name].op != new[name].op}
    for name in sorted(removed):
        if name not in renames:
            found.nodes_removed.append((scope, removed[name]))
    renamed_to = set(renames.values())
    for name in sorted(added):
        if name not in renamed_to:
            found.nodes_added.append((scope, added[name]))
    pairs = [(name, name) for name in sorted(set(old) & set(new))] + sorted(renames.items())
    for old_name, new_name in pairs:
        fields = _node_fields(old[old_name], new[new_name], renames, op_changed, scope != "graph", functions)
        if fields or old_name != new_name:
            found.nodes_changed.append(NodeChange(scope, old_name, new_name, tuple(fields)))


def _mapped_input(raw: str, renames: Mapping[str, str], op_changed: set[str], in_body: bool) -> str:
    """An old node's input as the new graph would name it: renamed producers, and (in a body) no output arg
    name for a producer whose op changed (the arg is named after the op)."""
    control = raw.startswith("^")
    text = raw[1:] if control else raw
    if not in_body:
        node, colon, index = text.partition(":")
        node = renames.get(node, node)
        return ("^" if control else "") + node + colon + index
    match = _BODY_INPUT.match(text)
    if match is None:
        return raw
    node = match.group("node")
    arg, index = match.group("arg"), match.group("index")
    if node in op_changed:
        arg = "*"
    node = renames.get(node, node)
    parts = [node] + [part for part in (arg, index) if part is not None]
    return ("^" if control else "") + ":".join(parts)


def _new_input(raw: str, op_changed_new: set[str], in_body: bool) -> str:
    if not in_body:
        return raw
    match = _BODY_INPUT.match(raw)
    if match is None or match.group("node") not in op_changed_new:
        return raw
    parts = [match.group("node"), "*"] + ([match.group("index")] if match.group("index") is not None else [])
    return ":".join(parts)


def _node_fields(
    old: NodeView,
    new: NodeView,
    renames: Mapping[str, str],
    op_changed: set[str],
    in_body: bool,
    functions: Mapping[str, str],
) -> list[tuple[str, str, str]]:
    fields = []
    if functions.get(old.op, old.op) != new.op:
        fields.append(("op", old.op, new.op))
    changed_new = {renames.get(name, name) for name in op_changed}
    old_inputs = [_mapped_input(raw, renames, op_changed, in_body) for raw in old.inputs]
    new_inputs = [_new_input(raw, changed_new, in_body) for raw in new.inputs]
    for position in range(max(len(old_inputs), len(new_inputs))):
        before = old_inputs[position] if position < len(old_inputs) else None
        after = new_inputs[position] if position < len(new_inputs) else None
        if before != after:
            shown_before = old.inputs[position] if position < len(old.inputs) else "(none)"
            shown_after = new.inputs[position] if position < len(new.inputs) else "(none)"
            fields.append((f"input {position}", shown_before, shown_after))
    old_control = {renames.get(name, name) for name in old.control}
    dropped, gained = sorted(old_control - set(new.control)), sorted(set(new.control) - old_control)
    if dropped:
        fields.append(("control removed", ", ".join(dropped), ""))
    if gained:
        fields.append(("control added", "", ", ".join(gained)))
    if old.device != new.device:
        fields.append(("device", old.device or "(none)", new.device or "(none)"))
    old_attrs = {key: _renamed_functions(text, functions) if functions else text for key, text in old.attrs}
    new_attrs = dict(new.attrs)
    for key in sorted(set(old_attrs) | set(new_attrs)):
        if old_attrs.get(key) != new_attrs.get(key):
            fields.append((f"attr {key}", old_attrs.get(key, "(default)"), new_attrs.get(key, "(default)")))
    return fields


def _renames(
    removed: Mapping[str, NodeView],
    added: Mapping[str, NodeView],
    in_body: bool,
    old_all: Mapping[str, NodeView] | None = None,
    new_all: Mapping[str, NodeView] | None = None,
) -> dict[str, str]:
    """Old name -> new name for removed and added nodes the structure pairs (see the module docstring)."""
    renames: dict[str, str] = {}
    for _ in range(8):  # each round can pair the consumers of the nodes the last one paired
        left = {name: view for name, view in removed.items() if name not in renames}
        taken = set(renames.values())
        right = {name: view for name, view in added.items() if name not in taken}
        if not left or not right:
            break
        paired = _pair(left, right, renames, in_body, exact=True)
        if not paired:
            break
        renames.update(paired)
    left = {name: view for name, view in removed.items() if name not in renames}
    taken = set(renames.values())
    right = {name: view for name, view in added.items() if name not in taken}
    if left and right:
        renames.update(_pair(left, right, renames, in_body, exact=False))
    left = {name: view for name, view in removed.items() if name not in renames}
    taken = set(renames.values())
    right = {name: view for name, view in added.items() if name not in taken}
    if left and right and old_all is not None and new_all is not None:
        renames.update(_pair_by_consumers(left, right, old_all, new_all, renames, in_body))
    return renames


def _consumers(nodes: Mapping[str, NodeView], in_body: bool) -> dict[str, list[tuple[str, int]]]:
    found: dict[str, list[tuple[str, int]]] = {}
    for name, view in nodes.items():
        for position, raw in enumerate(view.inputs):
            match = _BODY_INPUT.match(raw) if in_body else None
            producer = match.group("node") if match is not None else raw.split(":")[0]
            found.setdefault(producer, []).append((name, position))
    return found


def _pair_by_consumers(
    left: Mapping[str, NodeView],
    right: Mapping[str, NodeView],
    old_all: Mapping[str, NodeView],
    new_all: Mapping[str, NodeView],
    renames: Mapping[str, str],
    in_body: bool,
) -> dict[str, str]:
    """Nodes with the same op and attrs read at the same places (a renamed feed: `serving_default_x` -> `predict_x`)."""
    old_consumers, new_consumers = _consumers(old_all, in_body), _consumers(new_all, in_body)

    def key(view: NodeView, consumers: list[tuple[str, int]]) -> Any:
        return (view.op, view.attrs, view.device, tuple(sorted(consumers))) if consumers else None

    old_keys: dict[Any, list[str]] = {}
    for name, view in left.items():
        where = [(renames.get(consumer, consumer), position) for consumer, position in old_consumers.get(name, [])]
        k = key(view, where)
        if k is not None:
            old_keys.setdefault(k, []).append(name)
    new_keys: dict[Any, list[str]] = {}
    for name, view in right.items():
        k = key(view, new_consumers.get(name, []))
        if k is not None:
            new_keys.setdefault(k, []).append(name)
    return {
        names[0]: new_keys[k][0] for k, names in old_keys.items() if len(names) == 1 and len(new_keys.get(k, ())) == 1
    }


def _pair(
    left: Mapping[str, NodeView],
    right: Mapping[str, NodeView],
    renames: Mapping[str, str],
    in_body: bool,
    exact: bool,
) -> dict[str, str]:
    def key(view: NodeView, inputs: Iterable[str]) -> Any:
        stripped = tuple(_strip_arg(raw) if in_body else raw for raw in inputs)
        if not stripped:
            return None  # a node without inputs says nothing about where it sits
        return (view.op, view.attrs, view.device, stripped) if exact else stripped

    old_keys: dict[Any, list[str]] = {}
    for name, view in left.items():
        k = key(view, [_mapped_input(raw, renames, set(), in_body) for raw in view.inputs])
        if k is not None:
            old_keys.setdefault(k, []).append(name)
    new_keys: dict[Any, list[str]] = {}
    for name, view in right.items():
        k = key(view, view.inputs)
        if k is not None:
            new_keys.setdefault(k, []).append(name)
    return {
        names[0]: new_keys[k][0] for k, names in old_keys.items() if len(names) == 1 and len(new_keys.get(k, ())) == 1
    }


def _strip_arg(raw: str) -> str:
    match = _BODY_INPUT.match(raw.lstrip("^"))
    if match is None:
        return raw
    return f"{match.group('node')}:{match.group('index') or 0}"


def _weights(old: Mapping[str, Weight], new: Mapping[str, Weight], result: ModelDiff) -> None:
    """Weights by name: added, removed, renamed (same content), changed; unhashed ones of equal form left unread."""
    result.weights_removed = [old[name] for name in sorted(old) if name not in new]
    result.weights_added = [new[name] for name in sorted(new) if name not in old]
    pair_renamed_weights(result)
    for name in sorted(set(old) & set(new)):
        a, b = old[name], new[name]
        if (a.dtype, a.shape, a.size) != (b.dtype, b.shape, b.size):
            result.weights_changed.append(WeightChange(a, b, None))
        elif a.digest is None or b.digest is None:
            result.weights_unread.append((a, b))
        elif a.digest != b.digest:
            result.weights_changed.append(WeightChange(a, b, None))


def pair_renamed_weights(result: ModelDiff) -> None:
    """A removed and an added weight with the same dtype, shape and content hash are one weight renamed."""
    by_digest: dict[Any, list[Weight]] = {}
    for weight in result.weights_added:
        if weight.digest is not None:
            by_digest.setdefault((weight.digest, weight.dtype, weight.shape), []).append(weight)
    renamed_new = set()
    removed = []
    for weight in result.weights_removed:
        candidates = by_digest.get((weight.digest, weight.dtype, weight.shape), [])
        if weight.digest is not None and len(candidates) == 1 and candidates[0].name not in renamed_new:
            result.weights_renamed.append((weight, candidates[0]))
            renamed_new.add(candidates[0].name)
        else:
            removed.append(weight)
    result.weights_removed = removed
    result.weights_added = [weight for weight in result.weights_added if weight.name not in renamed_new]


def read_weights(diff: ModelDiff, old_artifact: Any, new_artifact: Any) -> None:
    """Read what the diff needs of the weights' contents, each a piece at a time, never one whole.

    A weight of the same form on both sides is compared byte for byte (no hash: exact, and the cheapest
    read there is), except two checkpoint entries, which are the same when the CRC-32C TensorFlow stored
    for each is (a collision is a chance of 2^-32): their data is not read at all. Only a weight that
    differs is read again, to say how much its values moved. A weight removed or added is hashed, to
    find the renamed ones.
    """
    from tflint.engine.review import weight_content
    from tflint.read.tensor_bundle import BundleIndex
    from tflint.read.weights import EntryContent, ShardReader, compare_contents, equal_contents, hash_of

    readers: dict[int, ShardReader] = {}

    def reader_of(index: BundleIndex) -> ShardReader:
        return readers.setdefault(id(index), ShardReader(index))

    def contents(a: Weight, b: Weight) -> tuple[Any, Any] | None:
        old = weight_content(diff.old, old_artifact, reader_of, a)
        new = weight_content(diff.new, new_artifact, reader_of, b)
        return None if old is None or new is None else (old, new)

    try:
        for a, b in diff.weights_unread:
            pair = contents(a, b)
            if pair is None:
                continue  # no content on either side (a graph's variables without a checkpoint): form only
            old, new = pair
            if isinstance(old, EntryContent) and isinstance(new, EntryContent):
                same = old.entry.crc32c == new.entry.crc32c and old.size == new.size
            else:
                same = equal_contents(old, new)
            if not same:
                diff.weights_changed.append(WeightChange(a, b, None))
        diff.weights_unread = []
        diff.weights_changed.sort(key=lambda item: item.old.name)
        measured = []
        for item in diff.weights_changed:
            a, b = item.old, item.new
            change = item.change
            if change is None and a.dtype == b.dtype and a.size == b.size:
                pair = contents(a, b)
                if pair is not None:
                    change = compare_contents(pair[0], pair[1], a.dtype)
            measured.append(WeightChange(a, b, change))
        diff.weights_changed = measured
        if diff.weights_removed and diff.weights_added:
            for side, view, artifact in (("removed", diff.old, old_artifact), ("added", diff.new, new_artifact)):
                hashed = []
                for weight in getattr(diff, f"weights_{side}"):
                    content = weight_content(view, artifact, reader_of, weight) if weight.digest is None else None
                    if content is not None:
                        weight = replace(weight, digest=hash_of(content))
                    hashed.append(weight)
                setattr(diff, f"weights_{side}", hashed)
            pair_renamed_weights(diff)
    finally:
        for reader in readers.values():
            reader.close()


def diff_models(
    old_path: str,
    new_path: str,
    config: Any,
    registry: Any,
    *,
    input_type: str | None = None,
    batch: int = 1,
) -> ModelDiff:
    """Load, view and compare two versions of a model; the serving-contract findings of `compat` included."""
    from tflint.engine.review import load_view

    # No hashes: a diff compares contents byte for byte (read_weights).
    old_view, old_artifact = load_view(old_path, registry, input_type=input_type, batch=batch, hashes=False)
    new_view, new_artifact = load_view(new_path, registry, input_type=input_type, batch=batch, hashes=False)
    diff = diff_views(old_view, new_view)
    read_weights(diff, old_artifact, new_artifact)
    if old_view.kind != "GraphDef" and new_view.kind != "GraphDef":
        diff.compat = _contract_findings(old_path, new_path, config, registry, input_type)
    return diff


def _contract_findings(old_path: str, new_path: str, config: Any, registry: Any, input_type: str | None) -> list[Any]:
    from tflint.engine.compat import compare_versions
    from tflint.read.interface import read_version

    old_version = read_version(old_path, input_type)
    new_version = read_version(new_path, input_type)
    return compare_versions(old_version, new_version, config, registry)
