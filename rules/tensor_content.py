r"""Every tensor a node carries (a Const's `value`) can be built: its dtype, shape and bytes agree.

TensorFlow imports a Const without looking inside its TensorProto (only the
shape is checked, by Const's shape function), and builds the tensor when the
graph first runs; a tensor that does not decode fails there with `Cannot
parse tensor from proto`. This rule checks every attr whose OpDef type is
`tensor` or `list(tensor)`, in the graph and in function bodies:

- errors (TensorFlow rejects the graph at import or at the first run):
  - the tensor's dtype is unset (DT_INVALID), unknown, or a reference type;
  - its shape is not fully defined (a -1 dim): `Shape [?,1] is not fully
    defined` at import (shapes that are invalid even as partial shapes, such
    as dims below -1, are `invalid-shape`'s finding);
  - `tensor_content` does not hold exactly elements × dtype size bytes
    (string tensors: varint lengths, then exactly those bytes; bools: bytes
    0 and 1 only);
  - its dtype differs from the node's `dtype` attr (Const, HostConst:
    `Type mismatch between value (int32) and dtype (float)`), or an
    ImageSummary `bad_color` that is not a uint8 vector;
  - a Const without a `value` attr, and, in a SavedModel, a `value` tensor
    whose shape has `unknown_rank` set: TensorFlow's SavedModel loader
    rejects both (`constant tensor but no value has been provided`,
    `initializes from a tensor with -1 elements`).
- warnings (TensorFlow accepts the tensor but silently reads something else):
  - more `*_val` values than elements (the runtime drops the extra ones,
    Python's `tf.make_ndarray` fails);
  - values only in a `*_val` field the dtype does not read (the tensor is
    all zeros: floats go in `float_val`, int32/int16/int8/uint8/uint16 and
    the quantized and 4-bit types in `int_val`, half and bfloat16 in
    `half_val` as 16-bit patterns, float8 types in `float8_val`, ...);
  - `*_val` values set beside a non-empty `tensor_content` (ignored), data
    in a tensor with zero elements (ignored), an odd number of complex
    values (the last one is dropped), integers outside the dtype's range
    (wrapped);
  - `unknown_rank` set in a tensor's shape outside a SavedModel (ignored:
    TensorFlow reads the dims).

Fewer values than elements is legal: TensorFlow repeats the last value (and
no value at all means zeros), which is how it compresses constants itself.
Reading `tensor_content` costs one copy of its bytes per tensor; nothing is
decoded except string lengths.

How to fix: rebuild the tensor with `tf.make_tensor_proto(array, dtype)`, or
make the node's `dtype` attr match the tensor.

Okay:
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 } } } }
  node { name: "z" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
      tensor_content: "\001\000\000\000\002\000\000\000" } } } }
Fail:
  node { name: "short" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }   # tensor-content
      tensor_content: "\000\000\200?" } } } }
  node { name: "typed" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }   # tensor-content
  node { name: "open" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } }   # tensor-content
      float_val: 1 } } } }
  node { name: "zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } int_val: 1 } } } }   # tensor-content
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity
from tflint.runtime.memo import IdentityMemo
from tflint.tf.index import REF_OFFSET, GraphIndex
from tflint.tf.node import Node
from tflint.tf.op_signatures import dtype_name
from tflint.tf.registry import snapshot_info
from tflint.tf.tensors import (
    DT_BOOL,
    DT_COMPLEX64,
    DT_COMPLEX128,
    DT_STRING,
    DTYPE_SIZE,
    VALUE_FIELD,
    VALUE_RANGE,
    MappedBytes,
    OpPlan,
    OpPlans,
    ShapeFacts,
    ShapeMemo,
    mapped_content,
    shape_text,
    string_content_problem,
    tensor_values,
)

ID = "tensor-content"
CATEGORY = "tensor"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 12

# Ops whose kernel requires the tensor's dtype to equal an attr: `Type mismatch between value (...) and dtype (...)`.
_DTYPE_ATTR_OF = {"Const": "dtype", "HostConst": "dtype"}
DT_UINT8 = 4
_Problems = tuple[tuple[str, Severity | None], ...]


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each tensor attr TensorFlow cannot build, or builds from something else than written."""
    artifact = graph.artifact
    verdicts = _Verdicts(saved_model=artifact is not None and getattr(artifact, "message_type", None) == "SavedModel")
    plans = OpPlans(graph)
    table = plans.table
    for scope in graph.scopes():
        yield from scope.attr_group_issues(
            lambda node: _node_issues(node, table.get(node.op) or plans(node.op), verdicts)
        )


