"""Partial shape inference over a graph, the way TensorFlow's importer runs it (`ShapeRefiner`).

When TensorFlow imports a GraphDef it runs each node's C++ shape function in
topological order (`GraphConstructor::ValidateShape`): an error aborts the
import (`Shape must be rank 1 but is rank 0 for '{{node X}} = ...'`), and a
node's `_output_shapes` entries are then merged into the inferred shapes
(`Node 'X' has an _output_shapes attribute inconsistent with the GraphDef
for output #0: ...`); consumers see the merged shapes.

This module replays that for the top-level graph, and for the body of every
function a call reaches with the caller's shapes (`calls`: TensorFlow's
`InferShapesForFunction`), with shape functions for a set of common ops
(`registry.SHAPE_FNS`), each checked against TensorFlow 2.21 on randomly
generated graphs. A shape is a tuple of ints (-1 for an unknown
dimension) or None (unknown rank). The rule of the game is never to know
more than TensorFlow does:

- an op without a shape function here gets unknown outputs, refined by its
  `_output_shapes` as in TensorFlow; so do nodes whose attrs or inputs are
  malformed (other rules report those) and function calls the inference
  cannot follow (recursion, list-valued signatures, a spent budget);
- a loop `Merge` reads its back edge (from a `NextIteration`) as unknown, as
  TensorFlow does because that edge does not exist yet when it gets there,
  so its output is unknown and loops need no other special case;
- constant inputs (a reshape's shape, a reduction's axes) are read from the
  small integer subgraphs TensorFlow's refiner folds too (`constants`: Const,
  Identity chains, Shape/Size/Rank of known shapes, Pack, ConcatV2,
  StridedSlice, Cast, scalar arithmetic), a variable's shape only from a
  `VarHandleOp` reached through `Identity` nodes; TensorFlow folds more
  (any small constant subgraph) and forwards handle data further, so it may
  know more, never less;
- a shape function raises `ShapeError` only on known facts that contradict
  it, exactly where TensorFlow's returns an error.

So every error found here is one TensorFlow reports too, and a shape
inferred here is at most as precise as TensorFlow's. Evaluation is
iterative (an explicit stack, no recursion) and linear in nodes + edges;
`infer_shapes(graph)` computes it once per GraphIndex.

The package is laid out like TensorFlow's sources: `algebra` (InferenceContext's shape
algebra), `context` (what a shape function sees), `common` (common_shape_fns.cc), one module
per op family (`array_ops`, `math_ops`, `nn_ops`, ... like core/ops/*.cc), `registry` (op ->
shape function), `calls` (function bodies made inferable) and `inference` (the refiner).
"""

from tflint.tf.shapes.algebra import (
    MAX_CONST_ELEMENTS,
    MAX_RANK,
    ConstValue,
    Shape,
    ShapeError,
    Unknown,
    broadcast,
    compatible,
    merge,
    merge_dim,
    partial_shape,
    shape_text,
    with_rank,
    with_rank_at_least,
    with_rank_at_most,
)
from tflint.tf.shapes.context import Context, ShapeFn
from tflint.tf.shapes.inference import (
    OUTPUT_SHAPES,
    ShapeInference,
    ShapeIssue,
    infer_shapes,
    input_arg_name,
)
from tflint.tf.shapes.registry import SHAPE_FNS

__all__ = [
    "MAX_CONST_ELEMENTS",
    "MAX_RANK",
    "OUTPUT_SHAPES",
    "SHAPE_FNS",
    "ConstValue",
    "Context",
    "Shape",
    "ShapeError",
    "ShapeFn",
    "ShapeInference",
    "ShapeIssue",
    "Unknown",
    "broadcast",
    "compatible",
    "infer_shapes",
    "input_arg_name",
    "merge",
    "merge_dim",
    "partial_shape",
    "shape_text",
    "with_rank",
    "with_rank_at_least",
    "with_rank_at_most",
]
