r"""Every node_list entry of a saved collection, and every name of the objects it rebuilds, is in the graph.

Loading a MetaGraphDef (`tf.compat.v1.train.import_meta_graph`, both TF1
SavedModel loaders, and `tf.saved_model.load` of a SavedModel without an
object graph) imports its graph, then restores every collection: each
node_list entry is looked up in the graph (`Graph.as_graph_element`). An
entry without `:` must name an op; `node:i` must name output `i` of an op
that has it (Python indexing, so `-1` is the last output); anything else
with a `:` is not a tensor name. Any failure fails the whole load, after the
graph itself imported; so does a non-empty `unbound_inputs` collection,
which import_meta_graph only accepts with an input_map supplying those
inputs. The variable collections (`variables`, `trainable_variables`,
`global_step`, ...) hold serialized VariableDefs, each rebuilt into a
variable: its variable, initializer, initial value and snapshot names are
looked up the same way (a resource variable may have no snapshot), and an
entry that does not parse as a VariableDef fails too. So are the other
objects rebuilt from serialized entries: a queue runner (`queue_runners`:
its queue, enqueue, close and cancel ops, and closed-queue exception codes
that are TensorFlow errors), a cond or while context (`cond_context`,
`while_context`: its predicate, pivots, loop exits and enters, maximum
iterations and external values are looked up, each value's op, and nested
contexts), and a saver (`savers`, and the meta graph's own `saver_def`: a
Saver needs a save_tensor_name and a restore_op_name, but looks neither
up). Measured on TF 1.15 and 2.21 (tests/data/tf_import_cases.jsonl). Such
entries appear when a tool strips or renames nodes but keeps the
collections: a meta graph whose graph_def was replaced by its frozen graph
still lists `v/Assign`. Other collections of bytes, and other kinds
(int64_list, ...), are kept as they are.

Not checked: a SavedModel with one meta graph and an object graph, which
`tf.saved_model.load` and TensorFlow Serving load without restoring
collections (only the TF1 loader would fail on it), and plain GraphDefs.
Findings point at the entry in text files.

How to fix: remove the stale entries (or the collection), or re-export the
MetaGraphDef from the graph that really has those nodes.

Okay:
  graph_def { node { name: "x" op: "NoOp" } }
  collection_def { key: "train_op" value { node_list { value: "x" } } }
Fail:
  graph_def { node { name: "x" op: "NoOp" } }
  collection_def { key: "train_op" value { node_list {
    value: "y"   # collection-unresolved
    value: "x:0"   # collection-unresolved
  } } }
  collection_def { key: "variables" value { bytes_list {
    value: "\n\003v:0\022\010v/Assign\032\010v/read:0"   # collection-unresolved
  } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_collection, at_saver
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.serving import output_types

ID = "collection-unresolved"
CATEGORY = "structure"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

# The collection import_meta_graph checks against its input_map instead of restoring it.
UNBOUND_INPUTS = "unbound_inputs"
# Collections TensorFlow registers VariableDef as the proto of (`ops.register_proto_function`; the same in 1.15 and
# 2.21, where 1.15's estimator also adds tpu_estimator_iterations_per_loop).
VARIABLE_COLLECTIONS = frozenset(
    {
        "global_step",
        "local_variables",
        "metric_variables",
        "model_variables",
        "moving_average_variables",
        "trainable_variables",
        "variables",
    }
)
# The other collections of serialized protos the loader rebuilds objects from (`ops.register_proto_function`):
# key -> the proto of its entries.
REBUILT_COLLECTIONS = {
    "queue_runners": "QueueRunnerDef",
    "cond_context": "CondContextDef",
    "while_context": "WhileContextDef",
    "savers": "SaverDef",
}
# The error codes a QueueRunner maps to exception classes (tensorflow.error.Code but OK): 1.15 and 2.21 alike.
ERROR_CODES = frozenset(range(1, 17))
# Python's own default limit on the digits int() reads (sys.get_int_max_str_digits, which the environment
# can lift): a longer index is no tensor name for TensorFlow's lookup either, and is never converted.
_MAX_INDEX_CHARS = 4300


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per collection entry the loader cannot rebuild, for unbound inputs, and for a bad saver_def."""
    meta = graph.meta_graph
    if meta is None or not _collections_restored(graph):
        return
    if meta.HasField("saver_def"):
        problem = _saver_problem(meta.saver_def)
        if problem is not None:
            yield Issue(
                None,
                f"The meta graph's saver_def {problem}: loading the meta graph fails making its Saver",
                at=at_saver(),
            )
    collections = meta.collection_def
    rebuilt: set[bytes] = set()  # the loader builds each variable once, whatever collections list it
    for key in sorted(collections):
        collection = collections[key]
        kind = collection.WhichOneof("kind")
        if key == UNBOUND_INPUTS:
            issue = _unbound_inputs_issue(graph, collection, kind)
            if issue is not None:
                yield issue
            continue
        if kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
            for number, data in enumerate(collection.bytes_list.value):
                if data not in rebuilt:
                    rebuilt.add(data)
                    issue = _variable_issue(graph, key, number, data)
                    if issue is not None:
                        yield issue
            continue
        if kind == "bytes_list" and key in REBUILT_COLLECTIONS:
            for number, data in enumerate(collection.bytes_list.value):
                issue = _rebuilt_issue(graph, key, number, data)
                if issue is not None:
                    yield issue
            continue
        if kind != "node_list":
            continue
        for number, entry in enumerate(collection.node_list.value):
            node, problem = _look_up(graph, entry)
            if problem is not None:
                yield Issue(
                    node,
                    f"Collection '{key}' entry '{entry}' {problem}: loading the meta graph fails "
                    "restoring its collections",
                    at=at_collection(key, number),
                )


