"""No two different functions share a name, no function is named like an op, no function has two gradients.

TensorFlow registers the graph's function library before it imports any
node (`FunctionLibraryDefinition::AddLibrary`), and refuses the graph when:

- two FunctionDefs have the same `signature.name` but are not equal:
  `Cannot add function 'f' because a different function with the same name
  already exists.` Equality is TensorFlow's `FunctionDefsEqual`: attr order,
  `control_output` order, body node order, the order of control inputs,
  `x` versus `x:0`, `_`-prefixed node attrs, `arg_attr` and
  `resource_arg_unique_id` do not matter; descriptions, devices, attr values
  (tensors by content, not encoding), `ret` and `control_ret` do. An exact
  duplicate is silently ignored, so it is not reported;
- a function has the name of a registered op (internal `_` ops included):
  `Cannot add function 'Neg' because an op with the same name already
  exists.`;
- two GradientDefs give one function different gradient functions:
  `Cannot assign gradient function 'g2' to 'f' because it already has
  gradient function 'g1'`.

The finding is on the later, conflicting definition (the one TensorFlow
refuses). How to fix: rename one of the functions (and the nodes and attrs
that call it), or drop the stale copy.

Okay:
  library {
    function {
      signature { name: "f" output_arg { name: "y" type: DT_FLOAT } }
      ret { key: "y" value: "c:output:0" }
      node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    }
    function {
      signature { name: "f" output_arg { name: "y" type: DT_FLOAT } }
      ret { key: "y" value: "c:output:0" }
      node_def { name: "c" op: "Const"
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
        attr { key: "dtype" value { type: DT_FLOAT } } }
    }
  }
Fail:
  library {
    function {
      signature { name: "f" output_arg { name: "y" type: DT_FLOAT } }
      ret { key: "y" value: "c:output:0" }
      node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    }
    function {
      signature { name: "f" output_arg { name: "y" type: DT_FLOAT } }   # function-name-conflict
      ret { key: "y" value: "c:output:0" }
      node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
    }
  }
Fail:
  library {
    function { signature { name: "Neg" } }   # function-name-conflict
  }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from tflint.finding import Issue, Severity, at_function
from tflint.tf.functions import function_defs_equal, registered_op
from tflint.tf.index import GraphIndex

ID = "function-name-conflict"
CATEGORY = "function"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue per conflicting FunctionDef, per function named like an op, per gradient conflict."""
    first: dict[str, tuple[Any, int]] = {}
    for scope in graph.function_scopes:
        function = scope.function
        name = cast(str, scope.name)  # function scopes are named and numbered
        ordinal_here = cast(int, scope.function_ordinal)
        where = at_function(ordinal_here)
        if name in first:
            existing, ordinal = first[name]
            if not function_defs_equal(existing, function):
                yield Issue(
                    None,
                    f"Function '{name}' (library entry {ordinal_here + 1}) is defined differently by "
                    f"library entry {ordinal + 1}: "
                    "TensorFlow refuses a second, different function with the same name",
                    function=name,
                    library=True,
                    at=where,
                )
            continue
        first[name] = (function, ordinal_here)
        if registered_op(graph, name) is not None:
            yield Issue(
                None,
                f"Function '{name}' has the name of a registered op: TensorFlow refuses a function that would shadow "
                "an op",
                function=name,
                library=True,
                at=where,
            )
    gradients: dict[str, str] = {}
    for gradient in graph.gradients:
        assigned = gradients.setdefault(gradient.function_name, gradient.gradient_func)
        if assigned != gradient.gradient_func:
            yield Issue(
                None,
                f"Function '{gradient.function_name}' is given gradient function '{gradient.gradient_func}' "
                f"but already has gradient function '{assigned}'",
                function=gradient.function_name,
                library=True,
            )
