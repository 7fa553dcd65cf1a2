"""What a SavedModel restores from its checkpoint: keys, dtypes and the shapes the variables expect.

Every loader restores variables by running the SaverDef's restore op: TF Serving's C++
`LoadSavedModel` for every SavedModel, `tf.compat.v1.saved_model.load` too. The op reaches
`RestoreV2` nodes (in the graph for TF1 savers; in the body of the traced restore function for
TF2 SavedModels), each reading the checkpoint keys of its `tensor_names` constant with the
`dtypes` of its attr; RestoreV2 fails at load when a key is absent ("Key ... not found in
checkpoint") or its entry has another dtype ("expected dtype float does not equal original dtype
double"). Shapes are not RestoreV2's business: the assignment that follows it is. For TF1 the
restored tensor is assigned to a variable of the graph (Assign to a VariableV2, AssignVariableOp
to a VarHandleOp, each with its `shape` attr); for TF2 the variables are the SavedObjectGraph's,
and their checkpoint keys are in the checkpoint's own object graph (TrackableObjectGraph), matched
by the path of children names from the root, as `tf.saved_model.load` matches them.

No I/O here: the index and the object graph come from tflint.read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tflint.records import record
from tflint.tf.index import GraphIndex, Scope
from tflint.tf.node import Input, Node
from tflint.tf.serving import restore_reach, signature_reach

RESTORE_OPS = frozenset({"RestoreV2"})
ASSIGN_OPS = frozenset({"Assign", "AssignVariableOp"})
VARIABLE_OPS = frozenset({"VariableV2", "Variable", "VarHandleOp"})
PASS_THROUGH_OPS = frozenset({"Identity", "IdentityN"})
# The checkpoint entry TF2 writes its object graph to (not a variable: nothing restores it by RestoreV2).
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
# The most keys one RestoreV2 constant is read for (a model has thousands at most).
MAX_KEYS = 1_000_000


@record(frozen=True)
class Restored:
    """One key a RestoreV2 reads: its dtype, its slice spec, and the variable it is assigned to (if known)."""

    key: str
    dtype: int | None
    slice_spec: str
    node: Node
    variable: str | None
    shape: tuple[int, ...] | None  # the variable's shape (-1 for an unknown dimension); None when unknown

    def __init__(
        self,
        key: str,
        dtype: int | None,
        slice_spec: str,
        node: Node,
        variable: str | None = None,
        shape: tuple[int, ...] | None = None,
    ) -> None:
        vars(self).update(key=key, dtype=dtype, slice_spec=slice_spec, node=node, variable=variable, shape=shape)


@record(frozen=True)
class SavedVariable:
    """A TF2 variable of the SavedObjectGraph, with the checkpoint key its object graph gives it."""

    path: str  # children names from the root, joined with '.'
    name: str
    dtype: int
    shape: tuple[int, ...] | None
    key: str | None

    def __init__(self, path: str, name: str, dtype: int, shape: tuple[int, ...] | None, key: str | None) -> None:
        vars(self).update(path=path, name=name, dtype=dtype, shape=shape, key=key)


# The bundle format version TensorFlow reads (tensor_bundle.h: kTensorBundleVersion, and the oldest
# producer it accepts), and BundleHeaderProto's byte orders.
BUNDLE_VERSION = 1
BUNDLE_MIN_PRODUCER = 0
LITTLE_ENDIAN, BIG_ENDIAN = 0, 1


def shard_name(prefix: str, shard_id: int, num_shards: int) -> str:
    """The data file of one shard, as TensorFlow names it: `PREFIX.data-00000-of-00001`."""
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


def header_problem(header: Any) -> str | None:
    """Why TensorFlow's BundleReader refuses a BundleHeaderProto (its shard count, byte order, version), or None."""
    if header.num_shards < 1:
        return f"the header says {header.num_shards} data shards"
    if header.endianness not in (LITTLE_ENDIAN, BIG_ENDIAN):
        return f"the header's endianness is {header.endianness}, neither little (0) nor big (1)"
    if header.producer < BUNDLE_MIN_PRODUCER:
        return f"the checkpoint's producer version {header.producer} is older than {BUNDLE_MIN_PRODUCER}"
    if header.min_consumer > BUNDLE_VERSION:
        return f"the checkpoint needs a reader of version {header.min_consumer} or newer; TensorFlow's is 1"
    if BUNDLE_VERSION in header.bad_consumers:
        return f"the checkpoint disallows reader version {BUNDLE_VERSION} (bad_consumers)"
    return None


def restored_keys(graph: GraphIndex) -> list[Restored]:
    """Every key the restore op reads, in graph order (cached per graph)."""
    return graph.derived(_restored_keys)


def _restored_keys(graph: GraphIndex) -> list[Restored]:
    reach = restore_reach(graph)
    if reach is None:
        return []
    found: list[Restored] = []
    for scope in graph.scopes():
        for node in scope.by_op().get("RestoreV2", ()):
            if not reach.covers(node):
                continue
            found.extend(_restore_node(scope, node))
            if len(found) >= MAX_KEYS:
                return found
    return found