def _unbound_inputs_issue(graph: GraphIndex, collection: Any, kind: str | None) -> Issue | None:
    """import_meta_graph's refusal of a non-empty `unbound_inputs` collection (of any kind) without an input_map."""
    values = list(getattr(collection, kind).value) if kind is not None else []
    if not values:
        return None
    if kind in ("node_list", "bytes_list"):
        names = [value.decode("utf-8", "replace") if isinstance(value, bytes) else value for value in values]
        listed = ", ".join(f"'{name}'" for name in names[:5]) + (", ..." if len(names) > 5 else "")
    else:
        listed = f"{len(values)} value{'s' if len(values) > 1 else ''}"
    return Issue(
        None,
        f"Collection '{UNBOUND_INPUTS}' lists {listed}: import_meta_graph refuses the graph "
        "unless the caller's input_map supplies exactly these inputs",
        at=at_collection(UNBOUND_INPUTS, 0),
    )


def _variable_issue(graph: GraphIndex, key: str, number: int, data: bytes) -> Issue | None:
    """What rebuilding the variable of a VariableDef entry (Variable.from_proto) fails on, if anything."""
    from google.protobuf.message import DecodeError

    from tflint import protos

    variable = protos.message_class("tensorflow.VariableDef")()
    try:
        variable.ParseFromString(data)
    except DecodeError:
        return Issue(
            None,
            f"Collection '{key}' entry {number} is not a serialized VariableDef: loading the meta graph fails "
            "restoring its collections",
            at=at_collection(key, number),
        )
    names = [("variable", variable.variable_name), ("initializer", variable.initializer_name)]
    if variable.initial_value_name:
        names.append(("initial value", variable.initial_value_name))
    if variable.snapshot_name or not variable.is_resource:
        names.append(("snapshot", variable.snapshot_name))
    owner, _ = _look_up(graph, variable.variable_name)
    for role, name in names:
        node, problem = _look_up(graph, name)
        if problem is not None:
            return Issue(
                node or owner,
                f"Collection '{key}' entry {number} (variable '{variable.variable_name}'): its {role} '{name}' "
                f"{problem}: loading the meta graph fails restoring its collections",
                at=at_collection(key, number),
            )
    return None


def _rebuilt_issue(graph: GraphIndex, key: str, number: int, data: bytes) -> Issue | None:
    """What rebuilding a queue runner, cond or while context, or saver from its serialized entry fails on."""
    from google.protobuf.message import DecodeError

    from tflint import protos

    type_name = REBUILT_COLLECTIONS[key]
    entry = protos.message_class(f"tensorflow.{type_name}")()
    where = at_collection(key, number)
    try:
        entry.ParseFromString(data)
    except DecodeError:
        return Issue(
            None,
            f"Collection '{key}' entry {number} is not a serialized {type_name}: loading the meta graph fails "
            "restoring its collections",
            at=where,
        )
    if type_name == "SaverDef":
        problem = _saver_problem(entry)
        node = None
    elif type_name == "QueueRunnerDef":
        node, problem = _queue_runner_problem(graph, entry)
    else:
        node, problem = _context_problem(graph, entry, type_name == "WhileContextDef", "")
    if problem is None:
        return None
    return Issue(
        node,
        f"Collection '{key}' entry {number} {problem}: loading the meta graph fails restoring its collections",
        at=where,
    )


