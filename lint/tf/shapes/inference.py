"""The inference driver: TensorFlow's `ShapeRefiner` replayed over the top-level graph and the bodies it calls."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from tflint.tf.index import MERGE_OPS, NEXT_ITERATION_OPS, GraphIndex
from tflint.tf.node import Input, Node
from tflint.tf.op_signatures import signatures
from tflint.tf.shapes.algebra import (
    ConstValue,
    Shape,
    ShapeError,
    Unknown,
    compatible,
    merge,
    partial_shape,
    shape_text,
)
from tflint.tf.shapes.calls import CALL_OPS, DT_RESOURCE, FunctionBody, build_body, called_function
from tflint.tf.shapes.constants import NOT_PARTIAL, evaluate, partial_shape_value
from tflint.tf.shapes.context import Context, ShapeFn
from tflint.tf.shapes.registry import SHAPE_FNS

OUTPUT_SHAPES = "_output_shapes"


class ShapeIssue:
    """A problem TensorFlow's shape validation reports for one node.

    `kind` is "inference" (the node's shape function fails, S1) or
    "output-shapes" (an `_output_shapes` entry contradicts the inferred
    shape, S3). An issue inside a function body names the function and the
    node whose call reached it (`function`, `caller`).
    """

    __slots__ = (
        "node",
        "kind",
        "message",
        "input_index",
        "output_index",
        "declared",
        "inferred",
        "consts",
        "shapes",
        "values",
        "function",
        "caller",
    )

    def __init__(
        self,
        node: Node,
        kind: str,
        message: str,
        input_index: int | None = None,
        output_index: int | None = None,
        declared: Shape = None,
        inferred: Shape = None,
        consts: tuple[int, ...] = (),
        shapes: tuple[Shape, ...] = (),
        values: tuple[ConstValue | None, ...] = (),
    ) -> None:
        self.node = node
        self.kind = kind
        self.message = message
        self.input_index = input_index
        self.output_index = output_index
        self.declared = declared
        self.inferred = inferred
        # The data inputs whose constant values the shape function read (in order, once each),
        # every data input's shape and the values read (one per entry of `consts`) as it saw them.
        self.consts = consts
        self.shapes = shapes
        self.values = values
        self.function: str | None = None
        self.caller: str | None = None


# Python errors a shape function may hit on a malformed node nobody anticipated (tests set this to ()).
GUARDED_ERRORS: tuple[type[Exception], ...] = (ArithmeticError, IndexError, ValueError, TypeError)

# Per-node evaluation states, kept in the same list as the results (a result is a tuple or None).
_PENDING = "pending"


class _ConstsRead:
    """Memo entry: the first node of its kind read these data inputs' Const values (positions in order).

    The results of the nodes of that kind are memoized here, by what those inputs are (_const_identities).
    """

    __slots__ = ("positions", "distinct", "position", "results")

    def __init__(self, positions: tuple[int, ...]) -> None:
        self.positions = positions
        # What tells the Consts apart: each position once (Reshape reads its shape twice), and the
        # one position when there is one (most shape functions read one), else -1.
        self.distinct = tuple(dict.fromkeys(positions))
        self.position = self.distinct[0] if len(self.distinct) == 1 else -1
        self.results: dict[Any, Any] = {}


_VISITING = "visiting"

_UNREADABLE = object()  # an `_output_shapes` value TensorFlow ignores or rejects (invalid-shape's findings)

# How deep calls nest inside called bodies before the inner ones count as unknown (TensorFlow recurses
# without a bound, and overflows its stack on a recursive function: recursive-function's finding).
MAX_CALL_DEPTH = 32
# Body nodes inferred per graph, beyond which further calls count as unknown: each distinct call (function,
# input shapes, values, handles) infers its body once, so a graph needs this only when it calls big
# functions with many different shapes. Keeps the work linear in the graph's size.
BODY_BUDGET_FACTOR = 2
BODY_BUDGET_MINIMUM = 100_000


_INTEGER_ARGS = frozenset({0, 3, 9})  # an unbound type, DT_INT32, DT_INT64


class _Arguments:
    """What a call passes to a body: per argument, its shape, its constant value and its handle data."""

    __slots__ = ("shapes", "values", "handles")

    def __init__(
        self,
        shapes: tuple[Shape, ...],
        values: tuple[ConstValue | None, ...],
        handles: tuple[tuple[int, Shape] | None, ...],
    ) -> None:
        self.shapes = shapes
        self.values = values
        self.handles = handles


class ShapeInference:
    """Shapes of the top-level graph's outputs and the shape problems TensorFlow reports at import.

    Nodes are evaluated in file order, which TensorFlow's own graphs almost
    always follow; a node whose producer comes later is evaluated after it
    with an explicit depth-first stack. Results are kept per node as a tuple
    of output shapes (None: all unknown): tuples of ints are not tracked by
    the garbage collector for long, lists would make it rescan the heap.

    A function call runs another ShapeInference over the called body with the
    caller's arguments (`calls`), once per distinct call: its issues are the
    root's, located on the body's nodes, and its results are the call's outputs.
    """

    _functions: dict[str, ShapeFn]
    _interned: dict[tuple[Shape, ...], tuple[Shape, ...]]
    _memo: dict[Any, Any]
    _results: list[Any]

    def __init__(
        self,
        graph: GraphIndex,
        body: FunctionBody | None = None,
        root: ShapeInference | None = None,
        arguments: _Arguments | None = None,
        feeds: dict[tuple[str, int], Shape] | None = None,
    ) -> None:
        """`feeds`: top-level tensors (node, output) given a concrete shape, as a session feed replaces them (a
        warm-up request's tensors, a batch size)."""
        self.graph = graph
        # TensorFlow's refiner uses min(its own GraphDef version, the graph's producer).
        self.producer = graph.producer
        self.issues: list[ShapeIssue] = []
        self._body = body
        self._arguments = arguments
        self._handles: dict[int, tuple[int, Shape] | None] = {}
        # Handle data of list and TensorArray handles: (node ordinal, output) -> (dtype, element shape).
        self.handles: dict[tuple[int, int], tuple[int, Shape]] = {}
        # Values of (node ordinal, output index) as constants.evaluate computed them.
        self.values: dict[tuple[int, int], ConstValue | None] = {}
        self.partials: dict[tuple[int, int], Any] = {}
        self._declared_memo: dict[Any, Any] = {}
        self._output_counts: dict[tuple[str, int], Any] = {}
        # Tensors the caller's input_map replaces: their consumers see the replacement's shape.
        self._mapped: dict[tuple[str, int], Shape] | None = None
        self._context = Context(self)
        if body is not None and root is not None and arguments is not None:
            self._root = root
            self._nodes = body.nodes
            self._by_name = body.by_name
            self._functions = root._functions
            self._interned = root._interned
            self._memo = root._memo
            self._results = [_PENDING] * len(body.nodes) + [(shape,) for shape in arguments.shapes]
            self._run()
            return
        self._root = self
        scope = graph.main
        self._nodes = scope.nodes
        self._by_name = scope.by_name
        library = graph.function_by_name
        # A function of the library named like an op shadows it (function-name-conflict's finding).
        self._functions = {op: fn for op, fn in SHAPE_FNS.items() if op not in library}
        if library:
            self._functions.update({op: _call for op in CALL_OPS if op not in library})
            self._functions.update({name: _call for name in library})
        self._results = [_PENDING] * len(self._nodes)
        self._interned = {}
        # Results by (op, id(attrs), input shapes), and by the Consts read (see _const_identities);
        # the nodes keep their attr dicts (and ids) alive.
        self._memo = {}
        # The called bodies (by function name), each call's outputs by what it passes, the functions
        # being inferred (innermost last), the body nodes still to spend, the body nodes reported.
        self._bodies: dict[str, FunctionBody | None] = {}
        self._targets: dict[tuple[str, int], Any] = {}
        self._calls: dict[Any, tuple[Shape, ...] | None] = {}
        self._active: list[str] = []
        self._budget = 0
        if library:
            total = sum(len(scope.nodes) for scope in graph.scopes())
            self._budget = max(BODY_BUDGET_FACTOR * total, BODY_BUDGET_MINIMUM)
        self._reported: set[int] = set()
        if graph.imports is not None:
            mapped = {key: spec.shape for key, spec in graph.imports.mapped_keys().items() if key.index >= 0}
            self._mapped = mapped or None
        if feeds:
            self._mapped = {**(self._mapped or {}), **feeds}
        self._run()

    # -- public --------------------------------------------------------------

    def output_shape(self, node: Node, index: int) -> Shape:
        """The (merged) shape of output `index` of a top-level node, None when unknown."""
        if node.function is not None or index < 0:
            return None
        outputs = self._outputs_of(node)
        return outputs[index] if outputs is not None and index < len(outputs) else None

    def input_shape(self, item: Input) -> Shape:
        """The shape of the tensor a data input of a top-level node reads (None when unknown)."""
        if self._mapped is not None and (item.node, item.index) in self._mapped:
            return self._mapped[item.node, item.index]
        producer = self._by_name.get(item.node)
        if producer is None:
            return None
        return self.output_shape(producer, item.index)

    def node_outputs(self, node: Node) -> tuple[Shape, ...] | None:
        """The output shapes of one of this inference's own nodes (top-level or, for a body's, the body's copy)."""
        return self._outputs_of(node)

    def node_input_shapes(self, node: Node) -> list[Shape]:
        """The shapes of the tensors `node`'s data inputs read, for one of this inference's own nodes."""
        shapes: list[Shape] = []
        for item in node.data_inputs:
            if self._mapped is not None and (item.node, item.index) in self._mapped:
                shapes.append(self._mapped[item.node, item.index])
                continue
            producer = self._by_name.get(item.node)
            outputs = None if producer is None else self._outputs_of(producer)
            shapes.append(outputs[item.index] if outputs is not None and 0 <= item.index < len(outputs) else None)
        return shapes

    def called(self, node: Node) -> tuple[FunctionBody, ShapeInference] | None:
        """The body a call node of this inference runs, inferred with the call's arguments (None: not followed).

        For what the inference of a body knows of each of its nodes (what a model costs); the same
        limits as following the call during inference (depth, recursion, the budget).
        """
        root = self._root
        body = root._targets.get((node.op, id(node.attr)), _PENDING)
        if body is _PENDING:
            body = root._targets[node.op, id(node.attr)] = root._target(node)
        inputs = node.data_inputs
        if body is None or len(inputs) != len(body.input_types):
            return None
        if body.name in root._active or len(root._active) >= MAX_CALL_DEPTH or root._budget < len(body.nodes):
            return None
        root._budget -= len(body.nodes)
        types = body.input_types
        shapes = tuple(self.node_input_shapes(node))
        values = tuple(self.const_value(item) if dtype in _INTEGER_ARGS else None for item, dtype in zip(inputs, types))
        handles = tuple(self.var_handle(item) if dtype == DT_RESOURCE else None for item, dtype in zip(inputs, types))
        root._active.append(body.name)
        try:
            return body, ShapeInference(self.graph, body, root, _Arguments(shapes, values, handles))
        finally:
            root._active.pop()

    # -- evaluation ----------------------------------------------------------

    def _run(self) -> None:
        self._evaluate(self._nodes)

    def _evaluate_from(self, start: Node) -> None:
        """Evaluate `start` after its not-yet-evaluated producers (an explicit depth-first stack)."""
        functions = self._functions
        results = self._results
        by_name = self._by_name
        stack = [start]
        while stack:
            node = stack[-1]
            ordinal = node.ordinal
            current = results[ordinal]
            if current is not _PENDING and current is not _VISITING:
                stack.pop()
                continue
            if current is _PENDING:
                results[ordinal] = _VISITING
                pushed = False
                loop_head = node.op in MERGE_OPS
                for item in node.inputs:
                    producer = by_name.get(item.node)
                    if (
                        producer is not None
                        and not item.is_control
                        and results[producer.ordinal] is _PENDING
                        and producer.op in functions
                    ):
                        if loop_head and producer.op in NEXT_ITERATION_OPS:
                            continue  # a back edge
                        stack.append(producer)
                        pushed = True
                if pushed:
                    continue
            # Every producer is done, or on the stack below us (a cycle: its shape is unknown).
            stack.pop()
            self._evaluate((node,))

    def _evaluate(self, nodes: Iterable[Node]) -> None:
        """Run the shape function of each of `nodes` not evaluated yet: the hot loop of the inference.

        A node whose producer still has to be evaluated is evaluated after it (_evaluate_from,
        which calls this with the node _VISITING: a producer still pending is in a cycle). Nodes with the
        same op, the same (shared) attr dict and the same input shapes get the same result, found
        in the memo by a key built as the shapes are read: (op, id(attrs), shape of input 0, ...).
        """
        functions = self._functions
        results = self._results
        by_name = self._by_name
        memo = self._memo
        pending = _PENDING
        for node in nodes:
            op = node.op
            fn = functions.get(op)
            if fn is None:
                continue
            ordinal = node.ordinal
            current = results[ordinal]
            if current is not pending and current is not _VISITING:
                continue
            inputs = node.inputs
            if not inputs:  # a Const, a Placeholder, a variable...: nearly half the nodes of a graph
                kind_key: tuple[Any, ...] = (op, id(node.attr))
            else:
                if inputs[-1].is_control:
                    inputs = tuple([item for item in inputs if not item.is_control])
                key: list[Any] = [op, id(node.attr)]
                append = key.append
                loop_head = op in MERGE_OPS
                blocked = False
                for _, name, index, _, _ in inputs:  # Input tuples, unpacked
                    producer = by_name.get(name)
                    if producer is None or (loop_head and producer.op in NEXT_ITERATION_OPS):
                        append(None)  # no such node, or a back edge: TensorFlow has not built its source yet
                        continue
                    outputs = results[producer.ordinal]
                    if type(outputs) is not tuple:
                        if outputs is pending:
                            if producer.op in functions:
                                if current is pending:
                                    blocked = True  # evaluated after its producers, below
                                    break
                                outputs = None  # cannot happen: _evaluate_from evaluated it first
                            else:
                                outputs = self._outputs_of(producer)
                            if outputs is None:
                                append(None)
                                continue
                        else:  # None (unknown), or _VISITING (a cycle)
                            append(None)
                            continue
                    append(outputs[index] if 0 <= index < len(outputs) else None)
                if blocked:
                    self._evaluate_from(node)
                    continue
                if self._mapped is not None:  # the caller's input_map: once per node, not in the loop above
                    for position, item in enumerate(inputs, start=2):
                        if (item.node, item.index) in self._mapped:
                            key[position] = self._mapped[item.node, item.index]
                kind_key = tuple(key)
            result = memo.get(kind_key, pending)
            if type(result) is _ConstsRead:
                position = result.position
                identity = (
                    self._const_identity(inputs, position)
                    if position >= 0
                    else self._const_identities(inputs, result.distinct)
                )
                result = result.results.get(identity, pending)
            if result is pending:
                self._infer(node, fn, inputs, kind_key)
            else:
                results[ordinal] = result

    def _infer(self, node: Node, fn: ShapeFn, inputs: tuple[Input, ...], kind_key: tuple[Any, ...]) -> None:
        """Run the shape function of `node`, whose input shapes are known (in `kind_key`), and memoize its result.

        The memo has no result for the node: it holds nothing for `kind_key` yet, or the Const
        inputs the first node of its kind read (then results are memoized by what those are).
        """
        memo = self._memo
        first_read = memo.get(kind_key, _PENDING)
        shapes: list[Shape] = list(kind_key[2:])
        context = self._context
        context.node = node
        context.inputs = inputs
        context.shapes = shapes
        context._schema = None
        consts_read: list[int] = []
        context.consts_read = consts_read
        context.read_handles = False
        issues = len(self.issues)
        result: tuple[Shape, ...] | None
        try:
            outputs = fn(context)
        except ShapeError as error:
            read = tuple(dict.fromkeys(consts_read))
            values = tuple(self.const_value(inputs[position]) if position < len(inputs) else None for position in read)
            self.issues.append(
                ShapeIssue(
                    node,
                    "inference",
                    error.message,
                    input_index=error.input_index,
                    consts=read,
                    shapes=tuple(shapes),
                    values=values,
                )
            )
            result = None
        except Unknown:
            result = self._refine(node, None)
        except GUARDED_ERRORS:
            # A case of a malformed node this module did not anticipate: the node stays
            # unknown rather than crash the whole run.
            result = self._refine(node, None)
        else:
            result = tuple(outputs)
            if OUTPUT_SHAPES in node.attr:
                result = self._refine(node, result)
        if result is not None:
            # Graphs repeat a few shapes many times: keep one copy (less memory, less GC work).
            result = self._interned.setdefault(result, result)
        self._results[node.ordinal] = result
        if not context.read_handles and len(self.issues) == issues:
            if not consts_read:
                memo[kind_key] = result
            elif first_read is _PENDING:  # the first of its kind: later ones look up the same inputs
                entry = memo[kind_key] = _ConstsRead(tuple(consts_read))
                entry.results[self._const_identities(inputs, entry.distinct)] = result
            elif type(first_read) is _ConstsRead and first_read.positions == tuple(consts_read):
                first_read.results[self._const_identities(inputs, first_read.distinct)] = result
            # else: it read other inputs than the first of its kind (its values chose another
            # path), and nothing would look it up by those.

    def _const_identities(self, inputs: Any, positions: tuple[int, ...]) -> Any:
        """What the Const inputs at `positions` are, as far as const_value can tell them apart.

        A shape function is a function of the node's attrs, its input shapes and
        the values it reads, so nodes that agree on all of them (their first
        read the same input, with the same value, so their second read is the
        same input too, and so on) get the same result. A Const's value is its
        producer's attr dict (shared by identical nodes) and output index; a
        value computed from a subgraph (constants.evaluate) is the value itself.
        One identity when there is one position (most shape functions read one), else a tuple.
        """
        if len(positions) == 1:
            return self._const_identity(inputs, positions[0])
        return tuple([self._const_identity(inputs, position) for position in positions])

    def _const_identity(self, inputs: Any, position: int) -> Any:
        if position >= len(inputs):
            return None
        item: Input = inputs[position]
        producer = self._by_name.get(item.node)
        if producer is None:
            return None
        if producer.op == "Const":
            return id(producer.attr) if item.index == 0 else ("Const", id(producer.attr), item.index)
        value = self.const_value(item)  # a computed value: the value itself
        known = None if value is None else (value.dims, value.values, value.dtype)
        return (producer.op, known, self.partial_value(item))

    def _outputs_of(self, node: Node) -> tuple[Shape, ...] | None:
        """A node's output shapes; for a node without a shape function, from its own `_output_shapes`."""
        ordinal = node.ordinal
        current = self._results[ordinal]
        if current is _PENDING:
            if node.op in self._functions:
                return None  # not evaluated (cannot happen once the inference ran)
            outputs = self._refine(node, None)
            self._results[ordinal] = outputs
            return outputs
        if current is _VISITING:
            return None
        known: tuple[Shape, ...] | None = current
        return known

    def _refine(self, node: Node, outputs: tuple[Shape, ...] | None) -> tuple[Shape, ...] | None:
        """Merge the node's `_output_shapes` into its inferred outputs, as TensorFlow does after inference.

        Not inside a function body: there TensorFlow runs the shape functions alone.
        """
        value = node.attr.get(OUTPUT_SHAPES)
        if value is None or self._body is not None:
            return outputs
        declared = self._declared(value)
        if declared is _UNREADABLE:
            return outputs
        if outputs is None:
            count = self._output_count(node)
            if count is None or len(declared) < count:
                return None
            refined: tuple[Shape, ...] = declared[:count]
            return refined
        if len(declared) < len(outputs):
            return outputs  # invalid-shape reports the missing entries
        if declared[: len(outputs)] == outputs:
            return outputs
        merged = []
        for index, inferred in enumerate(outputs):
            entry = declared[index]
            if entry == inferred or entry is None:
                merged.append(inferred)
            elif compatible(inferred, entry):
                merged.append(merge(inferred, entry))
            else:
                self.issues.append(
                    ShapeIssue(
                        node,
                        "output-shapes",
                        _mismatch(inferred, entry),
                        output_index=index,
                        declared=entry,
                        inferred=inferred,
                    )
                )
                merged.append(None)
        return tuple(merged)

    def _output_count(self, node: Node) -> int | None:
        """How many outputs `node` has, when its signature can be computed (memoized per op and attr dict).

        The signature of this node alone: building every node's (op_signatures.table) costs more.
        """
        key = (node.op, id(node.attr))
        count = self._output_counts.get(key, _PENDING)
        if count is _PENDING:
            signature = signatures(self.graph).resolved_alone(node)
            count = None if signature is None or signature.output_types is None else len(signature.output_types)
            self._output_counts[key] = count
        found: int | None = count
        return found

    def _declared(self, value: Any) -> Any:
        """An `_output_shapes` value as a tuple of shapes, or _UNREADABLE (memoized per distinct value)."""
        # Readers share one AttrValue object per distinct value; the nodes keep it (and its id) alive.
        key = id(value)
        found = self._declared_memo.get(key)
        if found is None:
            found = _read_declared(value)
            self._declared_memo[key] = found
        return found

    def var_handle(self, item: Input) -> tuple[int, Shape] | None:
        """(dtype, shape) of the variable a directly connected VarHandleOp declares (or a call passes), or None."""
        if "Identity" in self._functions:  # a function named Identity shadows the op: it forwards nothing
            producer, item = self._past_identities(item)
        else:
            producer = self._by_name.get(item.node)
        if producer is not None and producer.op == "_Arg" and item.index == 0:
            position = self._argument_position(producer)
            if position is not None and self._arguments is not None:
                return self._arguments.handles[position]
        if producer is None or item.index != 0 or producer.op != "VarHandleOp" or "VarHandleOp" not in self._functions:
            return None
        key = -1 - producer.ordinal
        if key in self._handles:
            return self._handles[key]
        found: tuple[int, Shape] | None = None
        dtype = producer.attr.get("dtype")
        shape = producer.attr.get("shape")
        if (
            dtype is not None
            and dtype.WhichOneof("value") == "type"
            and shape is not None
            and shape.WhichOneof("value") == "shape"
        ):
            try:
                found = (dtype.type, partial_shape(shape.shape))
            except Unknown:
                found = None
        self._handles[key] = found
        return found

    def handle_data(self, item: Input) -> tuple[int, Shape] | None:
        """The handle data a shape function recorded for the tensor `item` reads, through Identity chains."""
        if not self.handles:
            return None
        producer, item = self._past_identities(item)
        if producer is None:
            return None
        return self.handles.get((producer.ordinal, item.index))

    def _past_identities(self, item: Input) -> tuple[Node | None, Input]:
        """The producer of the tensor `item` reads, and the input it is read by, past a chain of Identity nodes.

        Identity forwards handle data (`UnchangedShape`), so handle data is looked up where the chain
        starts (at most 64 deep). (None, item) when the chain breaks on a control or missing input.
        """
        producer = self._by_name.get(item.node)
        seen = 0
        while producer is not None and producer.op == "Identity" and item.index == 0 and seen < 64:
            inputs = producer.inputs
            if not inputs or inputs[0].is_control:
                return None, item
            item = inputs[0]
            producer = self._by_name.get(item.node)
            seen += 1
        return producer, item

    def const_value(self, item: Input) -> ConstValue | None:
        """The int32/int64 value of a data input, when a small constant subgraph computes it (see constants)."""
        return evaluate(self, item)

    def partial_value(self, item: Input) -> Any:
        """A shape argument read element by element, as TensorFlow's refiner does (memoized per graph)."""
        producer = self._by_name.get(item.node)
        if producer is None:
            return NOT_PARTIAL
        key = (producer.ordinal, item.index)
        found = self.partials.get(key, _PENDING)
        if found is _PENDING:
            found = self.partials[key] = partial_shape_value(self, item)
        return found

    def argument_value(self, node: Node) -> ConstValue | None:
        """The value the caller passes for a body's argument node (when a constant), else None."""
        position = self._argument_position(node)
        if position is None or self._arguments is None:
            return None
        return self._arguments.values[position]

    def _argument_position(self, node: Node) -> int | None:
        """Which argument of the body being inferred `node` is (None: not one)."""
        body = self._body
        if body is None:
            return None
        position = node.ordinal - len(body.nodes)
        return position if 0 <= position < len(body.args) and body.args[position] is node else None

    # -- function calls ------------------------------------------------------

    def call_outputs(self, c: Context) -> list[Shape]:
        """The outputs of the call `c.node`, from its body inferred with the caller's arguments (`calls`).

        Unknown (raises Unknown) when the call cannot be followed: a function the
        library lacks or whose signature it cannot handle, arguments that disagree
        with the signature (input-count's and call-signature's findings), a function
        already being inferred (recursion), calls nested too deep, the budget spent.
        """
        node = c.node
        root = self._root
        # What a call node calls depends on its op and attrs alone: looked up once per distinct attr dict.
        target_key = (node.op, id(node.attr))
        body = root._targets.get(target_key, _PENDING)
        if body is _PENDING:
            body = root._targets[target_key] = root._target(node)
        if body is None or len(c.shapes) != len(body.input_types):
            raise Unknown
        name = body.name
        c.read_handles = True  # the result depends on more than the memo key of a node: never memoized there
        inputs = c.inputs
        types = body.input_types
        # Only int32 / int64 values are ever constants here (0: a type the function's attrs set).
        values = tuple(self.const_value(item) if dtype in _INTEGER_ARGS else None for item, dtype in zip(inputs, types))
        handles = tuple(self.var_handle(item) if dtype == DT_RESOURCE else None for item, dtype in zip(inputs, types))
        shapes = tuple(c.shapes)
        key = (
            name,
            shapes,
            tuple(None if value is None else (value.dims, value.values, value.dtype) for value in values),
            handles,
        )
        if key in root._calls:
            found = root._calls[key]
        else:
            if name in root._active or len(root._active) >= MAX_CALL_DEPTH or root._budget < len(body.nodes):
                raise Unknown
            root._budget -= len(body.nodes)
            root._active.append(name)
            try:
                inner = ShapeInference(self.graph, body, root, _Arguments(shapes, values, handles))
            finally:
                root._active.pop()
            found = inner._returns()
            root._calls[key] = found
            root._report(inner.issues, body, node)
        if found is None:
            raise Unknown
        return list(found)

    def _target(self, node: Node) -> FunctionBody | None:
        """The body `node` calls, when its inference can follow the call (see call_outputs)."""
        name = called_function(node, self.graph.function_by_name)
        body = None if name is None else self._body_of(name)
        if body is None:
            return None
        if node.op in CALL_OPS and (
            _type_list(node, "Tin") != body.input_types or _type_list(node, "Tout") != body.output_types
        ):
            return None
        return body

    def _body_of(self, name: str) -> FunctionBody | None:
        """The body of library function `name`, made inferable (built once per graph)."""
        if name not in self._bodies:
            body = None
            for scope in self.graph.function_scopes:
                if scope.name == name:
                    body = build_body(self.graph, scope)
                    break
            self._bodies[name] = body
        return self._bodies[name]

    def _returns(self) -> tuple[Shape, ...] | None:
        """The shapes a body returns (after its inference), None when none is known."""
        body = self._body
        if body is None:
            return None
        shapes = []
        for item in body.returns:
            producer = None if item is None else self._by_name.get(item.node)
            outputs = None if producer is None else self._outputs_of(producer)
            index = item.index if item is not None else -1
            shapes.append(outputs[index] if outputs is not None and 0 <= index < len(outputs) else None)
        return None if all(shape is None for shape in shapes) else tuple(shapes)

    def _report(self, issues: list[ShapeIssue], body: FunctionBody, caller: Node) -> None:
        """Keep a body's issues, located on the body's own nodes (the first one found for each node)."""
        for issue in issues:
            if issue.function is None:  # an issue of this body's own node (nested bodies' ones are mapped already)
                original = body.originals[issue.node.ordinal]
                if id(original) in self._reported:
                    continue
                self._reported.add(id(original))
                issue.node = original
                issue.function = body.name
                issue.caller = caller.name
            self.issues.append(issue)

    def producer_of(self, item: Input) -> Node | None:
        """The top-level node that produces `item`, if any."""
        return self._by_name.get(item.node)

    def has_shape_fn(self, op: str) -> bool:
        """Whether `op` is run through a shape function here (not shadowed by a library function)."""
        return op in self._functions


def _call(c: Context) -> list[Shape]:
    """The shape function of a function call: its body's, with the caller's arguments."""
    inference = cast(ShapeInference, c.inference)  # the one Refiner, which follows calls
    return inference.call_outputs(c)


def _type_list(node: Node, name: str) -> tuple[int, ...] | None:
    value = node.attr.get(name)
    if value is None or value.WhichOneof("value") not in ("list", None):
        return None
    return tuple(value.list.type)


def _read_declared(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind != "list":
        return _UNREADABLE  # a placeholder, a non-list, or empty (too few entries: invalid-shape's)
    listed = value.list
    if any(field.name != "shape" for field, _ in listed.ListFields()):
        return _UNREADABLE
    shapes = []
    for proto in listed.shape:
        try:
            shapes.append(partial_shape(proto))
        except Unknown:
            return _UNREADABLE  # an invalid entry: TensorFlow rejects it (invalid-shape's finding)
    return tuple(shapes)


def _mismatch(inferred: Shape, declared: Shape) -> str:
    """TensorFlow's Merge message for two incompatible shapes."""
    try:
        merge(inferred, declared)
    except ShapeError as error:
        return error.message
    return f"{shape_text(inferred)} and {shape_text(declared)} are incompatible"


def input_arg_name(graph: GraphIndex, node: Node, index: int) -> str | None:
    """The OpDef name of data input `index` of `node` (`values`, `axis`...), when it can be computed."""
    signature = signatures(graph).resolved(node)
    if signature is None:
        return None
    found = signature.input_arg_at(index)
    return found[0].name if found is not None else None


# -- per-graph cache ---------------------------------------------------------------------------


def infer_shapes(graph: GraphIndex) -> ShapeInference:
    """The shape inference of `graph`'s top-level nodes (computed on first use, then shared)."""
    return graph.derived(ShapeInference)