def _restore_node(scope: Scope, node: Node) -> Iterator[Restored]:
    inputs = node.data_inputs
    if len(inputs) < 3:
        return
    keys = _string_constant(scope, inputs[1])
    if keys is None:
        return
    slices = _string_constant(scope, inputs[2]) or []
    dtypes_attr = node.attr.get("dtypes")
    dtypes = list(dtypes_attr.list.type) if dtypes_attr is not None else []
    assigned = _assigned_variables(scope, node) if node.function is None else {}
    for index, key in enumerate(keys[:MAX_KEYS]):
        dtype = dtypes[index] if index < len(dtypes) else None
        spec = slices[index] if index < len(slices) else ""
        variable, shape = assigned.get(index, (None, None))
        yield Restored(key, dtype, spec, node, variable, shape)


def _string_constant(scope: Scope, item: Input) -> list[str] | None:
    producer = _past_identities(scope, item)
    if producer is None or producer.op != "Const":
        return None
    value = producer.attr.get("value")
    if value is None or not value.HasField("tensor"):
        return None
    return [raw.decode("utf-8", "backslashreplace") for raw in value.tensor.string_val]


def _past_identities(scope: Scope, item: Input) -> Node | None:
    node = scope.by_name.get(item.node)
    for _ in range(16):  # a chain of Identity nodes, bounded
        if node is None or node.op not in PASS_THROUGH_OPS or not node.data_inputs:
            return node
        node = scope.by_name.get(node.data_inputs[0].node)
    return node


def _assigned_variables(scope: Scope, restore: Node) -> dict[int, tuple[str, tuple[int, ...] | None]]:
    """For each output of a top-level RestoreV2, the variable an Assign / AssignVariableOp stores it in."""
    out: dict[int, tuple[str, tuple[int, ...] | None]] = {}
    pending: list[tuple[str, int]] = [(restore.name, -1)]
    seen: set[str] = set()
    while pending:
        name, output = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for consumer, item in scope.consumers_of(name):
            if item.is_control:
                continue
            index = item.index if output < 0 else output
            if consumer.op in PASS_THROUGH_OPS:
                pending.append((consumer.name, index))
            elif consumer.op in ASSIGN_OPS and len(consumer.data_inputs) >= 2 and consumer.data_inputs[1] == item:
                variable = _past_identities(scope, consumer.data_inputs[0])
                if variable is not None and variable.op in VARIABLE_OPS:
                    out[index] = (variable.name, _shape_attr(variable.attr.get("shape")))
    return out


def _shape_attr(value: Any) -> tuple[int, ...] | None:
    if value is None or not value.HasField("shape") or value.shape.unknown_rank:
        return None
    return tuple(dim.size for dim in value.shape.dim)


def unread_variables(graph: GraphIndex) -> list[str]:
    """TF1 variables the restore op fills but no signature output depends on (empty without signatures).

    The variables a top-level RestoreV2 output is assigned to. TF2 SavedModels are not judged: their
    signatures' functions do not take the graph's variable handles as inputs, so which variables a
    signature reads is not visible from the top-level graph.
    """
    served = signature_reach(graph)
    if served is None:
        return []
    restored = restored_keys(graph)
    if not restored:
        return []
    names = {item.variable for item in restored if item.variable is not None}
    return sorted(name for name in names if name not in served.nodes)


def saved_variables(meta: Any, object_graph: Any) -> list[SavedVariable]:
    """The SavedObjectGraph's variables with the checkpoint keys of the checkpoint's object graph.

    Nodes are matched by the path of children names from the root (node 0 of both graphs),
    breadth first, each node once: how TF2's loader finds a variable's value.
    """
    if meta is None or not meta.HasField("object_graph_def"):
        return []
    saved = meta.object_graph_def.nodes
    if not saved:
        return []
    checkpoint_nodes = object_graph.nodes if object_graph is not None else []
    matched: dict[int, tuple[int | None, str]] = {0: (0 if checkpoint_nodes else None, "")}
    order = [0]
    for saved_id in order:
        checkpoint_id, path = matched[saved_id]
        by_name: dict[str, int] = {}
        if checkpoint_id is not None and checkpoint_id < len(checkpoint_nodes):
            by_name = {child.local_name: child.node_id for child in checkpoint_nodes[checkpoint_id].children}
        for child in saved[saved_id].children:
            if child.node_id in matched or not 0 <= child.node_id < len(saved):
                continue
            matched[child.node_id] = (
                by_name.get(child.local_name),
                f"{path}.{child.local_name}" if path else child.local_name,
            )
            order.append(child.node_id)
    found: list[SavedVariable] = []
    for saved_id in order:
        node = saved[saved_id]
        if node.WhichOneof("kind") != "variable":
            continue
        checkpoint_id, path = matched[saved_id]
        key = None
        if checkpoint_id is not None and checkpoint_id < len(checkpoint_nodes):
            for attribute in checkpoint_nodes[checkpoint_id].attributes:
                if attribute.name == VARIABLE_VALUE:
                    key = attribute.checkpoint_key
        variable = node.variable
        shape = None if variable.shape.unknown_rank else tuple(dim.size for dim in variable.shape.dim)
        found.append(SavedVariable(path, variable.name, variable.dtype, shape, key))
    return found


def shapes_agree(expected: tuple[int, ...] | None, stored: tuple[int, ...] | None) -> bool:
    """Whether a stored tensor's shape fits a variable's (unknown dimensions and ranks fit anything)."""
    if expected is None or stored is None:
        return True
    if len(expected) != len(stored):
        return False
    return all(want < 0 or want == have for want, have in zip(expected, stored))


__all__ = [
    "OBJECT_GRAPH_KEY",
    "header_problem",
    "shard_name",
    "Restored",
    "SavedVariable",
    "restored_keys",
    "saved_variables",
    "shapes_agree",
    "unread_variables",
]