def _saver_problem(saver: Any) -> str | None:
    """What Saver(saver_def=...) refuses: it looks no name up, but needs these two."""
    for field in ("save_tensor_name", "restore_op_name"):
        if not getattr(saver, field):
            return f"has no {field}"
    return None


def _queue_runner_problem(graph: GraphIndex, runner: Any) -> tuple[Node | None, str | None]:
    """What QueueRunner.from_proto fails on: a name it looks up, or a closed-queue code that is no error."""
    names = [("queue", runner.queue_name)] + [("enqueue op", name) for name in runner.enqueue_op_name]
    names += [("close op", runner.close_op_name), ("cancel op", runner.cancel_op_name)]
    for role, name in names:
        node, problem = _look_up(graph, name)
        if problem is not None:
            return node, f"(queue '{runner.queue_name}'): its {role} '{name}' {problem}"
    for code in runner.queue_closed_exception_types:
        if code not in ERROR_CODES:
            return None, f"(queue '{runner.queue_name}'): closed-queue exception code {code} is no TensorFlow error"
    return None, None


def _context_problem(graph: GraphIndex, context: Any, is_while: bool, outer: str) -> tuple[Node | None, str | None]:
    """What CondContext / WhileContext.from_proto fails on, in the order they look names up, nested contexts last."""
    where = f"({outer}{'while' if is_while else 'cond'} '{context.context_name}')"
    if is_while:
        names = [("maximum iterations", context.maximum_iterations_name)] if context.maximum_iterations_name else []
        names += [
            ("pivot for the predicate", context.pivot_for_pred_name),
            ("pivot for the body", context.pivot_for_body_name),
            ("pivot", context.pivot_name),
        ]
        names += [("loop exit", name) for name in context.loop_exit_names]
        names += [("loop enter", name) for name in context.loop_enter_names]
    else:
        names = [("predicate", context.pred_name), ("pivot", context.pivot_name)]
    values = context.values_def
    names += [("external value", name) for name in values.external_values.values()]
    for role, name in names:
        node, problem = _look_up(graph, name)
        if problem is not None:
            return node, f"{where}: its {role} '{name}' {problem}"
    # Each value's op (its output index is not checked) joins the context, unless an external value stands for it.
    for value in values.values:
        if value not in values.external_values and graph.node(value.split(":")[0]) is None:
            return None, f"{where}: its value '{value}' names no op of the graph"
    for nested in context.nested_contexts:
        which = nested.WhichOneof("ctxt")
        if which is None:
            return None, f"{where}: a nested context is neither a cond nor a while"
        inner = f"{where[1:-1]}, nested "
        node, problem = _context_problem(graph, getattr(nested, which), which == "while_ctxt", inner)
        if problem is not None:
            return node, problem
    return None, None


def _collections_restored(graph: GraphIndex) -> bool:
    """Whether the usual loader of this meta graph restores its collections.

    A MetaGraphDef file is loaded by import_meta_graph. `tf.saved_model.load` reads a SavedModel
    with exactly one meta graph that has an object graph the TF2 way, without its collections.
    """
    artifact = graph.artifact
    if artifact is None or artifact.message_type != "SavedModel" or graph.meta_graph is None:
        return True
    return len(artifact.graphs) != 1 or not graph.meta_graph.HasField("object_graph_def")


def _look_up(graph: GraphIndex, entry: str) -> tuple[Node | None, str | None]:
    """What Graph.as_graph_element makes of `entry`: (the node, None) or (the node if any, the problem)."""
    if ":" not in entry:
        node = graph.node(entry)
        return node, None if node is not None else "names no op of the graph"
    op_name, _, rest = entry.partition(":")
    try:
        if ":" in rest or len(rest.strip()) > _MAX_INDEX_CHARS:
            raise ValueError(rest)
        index = int(rest)  # Python's int(), as TensorFlow's lookup: signs, spaces and `_` are accepted
    except ValueError:
        return None, "is not a tensor name (`op:index`)"
    node = graph.node(op_name)
    if node is None:
        return None, f"names a tensor of '{op_name}', which the graph lacks"
    types = output_types(graph, node)
    if types is not None and not -len(types) <= index < len(types):
        count = len(types)
        has = "no outputs" if count == 0 else f"{count} output{'s' if count > 1 else ''}"
        return node, f"names output {index} of '{op_name}' ({node.op}), which has {has}"
    return node, None
