"""The tensors the configuration's `interface:` lists exist, with the dtype and a shape compatible with the given one.

A frozen GraphDef has no SignatureDef: its inputs and outputs are a
contract with the code that serves it (`feed_dict={"input:0": ...}`,
`sess.run("softmax:0")`, `tf.graph_util.import_graph_def(...,
input_map=..., return_elements=...)`). The `interface:` section of
`.tflint.yaml` writes that contract down per file glob, and this rule checks
it the way `signature-unresolved`, `signature-dtype` and `signature-shape`
check a SavedModel's signatures:

```yaml
interface:
  "models/frozen_*.pb":           # a glob in gitignore syntax, relative to the config file
    inputs:
      "input:0": {dtype: float32, shape: [null, 224, 224, 3]}   # null or -1: any size
    outputs:
      "softmax:0": {dtype: float32, shape: [null, 1000]}
      "init_all_tables": {}        # no ':' in an output: an operation to run
```

Names follow `import_graph_def`: an input `x` is `x:0` (`^x` names the
operation), an output with `:` is a tensor and without one an operation. An
error is reported for a tensor whose node the graph lacks, an output index
the node does not have, a dtype other than the listed one, and a shape
incompatible with the one shape inference gives the tensor (ranks differ, or
two known sizes differ; a size or shape the graph leaves unknown is
compatible with anything, as in TensorFlow). The first glob that matches a
file applies; globs follow gitignore, as `exclude` and `per-file-ignores` do
(`models/*.pb` stays in `models/`, `models/**/*.pb` goes below it). Without
an `interface:` entry for a file this rule reports nothing; for the arguments
of one `import_graph_def` call, see `import-contract`.

How to fix: export the graph with the names, dtypes and shapes the serving
code expects, or update the interface (and the code) to the new ones.

The examples are linted with the interface `inputs: {"x:0": {dtype:
float32, shape: [null, 3]}}`, `outputs: ["y:0"]`:

Okay:
  node {
    name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } }
  }
  node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
Fail:
  node {
    name: "x" op: "Placeholder"   # interface-mismatch, interface-mismatch
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: 3 } } } }
  }
  node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_INT32 } } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.imports import TensorNameError, input_map_key, parse_tensor_name, shown
from tflint.tf.index import GraphIndex
from tflint.tf.op_signatures import dtype_name
from tflint.tf.serving import base_type, output_types
from tflint.tf.shapes import compatible, infer_shapes, shape_text

ID = "interface-mismatch"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}
# The configuration the docstring's examples are linted with (tests/test_rule_docs.py).
EXAMPLE_CONFIG = {"interface": {"*": {"inputs": {"x:0": {"dtype": "float32", "shape": [None, 3]}}, "outputs": ["y:0"]}}}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each listed tensor that is missing, or whose dtype or shape differs."""
    interface = graph.interface
    if interface is None:
        return
    for kind, name, spec in interface.entries():
        what = f"Interface {kind} '{shown(name)}'"
        try:
            if kind == "input":
                key = input_map_key(name)
            elif ":" in name:
                key = parse_tensor_name(name)
            else:
                key = input_map_key(f"^{name}")  # an operation
        except TensorNameError as error:
            yield Issue(None, f"{what}: {shown(str(error))}")
            continue
        node = graph.node(key.node)
        if node is None:
            yield Issue(None, f"{what}: the graph has no node '{shown(key.node)}'")
            continue
        if key.index < 0:
            continue  # an operation: it exists
        types = output_types(graph, node)
        if types is not None and key.index >= len(types):
            count = len(types)
            plural = "s" if count != 1 else ""
            yield Issue(node, f"{what}: node '{shown(node.name)}' (op {shown(node.op)}) has {count} output{plural}")
            continue
        if spec.dtype is not None and types is not None and base_type(types[key.index]) != base_type(spec.dtype):
            yield Issue(
                node,
                f"{what} is listed as {dtype_name(spec.dtype)}, but the graph's tensor is "
                f"{dtype_name(types[key.index])}",
            )
        if spec.shape is not None:
            actual = infer_shapes(graph).output_shape(node, key.index)
            if not compatible(actual, spec.shape):
                yield Issue(
                    node,
                    f"{what} is listed with shape {shape_text(spec.shape)}, but the graph's tensor has shape "
                    f"{shape_text(actual)}, which is incompatible",
                )