def _node_issues(node: Node, plan: OpPlan, verdicts: _Verdicts) -> Iterator[Issue]:
    """The issues of one node's tensor attrs: a function of its op and attrs alone."""
    if not plan.tensors:
        return
    op = node.op
    attrs = node.attr
    if op in _DTYPE_ATTR_OF:
        # Const and HostConst: one tensor, compared with the dtype attr; verdicts memoized per value.
        value = attrs.get("value")
        if value is None:
            if op == "Const":
                yield Issue(
                    node,
                    f"Node '{node.name}' (op Const) has no 'value' attr: a Const needs its tensor "
                    "(TensorFlow's SavedModel loader: `constant tensor but no value has been provided`)",
                )
            return
        problems = verdicts.of_value(op, value, attrs.get(_DTYPE_ATTR_OF[op]))
        if problems:
            where = f"Node '{node.name}' (op {op}): attr 'value'"
            for text, severity in problems:
                yield Issue(node, where + text, field="value", severity=severity)
        return
    for key, index, tensor in tensor_values(node, plan):
        problems = verdicts.of_tensor(op, key, index, tensor, None)
        if problems:
            where = f"Node '{node.name}' (op {op}): attr '{key}'" + (f" tensor #{index}" if index is not None else "")
            for text, severity in problems:
                yield Issue(node, where + text, field=key, severity=severity)


class _Verdicts:
    """Problems of tensors, memoized per distinct small value; messages lack only the node prefix."""

    def __init__(self, saved_model: bool) -> None:
        self.saved_model = saved_model
        self.valid = frozenset(snapshot_info().data_types)
        self.shapes = ShapeMemo()
        self._memo: IdentityMemo[_Problems] = IdentityMemo()

    def of_value(self, op: str, value: Any, declared: Any) -> _Problems:
        """Problems of the `value` attr of a Const or HostConst whose dtype attr is `declared`."""
        # Both readers share one AttrValue object among equal attr entries: memoize on identity.
        return self._memo.get((op,), (value, declared), lambda: self._value_problems(op, value, declared))

    def _value_problems(self, op: str, value: Any, declared: Any) -> _Problems:
        if value.WhichOneof("value") != "tensor":
            return ()  # another kind: attr-type-mismatch reports it
        tensor = value.tensor
        dtype = _declared_type(declared)
        fields = tensor.ListFields()
        if (
            len(fields) == 3
            and fields[0][0].name == "dtype"
            and fields[1][0].name == "tensor_shape"
            and fields[0][1] == dtype
        ):
            # What TensorFlow writes for most constants: dtype, shape, then the bytes, or the values
            # in the dtype's own field. Accepted here when they fill the shape (and need no range
            # or pairing check); anything else gets the full check below.
            facts = self.shapes.facts(fields[1][1])
            count = facts.elements
            if count and not facts.unknown_rank and dtype != DT_BOOL:
                field, payload = fields[2]
                if field.name == "tensor_content" and mapped_content(tensor) is None:  # its own bytes
                    size = DTYPE_SIZE.get(cast(int, dtype))
                    if size is not None and len(payload) == count * size:
                        return ()
                elif (
                    field.name == VALUE_FIELD.get(cast(int, dtype))
                    and len(payload) <= count
                    and dtype not in VALUE_RANGE
                    and dtype not in (DT_COMPLEX64, DT_COMPLEX128)
                    and dtype in self.valid
                    and mapped_content(tensor) is None  # values beside a content left in a mapped file
                ):
                    return ()
        return self.of_tensor(op, "value", None, tensor, dtype)

    def of_tensor(self, op: str, key: str, index: int | None, tensor: Any, declared: int | None) -> _Problems:
        """Problems of one TensorProto held by attr `key` (element `index` of a list) of an `op` node."""
        # One call lists the set fields (it copies tensor_content's bytes: a memcpy, cheap next to
        # a dozen Python-level field reads).
        present = {field.name: value for field, value in tensor.ListFields()}
        mapped = mapped_content(tensor)
        if mapped is not None:
            present["tensor_content"] = mapped  # its length without reading it (tflint.read.mapped)
        facts = self.shapes.facts(tensor.tensor_shape)
        return tuple(_tensor_problems(op, key, index, present, declared, facts, self))


def _declared_type(declared: Any) -> int | None:
    """The DataType of a dtype attr, when it holds a valid one (another kind reads as 0)."""
    if declared is None:
        return None
    number = declared.type
    return number if number in snapshot_info().data_types else None


