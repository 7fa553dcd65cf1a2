"""What TF Serving does with one warm-up request: which checks of its APIs refuse it, and whether running it fails.

TF Serving runs each warm-up record through the API it logs (saved_model_warmup.cc):
Predict (predict_util.cc: the signature, default "serving_default", must exist; the request
may not have more inputs than the signature, nor fewer unless the signature has defaults; each
alias must be one of the signature's), Classify and Regress (the signature's method name must
be theirs), MultiInference (each task's signature must exist); a SessionRun log is refused.
TF Serving compares neither dtypes nor shapes with the signature: the request's tensors are fed
to the signature's tensors and the session runs. So a request is judged by what running it
does: a dtype other than the fed tensor's fails at once (`Expects arg[0] to be float but int32
is provided`), and its concrete shapes go through the shape inference of the graph the
signature runs, as TensorFlow's kernels would meet them; a shape the graph accepts is fine,
whatever the signature declares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tflint.records import record
from tflint.tf.attrs import type_name
from tflint.tf.index import GraphIndex
from tflint.tf.serving import base_type, output_types, resolve_tensor
from tflint.tf.shapes.algebra import Shape, shape_text
from tflint.tf.shapes.inference import ShapeInference, infer_shapes
from tflint.tf.tensors import DT_STRING, DTYPE_SIZE, INT64_MAX, MAX_DIMS, string_content_problem, tensor_content

WARMUP_FILE = "assets.extra/tf_serving_warmup_requests"
DEFAULT_SIGNATURE = "serving_default"
METHODS = {"classify": "tensorflow/serving/classify", "regress": "tensorflow/serving/regress"}
DT_RESOURCE, DT_VARIANT = 20, 21  # no tensor_content size (DTYPE_SIZE has neither)
# Distinct (signature, input shapes) runs of shape inference per graph: a warm-up file repeats a few.
MAX_SHAPE_RUNS = 8


@record(frozen=True)
class Refusal:
    """Why TF Serving refuses a request: its message, and whether it comes from running the graph (vs its API).

    `text()` is the phrase a finding uses: "TF Serving refuses it: MESSAGE", or "running it fails:
    MESSAGE" (a message from the shape inference says where: "running it fails at node ...").
    """

    message: str
    at_run: bool

    def __init__(self, message: str, at_run: bool = False) -> None:
        vars(self).update(message=message, at_run=at_run)

    def text(self) -> str:
        if not self.at_run:
            return f"TF Serving refuses it: {self.message}"
        return (
            f"running it fails {self.message}"
            if self.message.startswith("at ")
            else f"running it fails: {self.message}"
        )


def judge_request(graph: GraphIndex, kind: str | None, signature_name: str, inputs: Sequence[tuple[str, Any]],
                  tasks: Sequence[tuple[str, str]] = ()) -> Refusal | None:  # fmt: skip
    """The first reason TF Serving refuses this request on `graph`'s meta graph, or None when it runs."""
    meta = graph.meta_graph
    if kind is None or kind == "predict_streamed":
        return None  # TF Serving's warm-up skips a log without a request it runs
    if kind == "session_run":
        return Refusal("Unsupported log_type for warmup: session_run_log")
    signatures = meta.signature_def
    if kind == "multi_inference":
        for name, _ in tasks:
            if (name or DEFAULT_SIGNATURE) not in signatures:
                return Refusal(f'Signature "{name or DEFAULT_SIGNATURE}" not found')
        return None
    name = signature_name or DEFAULT_SIGNATURE
    if name not in signatures:
        return Refusal(f'Serving signature key "{name}" not found.')
    signature = signatures[name]
    if kind in METHODS:
        if signature.method_name != METHODS[kind]:
            return Refusal(f"Expected {kind} signature method_name to be {METHODS[kind]}. Was: {signature.method_name}")
        return None
    return _judge_predict(graph, name, signature, inputs)


