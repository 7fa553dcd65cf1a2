"""The graph can be imported with the caller's `input_map`, `return_elements` and `name`, as TensorFlow checks them.

A frozen GraphDef has no signature: the code that serves it names its
inputs and outputs in `tf.graph_util.import_graph_def(graph_def,
input_map=..., return_elements=..., name=...)`, and a graph that no longer
matches that code fails there (`Requested return tensor 'output:0' not
found in graph def`). This rule checks those arguments, given through the
Python API (`tflint.lint_file(path, import_args={...})`,
`tflint.validate(path, input_map=..., return_elements=..., name=...)`),
with TensorFlow 2.21's semantics (each case recorded with the real importer
in the repository's tests/data/tf_import_cases.jsonl). Messages are
TensorFlow's:

- `name`: a non-empty name must match `^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$`
  (`'_a' is not a valid root scope name ...`), and the prefix it makes must
  be a valid node name (`Imported node name prefix 'a\\b/' would lead to
  invalid node names`); `name=''` with an `input_map` value that is not a
  Tensor (a Python list or number) is refused;
- tensor names: `x` is `x:0`; `x:a` and `x:0:1` are refused (`Cannot
  convert 'x:a' to a tensor name ...`); an `input_map` key `^x` remaps x's
  control output, and `x:-1` (a control output written as a tensor) is
  refused (`input_map entry ^x->... between control edge and non-control
  edge`);
- `return_elements`: a name with `:` is a tensor (`Requested return tensor
  'nope:0' not found in graph def`, `Invalid return output 5 of node 'x',
  which has 1 output(s)`; `x:-1` is accepted, `x:-2` is not), a name without is an
  operation (`Requested return node 'nope' not found in graph def`; `^x`
  is not a name TensorFlow finds). A tensor the `input_map` replaces is
  returned as its replacement, so it need not exist;
- `input_map` keys that no imported node reads are reported only when their
  node is missing or the output index out of range (`Attempted to map inputs
  that were not found in graph_def: [nope:0, x:5]`, sorted as TensorFlow
  sorts them); a key naming an existing tensor nobody reads is accepted;
- a replacement whose dtype (when given) differs from what a consumer
  expects: `Input 0 of node import/y was passed int32 from
  input_map['x:0'] incompatible with expected float.`

The `input_map` also changes what the rest of the graph is checked
against: an input it replaces is never looked up (`unresolved-input` does
not report it), and its given shape flows into shape inference
(`shape-mismatch` checks the consumers' `_output_shapes` against it). The
destination graph is the caller's, so what depends on it (uniquified
names, `tf.control_dependencies` naming missing operations) is not checked.
Without import arguments this rule reports nothing; for the tensors a graph
file must always have, see `interface-mismatch` and the `interface:` config.

How to fix: update the serving code's tensor names (or the graph's export
so that the names it promises exist), or correct the name prefix.

The examples are imported with `input_map={"x:0": {"dtype": "float32"}}`
and `return_elements=["y:0", "y"]`:

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT32 } } }   # import-contract
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.imports import (
    NON_TENSOR_NEEDS_NAME,
    TensorKey,
    TensorNameError,
    input_map_key,
    parse_tensor_name,
    shown,
)
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import dtype_name, signatures, types_compatible
from tflint.tf.serving import output_types

ID = "import-contract"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The import arguments the docstring's examples are linted with (tests/test_rule_docs.py).
EXAMPLE_IMPORT_ARGS = {"input_map": {"x:0": {"dtype": "float32"}}, "return_elements": ["y:0", "y"]}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each import argument TensorFlow would refuse for this graph."""
    args = graph.imports
    if args is None:
        return
    problem = args.name_problem()
    if problem is not None:
        yield Issue(None, f"name: {shown(problem)}")
    mapped: dict[TensorKey, Any] = {}
    for key, spec in args.input_map.items():
        try:
            parsed = input_map_key(key)
        except TensorNameError as error:
            yield Issue(None, f"input_map: {shown(str(error))}")
            continue
        if parsed.index == -1 and not key.startswith("^"):
            # `x:-1` names x's control output as a tensor key (ValidateInputMapAndControlDependencies).
            yield Issue(
                None,
                f"input_map: input_map entry {shown(str(parsed))}->input_map[{shown(repr(key))}] between control "
                "edge and non-control edge",
            )
            continue
        mapped[parsed] = (key, spec)
    if args.name == "" and any(spec.python_value for spec in args.input_map.values()):
        yield Issue(None, f"input_map: {NON_TENSOR_NEEDS_NAME}")
    yield from _return_elements(graph, args.return_elements or (), mapped)
    yield from _unused_keys(graph, mapped)
    yield from _replacement_dtypes(graph, mapped, args.prefix())