def _tensor_problems(
    op: str,
    key: str,
    index: int | None,
    present: dict[str, Any],
    declared: int | None,
    facts: ShapeFacts,
    verdicts: _Verdicts,
) -> Iterator[tuple[str, Severity | None]]:
    if facts.tensor_problem is not None:
        return  # invalid even as a partial shape: invalid-shape reports it
    dims = facts.dims
    if facts.unknown_rank:
        if verdicts.saved_model and key == "value":
            yield (
                " has a tensor shape with unknown_rank set; TensorFlow's SavedModel loader rejects it "
                "(`initializes from a tensor with -1 elements`)",
                None,
            )
        else:
            yield (
                f" has a tensor shape with unknown_rank set; TensorFlow ignores the flag and reads the dims "
                f"{shape_text(dims)}",
                Severity.WARNING,
            )
    count = facts.elements
    if count is None:
        yield (
            f" has a tensor of shape {shape_text(dims)}, which is not fully defined; a tensor needs every dimension "
            "(TensorFlow: `Shape ... is not fully defined`)",
            None,
        )
        return
    dtype = present.get("dtype", 0)
    if dtype not in verdicts.valid:
        yield (
            f" holds a tensor with {_bad_dtype(dtype)}; TensorFlow cannot build it (`Cannot parse tensor from proto`)",
            None,
        )
        return
    name = dtype_name(dtype)
    if declared is not None and declared != dtype and index is None and op in _DTYPE_ATTR_OF:
        yield (
            f" holds a {name} tensor but attr 'dtype' is {dtype_name(declared)}; the kernel fails with "
            f"`Type mismatch between value ({name}) and dtype ({dtype_name(declared)})`",
            None,
        )
    if op == "ImageSummary" and key == "bad_color":
        if dtype != DT_UINT8:
            yield f" is a {name} tensor; ImageSummary needs a uint8 vector (`bad_color must be uint8`)", None
        elif len(dims) != 1:
            yield (
                f" has shape {shape_text(dims)}; ImageSummary needs a uint8 vector (`bad_color must be a vector`)",
                None,
            )
    content = present.get("tensor_content")
    values = [field for field in present if field.endswith("_val")]
    if count == 0:
        if content or values:
            yield (
                f" has a tensor of shape {shape_text(dims)} with no elements, but it carries data; TensorFlow "
                "ignores it",
                Severity.WARNING,
            )
        return
    if content:
        yield from _content_problems(content, dtype, name, dims, count)
        if values:
            yield (
                f" has both tensor_content and {', '.join(values)}; TensorFlow reads tensor_content and ignores the "
                "values",
                Severity.WARNING,
            )
        return
    if values:
        yield from _value_problems(present, values, dtype, name, dims, count)


def _bad_dtype(dtype: int) -> str:
    if dtype == 0:
        return "no dtype (DT_INVALID)"
    if dtype > REF_OFFSET and dtype - REF_OFFSET in snapshot_info().data_types:
        return f"the reference dtype {dtype_name(dtype)}"
    return f"the unknown dtype number {dtype}"


def _content_problems(
    content: bytes | MappedBytes, dtype: int, name: str, dims: list[int], count: int
) -> Iterator[tuple[str, Severity | None]]:
    size = DTYPE_SIZE.get(dtype)
    if size is not None:
        expected = count * size
        if len(content) != expected:
            yield (
                f" has a tensor_content of {len(content)} bytes, but a {name} tensor of shape {shape_text(dims)} needs "
                f"{count} x {size} = {expected} bytes (TensorFlow: `Cannot parse tensor from proto`)",
                None,
            )
        elif dtype == DT_BOOL and content.count(0) + content.count(1) != len(content):
            yield (
                " has a bool tensor_content with bytes other than 0 and 1; TensorFlow cannot build it (`Cannot "
                "parse tensor from proto`)",
                None,
            )
    elif dtype == DT_STRING:
        problem = string_content_problem(content, count)
        if problem is not None:
            yield (
                f" has a string tensor_content that does not decode into {count} strings: {problem} "
                "(TensorFlow: `Cannot parse tensor from proto`)",
                None,
            )
    # resource and variant contents are serialized protos; they are not decoded here.


def _value_problems(
    present: dict[str, Any], values: list[str], dtype: int, name: str, dims: list[int], count: int
) -> Iterator[tuple[str, Severity | None]]:
    field = VALUE_FIELD.get(dtype)
    if field not in present:
        yield (
            f" has a {name} tensor with values only in {', '.join(values)}, which TensorFlow does not read for {name} "
            f"(it reads {field}); the tensor is all zeros",
            Severity.WARNING,
        )
        return
    listed = present[field]
    given = len(listed)
    if dtype in (DT_COMPLEX64, DT_COMPLEX128):
        if given % 2:
            yield (
                f" has an odd number of values in {field}; complex values are (real, imaginary) pairs and TensorFlow "
                "drops the last one",
                Severity.WARNING,
            )
        given //= 2
    if given > count:
        yield (
            f" has {given} values in {field} for a tensor of shape {shape_text(dims)} with {count} "
            f"element{'s' if count != 1 else ''}; TensorFlow's runtime drops the extra values and `tf.make_ndarray` "
            "fails",
            Severity.WARNING,
        )
    bounds = VALUE_RANGE.get(dtype)
    if bounds is not None:
        low, high = min(listed), max(listed)
        if low < bounds[0] or high > bounds[1]:
            bad = low if low < bounds[0] else high
            what = "16-bit pattern" if field == "half_val" else "value"
            yield (
                f" has the {what} {bad} in {field}, outside {bounds[0]}..{bounds[1]} for {name}; TensorFlow's runtime "
                "wraps it and `tf.make_ndarray` fails",
                Severity.WARNING,
            )
