"""Function-library helpers: TensorFlow's FunctionDef equality, func references, registry lookups.

`function_defs_equal` reimplements TensorFlow's `FunctionDefsEqual`
(core/framework/function.cc), which decides whether two FunctionDefs with one
name are the same function (a silently ignored duplicate) or a conflict.
`func_references` lists the function names a node refers to through `func` /
`list(func)` attr values, nested NameAttrList attrs included.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from tflint.tf.index import GraphIndex
from tflint.tf.node import Node
from tflint.tf.tensors import mapped_content, tensor_content

# The registry layer that comes from the graph itself; TensorFlow checks
# against its own op registry, never against a MetaGraphDef's op list.
STRIPPED_OP_LIST = "stripped_op_list"


def registered_op(graph: GraphIndex, name: str) -> Any | None:
    """The OpDef TensorFlow's registry has for `name` (bundled or user OpDefs), or None.

    Unlike `GraphIndex.schema_for`, this ignores the graph's function library
    and its `stripped_op_list`.
    """
    for source, ops in graph.registry.layers():
        if source == STRIPPED_OP_LIST:
            continue
        op_def = ops.get(name)
        if op_def is not None:
            return op_def
    return None


def func_references(node: Node) -> Iterator[tuple[str, Any]]:
    """(attr key, NameAttrList) for every function value in the node's attrs, nested ones too.

    The key of a nested value is the path of attr keys, e.g. `f.inner`.
    Placeholder values (inside function bodies) name nothing yet and are skipped.
    """
    pending: list[tuple[str, Any]] = [(key, value) for key, value in node.attr.items()]
    while pending:
        key, value = pending.pop()
        kind = value.WhichOneof("value")
        if kind == "func":
            functions = [value.func]
        elif kind == "list" and len(value.list.func):
            functions = list(value.list.func)
        else:
            continue
        for function in functions:
            yield key, function
            pending.extend((f"{key}.{inner}", nested) for inner, nested in function.attr.items())


# -- FunctionDefsEqual -------------------------------------------------------------


def function_defs_equal(existing: Any, new: Any) -> bool:
    """TensorFlow's `FunctionDefsEqual(existing, new)`: true when `new` is a harmless duplicate.

    Compared: the signature (attr order and control_output order ignored,
    descriptions compared), the set attrs, the body nodes (matched by name,
    `_`-prefixed node attrs ignored, control inputs as a set, `x` equal to
    `x:0`), `ret` and `control_ret`. Not compared: `arg_attr` and
    `resource_arg_unique_id`. Tensor values compare by content, not encoding.
    """
    if not _op_defs_equal(existing.signature, new.signature):
        return False
    set_attrs_existing = {key: value for key, value in existing.attr.items() if value.WhichOneof("value") is not None}
    set_attrs_new = {key: value for key, value in new.attr.items() if value.WhichOneof("value") is not None}
    if set_attrs_existing.keys() != set_attrs_new.keys():
        return False
    if not all(attr_values_equal(set_attrs_existing[key], set_attrs_new[key]) for key in set_attrs_existing):
        return False
    if not _node_lists_equal(existing.node_def, new.node_def):
        return False
    return dict(existing.ret) == dict(new.ret) and dict(existing.control_ret) == dict(new.control_ret)


def _serialized(message: Any) -> bytes:
    serialized: bytes = message.SerializeToString(deterministic=True)
    return serialized


def _op_defs_equal(first: Any, second: Any) -> bool:
    """`OpDefEqual`: attrs as a set by name, control outputs sorted, the rest byte for byte."""
    attrs = {}
    for attr in first.attr:
        attrs[attr.name] = attr  # TF's map keeps the last of repeated names too
    for attr in second.attr:
        other = attrs.pop(attr.name, None)
        if other is None or not _attr_defs_equal(other, attr):
            return False
    if attrs:
        return False
    if sorted(first.control_output) != sorted(second.control_output):
        return False
    first_rest, second_rest = type(first)(), type(second)()
    first_rest.CopyFrom(first)
    second_rest.CopyFrom(second)
    for message in (first_rest, second_rest):
        message.ClearField("attr")
        message.ClearField("control_output")
    return _serialized(first_rest) == _serialized(second_rest)


def _attr_defs_equal(first: Any, second: Any) -> bool:
    """`AttrDefEqual`: minimum only counts when has_minimum is set."""
    return (
        first.name == second.name
        and first.type == second.type
        and first.description == second.description
        and first.has_minimum == second.has_minimum
        and (not first.has_minimum or first.minimum == second.minimum)
        and attr_values_equal(first.default_value, second.default_value)
        and attr_values_equal(first.allowed_values, second.allowed_values)
    )


def _node_lists_equal(existing: Any, new: Any) -> bool:
    """`EqualRepeatedNodeDef`: nodes matched by name (the last of a repeated name wins)."""
    by_name = {node.name: node for node in existing}
    for node in new:
        other = by_name.pop(node.name, None)
        if other is None or not _node_defs_equal(other, node):
            return False
    return not by_name


def _node_defs_equal(actual: Any, expected: Any) -> bool:
    """`EqualNodeDef` with TensorFlow's default options (internal `_` attrs ignored)."""
    if actual.name != expected.name or actual.op != expected.op or actual.device != expected.device:
        return False
    if len(actual.input) != len(expected.input):
        return False
    first_control = len(actual.input)
    for position, (mine, theirs) in enumerate(zip(actual.input, expected.input)):
        if mine.startswith("^"):
            first_control = position
            break
        if mine != theirs and mine != theirs + ":0" and mine + ":0" != theirs:
            return False
    if set(actual.input[first_control:]) != set(expected.input[first_control:]):
        return False
    actual_keys = {key for key in actual.attr if not key.startswith("_")}
    expected_keys = {key for key in expected.attr if not key.startswith("_")}
    if actual_keys != expected_keys:
        return False
    return all(attr_values_equal(expected.attr[key], actual.attr[key]) for key in expected_keys)


