"""Tensor shapes agree with each op's shape function and with `_output_shapes`, as TensorFlow checks at import.

When TensorFlow imports a GraphDef it runs every node's C++ shape function
in topological order and rejects the graph at the first failure (`Shape must
be rank 1 but is rank 0 for '{{node X}} = ParseExample[...]'`). It then
merges each node's `_output_shapes` into the inferred shapes and rejects an
entry that contradicts them (`Node 'X' has an _output_shapes attribute
inconsistent with the GraphDef for output #0: Shapes must be equal rank, but
are 0 and 1`). Downstream nodes see the merged shapes.

This rule replays that inference over the top-level graph with shape
functions for some 390 ops (99% of the node occurrences of the real graphs
tflint is tested on, and of Keras applications, Transformer, LSTM/GRU and TF1 training
graphs), organised like TensorFlow's op families
(`tflint.tf.shapes.array_ops`, `nn_ops`, `math_ops`, `image_ops`,
`training_ops`, ...), each checked against TensorFlow 2.21 on random
shapes, attrs and constant arguments (bench/shape_fuzz.md): variables and
placeholders, the element-wise and broadcasting ops, MatMul, BatchMatMul and
Einsum, convolutions (Conv2D, Conv3D, DepthwiseConv2dNative and their
gradients), pooling, batch norm, Reshape, StridedSlice, Slice, Split and
SplitV, ConcatV2, Pack, Pad, Tile, Transpose, Gather/GatherNd, ScatterNd,
OneHot, TopKV2, SpaceToBatchND and its relatives, the resizes and
CropAndResize, the reductions, segment reductions, optimizer updates
(Apply* and ResourceApply*), control flow v1, checkpoints, the ops whose
output is always a scalar whatever their inputs (L2Loss, the summary ops,
ReadFile, StringFormat: a stale `_output_shapes` on them is rejected even
when the input shapes are unknown), the ParseExample family, TensorList and
TensorArray ops (the element shape and dtype travel with the list's handle,
followed through Identity nodes), matrix diagonals (MatrixDiag, DiagPart and
SetDiag V1-V3) and the sparse ops (SparseTensorDenseMatMul, SparseToDense,
SparseReshape, SparseConcat, SparseAdd, SparseFillEmptyRows, SparseReduceSum...). Constant
inputs (shapes, axes, sizes, permutations) are read where TensorFlow folds them too: a `Const`, or a small integer
subgraph (Identity chains, Shape/Size/Rank of known shapes, Pack, ConcatV2,
StridedSlice, Cast, scalar arithmetic); a resource variable's shape flows
from its VarHandleOp to its reads. Every other op has unknown output shapes, refined by its own
`_output_shapes`; a loop's `Merge` reads its back edge as unknown, as
TensorFlow does. A function call (`PartitionedCall`,
`StatefulPartitionedCall`, a node whose op is a library function) runs the
called body's shape functions with the caller's input shapes, constant
values and variable shapes, as TensorFlow's importer does: a body node that
fails is reported where it is written, naming the function and the caller,
and the call's outputs are what the body returns. Uncalled functions and
If/While/Case branches are not looked at (TensorFlow checks them when they
run). Shapes are never guessed, so each finding is an error TensorFlow
reports too, though TensorFlow (which folds any small constant subgraph)
may find more. Unlike TensorFlow, which stops at the first, every failing
node is reported. It reports:

- an input whose known rank or dimensions violate the op's shape function
  (wrong rank, incompatible broadcast, inner dimensions of a MatMul, a
  reshape to a different number of elements, a reduction axis out of range,
  a strided slice index out of bounds, split sizes that do not add up);
- an `_output_shapes` entry incompatible with the inferred shape (different
  rank, or two known dimensions that differ). Too few entries and invalid
  entries are `invalid-shape`'s findings.

How to fix: correct the producer of the offending input (or the constant
holding the shape or axes); regenerate or delete stale `_output_shapes`.

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
  node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } }
  node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: 4 } } } } } }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 4 } } } } }
  node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }   # shape-mismatch
  node { name: "z" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "_output_shapes" value { list { shape { dim { size: 3 } } } } } }   # shape-mismatch
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex
from tflint.tf.shapes import (
    OUTPUT_SHAPES,
    ShapeInference,
    ShapeIssue,
    infer_shapes,
    input_arg_name,
    shape_text,
)

ID = "shape-mismatch"
CATEGORY = "shape"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# Time on a large graph relative to other rules, for the parallel planner (rules/__init__.py).
COST = 25

_VERDICT = "TensorFlow rejects the graph at import"


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each node whose shape function fails or whose `_output_shapes` contradicts it."""
    inference = infer_shapes(graph)
    for issue in inference.issues:
        if issue.kind == "inference":
            yield Issue(issue.node, _inference_message(graph, inference, issue))
        else:
            yield Issue(issue.node, _output_shapes_message(issue), field=OUTPUT_SHAPES)


def _inference_message(graph: GraphIndex, inference: ShapeInference, issue: ShapeIssue) -> str:
    node = issue.node
    data_inputs = node.data_inputs
    shapes = [shape_text(shape) for shape in issue.shapes]
    index = issue.input_index
    message = issue.message.rstrip(".")
    values = _constants_used(graph, issue)
    where = f" in function '{issue.function}' (called by '{issue.caller}')" if issue.function is not None else ""
    if index is not None and index < len(data_inputs) and index < len(shapes):
        name = input_arg_name(graph, node, index)
        what = f"input '{name}'" if name else f"input #{index}"
        return (
            f"Node '{node.name}'{where}: {message} for {what} of {node.op} "
            f"(from '{data_inputs[index].raw}', shape {shapes[index]}){values}; {_VERDICT}"
        )
    shown = ", ".join(shapes) if shapes else "none"
    return f"Node '{node.name}'{where}: {message} for {node.op} with input shapes {shown}{values}; {_VERDICT}"


def _constants_used(graph: GraphIndex, issue: ShapeIssue) -> str:
    """`, with constant input 'dim' = 5`: the values the shape function read, as TensorFlow lists them."""
    data_inputs = issue.node.data_inputs
    shown = []
    for position, value in zip(issue.consts, issue.values):
        if position >= len(data_inputs) or value is None:
            continue
        items = ",".join(str(item) for item in value.values[:8]) + (",..." if len(value.values) > 8 else "")
        text = items if not value.dims else f"[{items}]"
        name = input_arg_name(graph, issue.node, position)
        shown.append(f"input '{name}' = {text}" if name else f"input #{position} = {text}")
    return f", with constant {'; '.join(shown)}" if shown else ""


def _output_shapes_message(issue: ShapeIssue) -> str:
    node = issue.node
    return (
        f"Node '{node.name}' (op {node.op}): attr '{OUTPUT_SHAPES}' says output {issue.output_index} is "
        f"{shape_text(issue.declared)}, inferred {shape_text(issue.inferred)} ({issue.message.rstrip('.')}); "
        f"{_VERDICT}"
    )