def _return_elements(graph: GraphIndex, elements: tuple[str, ...], mapped: dict[TensorKey, Any]) -> Iterator[Issue]:
    """PopulateReturnTensors, then PopulateReturnNodes: what `return_elements` names must exist."""
    operations = []
    for element in elements:
        if ":" not in element:
            operations.append(element)
            continue
        try:
            key = parse_tensor_name(element)
        except TensorNameError as error:
            yield Issue(None, f"return_elements: {shown(str(error))}")
            continue
        if key in mapped:
            continue  # TensorFlow returns the replacement
        node = graph.node(key.node)
        if node is None:
            yield Issue(None, f"return_elements: Requested return tensor '{shown(str(key))}' not found in graph def")
            continue
        types = output_types(graph, node)
        if key.index < -1 or (types is not None and key.index >= len(types)):
            count = len(types) if types is not None else "?"
            yield Issue(
                node,
                f"return_elements: Invalid return output {key.index} of node '{shown(key.node)}', "
                f"which has {count} output(s)",
            )
    for element in operations:
        if graph.node(element) is None:
            yield Issue(None, f"return_elements: Requested return node '{shown(element)}' not found in graph def")


def _unused_keys(graph: GraphIndex, mapped: dict[TensorKey, Any]) -> Iterator[Issue]:
    """PopulateMissingUnusedInputMapKeys: keys nobody reads whose tensor does not exist."""
    if not mapped:
        return
    read = {(item.node, item.index) for node in graph.nodes for item in node.inputs}
    missing = []
    for key in mapped:
        if key in read:
            continue
        node = graph.node(key.node)
        if node is None:
            missing.append(key)
            continue
        types = output_types(graph, node) if key.index >= 0 else None
        if types is not None and key.index >= len(types):
            missing.append(key)
    if missing:
        missing.sort(key=lambda key: (key.node.encode("utf-8", "surrogatepass"), key.index))
        names = ", ".join(shown(str(key)) for key in missing)
        yield Issue(None, f"input_map: Attempted to map inputs that were not found in graph_def: [{names}]")


def _replacement_dtypes(graph: GraphIndex, mapped: dict[TensorKey, Any], prefix: str) -> Iterator[Issue]:
    """MakeEdge: a consumer of a replaced tensor must accept the replacement's dtype."""
    typed = {key: value for key, value in mapped.items() if key.index >= 0 and value[1].dtype is not None}
    if not typed:
        return
    cache = signatures(graph)
    for node in graph.nodes:
        slot = 0
        for item in node.inputs:
            if item.is_control:
                continue
            found = typed.get((item.node, item.index))  # type: ignore[call-overload]
            if found is not None:
                key, spec = found
                signature = cache.resolved(node)
                types = signature.input_types if signature is not None else None
                expected = types[slot] if types is not None and slot < len(types) else None
                if expected is not None and not types_compatible(expected, spec.dtype):
                    yield Issue(
                        node,
                        f"input_map: Input {slot} of node {shown(prefix + node.name)} was passed "
                        f"{dtype_name(spec.dtype)} from input_map[{shown(repr(key))}] incompatible with expected "
                        f"{dtype_name(expected)}.",
                    )
            slot += 1