def attr_values_equal(first: Any, second: Any) -> bool:
    """`AreAttrValuesEqual`: types by value, tensors by content, funcs recursively, else bytes."""
    first_type = first.type if first.WhichOneof("value") == "type" else 0
    second_type = second.type if second.WhichOneof("value") == "type" else 0
    if first_type != second_type:
        return False
    if first_type != 0:
        return True
    first_kind, second_kind = first.WhichOneof("value"), second.WhichOneof("value")
    if (first_kind == "tensor") != (second_kind == "tensor"):
        return False
    if first_kind == "tensor":
        return tensor_protos_equal(first.tensor, second.tensor)
    if (first_kind == "func") != (second_kind == "func"):
        return False
    if first_kind == "func":
        if first.func.name != second.func.name:
            return False
        if first.func.attr.keys() != second.func.attr.keys():
            return False
        return all(attr_values_equal(first.func.attr[key], second.func.attr[key]) for key in second.func.attr)
    return _serialized(first) == _serialized(second)


# -- tensors -----------------------------------------------------------------------

# DataType -> (TensorProto field, struct format of one element, values per element).
# Types not listed (string, resource, variant, the 4- and 8-bit floats and ints)
# are compared by their serialized protos.
_POD = {
    1: ("float_val", "f", 1),
    2: ("double_val", "d", 1),
    3: ("int_val", "i", 1),
    4: ("int_val", "B", 1),
    5: ("int_val", "h", 1),
    6: ("int_val", "b", 1),
    8: ("scomplex_val", "f", 2),
    9: ("int64_val", "q", 1),
    10: ("bool_val", "?", 1),
    11: ("int_val", "b", 1),
    12: ("int_val", "B", 1),
    13: ("int_val", "i", 1),
    14: ("half_val", "H", 1),
    15: ("int_val", "h", 1),
    16: ("int_val", "H", 1),
    17: ("int_val", "H", 1),
    18: ("dcomplex_val", "d", 2),
    19: ("half_val", "H", 1),
    22: ("uint32_val", "I", 1),
    23: ("uint64_val", "Q", 1),
}


def tensor_protos_equal(first: Any, second: Any) -> bool:
    """`AreTensorProtosEqual`: same dtype, dims and decoded bytes (`float_val: 1` == two 1s for shape [2])."""
    if first.dtype != second.dtype:
        # Different dtypes can still match in byte size; their canonical protos differ by dtype.
        return False
    if first.dtype not in _POD:
        return _serialized(first) == _serialized(second)
    first_key, second_key = _canonical_tensor(first), _canonical_tensor(second)
    if first_key is None or second_key is None:
        # TensorFlow cannot build the tensor; only its "large expansion" shortcut may still say equal.
        return _large_expansion(first) and _serialized(first) == _serialized(second)
    return first_key == second_key