def _judge_predict(graph: GraphIndex, name: str, signature: Any, inputs: Sequence[tuple[str, Any]]) -> Refusal | None:
    aliases = [alias for alias, _ in inputs]
    wanted = set(signature.inputs)
    if len(aliases) > len(wanted) or (len(aliases) < len(wanted) and not len(signature.defaults)):
        extra = sorted(set(aliases) - wanted)
        missing = sorted(wanted - set(aliases))
        return Refusal(
            f"input size does not match signature: {len(aliases)}!={len(wanted)}. Sent extra: {{{','.join(extra)}}}. "
            f"Missing but required: {{{','.join(missing)}}}."
        )
    for alias in aliases:
        if alias not in wanted:
            return Refusal(f"input tensor alias not found in signature: {alias}")
    feeds: dict[tuple[str, int], Shape] = {}
    for position, (alias, tensor) in enumerate(inputs):
        info = signature.inputs[alias]
        resolved = resolve_tensor(graph, info.name)
        if resolved.problem is not None or resolved.node is None:
            return None  # signature-unresolved's finding: nothing to run against
        expected = _fed_dtype(graph, resolved.node, resolved.index, info.dtype)
        if tensor is None or _unparsable(tensor):
            return Refusal(f"tensor parsing error: {alias}")
        if expected and tensor.dtype != expected:
            return Refusal(
                f"Expects arg[{position}] to be {type_name(expected)} but {type_name(tensor.dtype)} is provided",
                at_run=True,
            )
        # TensorFlow builds the tensor from the dimensions even when `unknown_rank` is set (none: a scalar).
        feeds[(resolved.node.name, resolved.index)] = tuple(dim.size for dim in tensor.tensor_shape.dim)
    return _shape_refusal(graph, name, feeds)


def _unparsable(tensor: Any) -> bool:
    """Whether TensorFlow's C++ Tensor::FromProto (what TF Serving calls) refuses this TensorProto.

    Checked with TF 2.21 through TF_TensorFromProto: it refuses a dtype it has no tensor for (none,
    a reference type, an unknown number), more than 254 dimensions, a dimension below 0, an element
    count past int64 (multiplied left to right: a 0 before the overflow saves it), and a non-empty
    `tensor_content` of another size than the elements need (strings: varint lengths, then bytes).
    It accepts a typed `*_val` list of any count (a short list is padded with its last value, a long
    one's surplus is dropped, a list in another dtype's field reads as zeros), and `unknown_rank`
    (the dimensions are used). A tensor too large to allocate fails too, but where depends on the
    server's memory: it is not judged here.
    """
    if tensor.dtype not in DTYPE_SIZE and tensor.dtype not in (DT_STRING, DT_RESOURCE, DT_VARIANT):
        return True
    dims = tensor.tensor_shape.dim
    if len(dims) > MAX_DIMS:
        return True
    count = 1
    for dim in dims:
        if dim.size < 0:
            return True
        count *= dim.size
        if count > INT64_MAX:
            return True
    content = tensor_content(tensor)
    if not content or not count:
        return False  # no elements: TensorFlow reads nothing
    if tensor.dtype == DT_STRING:
        return string_content_problem(content, count) is not None
    size = DTYPE_SIZE.get(tensor.dtype)
    return size is not None and len(content) != count * size


def _fed_dtype(graph: GraphIndex, node: Any, index: int, declared: int) -> int:
    types = output_types(graph, node)
    if types is not None and 0 <= index < len(types) and types[index]:
        return base_type(types[index])
    return base_type(declared)


def _shape_refusal(graph: GraphIndex, signature: str, feeds: dict[tuple[str, int], Shape]) -> Refusal | None:
    """A shape error the request's concrete shapes cause in the graph, that the graph alone does not have."""
    if not feeds:
        return None
    runs: dict[Any, Refusal | None] = graph.derived(_runs)
    key = (signature, tuple(sorted(feeds.items())))
    if key in runs:
        return runs[key]
    if len(runs) >= MAX_SHAPE_RUNS:
        return None  # shapes past the budget are not judged (never guessed)
    known = {(issue.node.function, issue.node.name, issue.message) for issue in infer_shapes(graph).issues}
    fed = ShapeInference(graph, feeds=feeds)
    refusal = None
    for issue in fed.issues:
        if (issue.node.function, issue.node.name, issue.message) in known:
            continue
        shapes = ", ".join(f"{node}:{index} {shape_text(shape)}" for (node, index), shape in sorted(feeds.items()))
        where = f"node '{issue.node.name}'" + (f" in function '{issue.node.function}'" if issue.node.function else "")
        refusal = Refusal(f"at {where} (fed {shapes}): {issue.message}", at_run=True)
        break
    runs[key] = refusal
    return refusal


def _runs(graph: GraphIndex) -> dict[Any, Refusal | None]:
    return {}


__all__ = ["WARMUP_FILE", "DEFAULT_SIGNATURE", "Refusal", "judge_request"]