def _element_count(tensor: Any) -> int | None:
    count = 1
    for dim in tensor.tensor_shape.dim:
        if dim.size < 0:
            return None
        count *= dim.size
    return None if tensor.tensor_shape.unknown_rank else count


def _large_expansion(tensor: Any) -> bool:
    if mapped_content(tensor) is not None:
        return False  # its content alone is 512 bytes or more (tflint.read.mapped never maps less)
    count = _element_count(tensor)
    if count is None:
        return False
    size = struct.calcsize("<" + _POD[tensor.dtype][1]) * _POD[tensor.dtype][2]
    return tensor.ByteSize() < 512 and count * size > 4096


def _canonical_tensor(tensor: Any) -> tuple[Any, ...] | None:
    """What TensorFlow's `FromProto` + `AsProtoTensorContent` would give, compactly; None if it fails.

    The result is (dims, elements) where `elements` are the element bytes with
    the trailing run of equal elements collapsed to one (the dims imply the
    count), so `float_val: 1` and `float_val: 1 float_val: 1` agree for shape
    [2] without expanding large tensors.
    """
    count = _element_count(tensor)
    if count is None:
        return None
    field, code, per_element = _POD[tensor.dtype]
    dims = tuple(dim.size for dim in tensor.tensor_shape.dim)
    element_size = struct.calcsize("<" + code) * per_element
    stored = tensor_content(tensor)
    if count == 0:
        return (dims, ()) if not stored else None
    if stored:
        content = bytes(stored)
        if len(content) != count * element_size:
            return None
        packed = content
    else:
        values = list(getattr(tensor, field))
        given = len(values) // per_element
        if given == 0:
            return dims, (bytes(element_size),)
        values = values[: min(given, count) * per_element]
        if code in "fd":
            packed = struct.pack(f"<{len(values)}{code}", *values)
        else:
            # C++ casts each int_val/half_val to the element type: keep the low bytes.
            width = struct.calcsize(code)
            packed = b"".join((int(value) & ((1 << (8 * width)) - 1)).to_bytes(width, "little") for value in values)
    elements = [packed[offset : offset + element_size] for offset in range(0, len(packed), element_size)]
    while len(elements) > 1 and elements[-2] == elements[-1]:
        elements.pop()
    return dims, tuple(elements)


# -- which functions run -----------------------------------------------------------


class CalledFunctions:
    """The library functions something instantiates: a node, a signature, or another such function.

    TensorFlow checks a function body only when it instantiates the function
    (at import for a node that calls it, at run time for If/While/Case
    branches and other function-valued attrs); a function nothing reaches is
    added to the graph unchecked. Roots are the top-level nodes (a call by op
    name, or any `func` / `list(func)` attr: PartitionedCall's `f`, If's
    branches, While's `cond` and `body`, Case's `branches`, a dataset's `f`)
    and a SavedModel's object graph (its concrete functions, which its
    signatures and methods call). A reached function's body reaches further
    the same way. A GradientDef alone reaches nothing: TensorFlow imports a
    broken gradient function, and only differentiating would run it.
    """

    def __init__(self, graph: GraphIndex) -> None:
        library = graph.function_by_name
        reached: set[str] = set()
        pending: list[str] = []

        def reach(name: str) -> None:
            if name in library and name not in reached:
                reached.add(name)
                pending.append(name)

        if library:
            for node in graph.nodes:
                reach(node.op)
                if node.attr:
                    for _, function in func_references(node):
                        reach(function.name)
            meta_graph = graph.meta_graph
            if meta_graph is not None and meta_graph.HasField("object_graph_def"):
                for name in meta_graph.object_graph_def.concrete_functions:
                    reach(name)
            scopes: dict[str | None, Any] = {}
            for scope in graph.function_scopes:
                scopes.setdefault(scope.name, scope)  # the first of a name, as function_by_name
            while pending:
                for node in scopes[pending.pop()].nodes:
                    reach(node.op)
                    if node.attr:
                        for _, function in func_references(node):
                            reach(function.name)
        self.names = frozenset(reached)

    def __contains__(self, name: object) -> bool:
        return name in self.names


def called_functions(graph: GraphIndex) -> CalledFunctions:
    """The functions of `graph`'s library that something instantiates (computed on first use, then shared)."""
    return graph.derived(CalledFunctions)
