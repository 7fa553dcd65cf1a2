"""GraphIndex: one graph's nodes, edges and functions, built once and shared by every rule.

Rules never walk raw protobuf messages themselves; they ask the index for
nodes by name, parsed inputs, consumers, op schemas and output counts, so
each fact is computed once per graph however many rules use it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from tflint.tf.node import Input, Node, parse_all_inputs
from tflint.tf.registry import OpRegistry, OpSchema

T = TypeVar("T")

# TensorFlow's importer treats these as the heads of loops (control flow v1).
MERGE_OPS = frozenset({"Merge", "RefMerge", "_XlaMerge"})
NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})


class Scope:
    """The nodes of the top-level graph or of one function body."""

    def __init__(
        self,
        function: Any | None,
        function_ordinal: int | None,
        nodes: list[Node],
        inputs_by_raw: dict[str, Input] | None = None,
    ) -> None:
        """`inputs_by_raw`: what parse_all_inputs returned for `nodes` (then set already), else they are parsed."""
        self.function: Any = function  # the FunctionDef (a message, untyped), None for the top-level graph
        self.function_ordinal = function_ordinal
        self.name: str | None = function.signature.name if function is not None else None
        self.nodes = nodes
        # The first node of a name is the one inputs refer to (as in TensorFlow's importer).
        self.by_name: dict[str, Node] = {node.name: node for node in reversed(nodes)}
        self.duplicates: list[Node] = (
            [node for node in nodes if self.by_name[node.name] is not node] if len(self.by_name) < len(nodes) else []
        )
        # Each distinct input string, parsed: rules that judge an input by itself (its node
        # name, its index) look at each once, with set operations where they can.
        self.inputs_by_raw: dict[str, Input] = (
            inputs_by_raw if inputs_by_raw is not None else parse_all_inputs(nodes, function is not None)
        )
        self._consumers: dict[str, list[tuple[Node, Input]]] | None = None
        self._by_op: dict[str, list[Node]] | None = None
        self._attr_groups: list[list[Node]] | None = None
        self._inputs_to_resolve: list[Input] | None = None
        self.arg_names: frozenset[str] = (
            frozenset(arg.name for arg in function.signature.input_arg) if function is not None else frozenset()
        )

    def by_op(self) -> dict[str, list[Node]]:
        """The nodes of each op, in file order (built on first use): for rules about a few ops."""
        if self._by_op is None:
            self._group_nodes()
        return self._by_op  # type: ignore[return-value]

    def attr_groups(self) -> list[list[Node]]:
        """The nodes grouped by op and attr dict, in order of first appearance (built on first use).

        Readers share one attr dict between nodes with identical attrs, so a
        check that depends on a node's op and attrs alone can run once per
        group, through its first node.
        """
        if self._attr_groups is None:
            self._group_nodes()
        return self._attr_groups  # type: ignore[return-value]

    def _group_nodes(self) -> None:
        """Build by_op and attr_groups in one pass: on a big graph, reaching every node is most of the cost."""
        groups: dict[tuple[str, int], list[Node]] = {}
        by_op: dict[str, list[Node]] = {}
        for node in self.nodes:
            op = node.op
            key = (op, id(node.attr))
            group = groups.get(key)
            if group is None:
                groups[key] = [node]
            else:
                group.append(node)
            same_op = by_op.get(op)
            if same_op is None:
                by_op[op] = [node]
            else:
                same_op.append(node)
        self._attr_groups = list(groups.values())
        self._by_op = by_op

    def attr_group_issues(self, issues_of: Callable[[Node], Iterable[T]], attr: str | None = None) -> Iterator[T]:
        """The issues of a check that depends on a node's op and attrs alone, run per attr group.

        Each group's first node is checked; the others only when it has issues
        (their messages name their own node). With `attr`, only groups whose
        nodes have that attr are checked.
        """
        for group in self.attr_groups():
            if attr is not None and attr not in group[0].attr:
                continue
            issues = list(issues_of(group[0]))
            if issues:
                yield from issues
                for node in group[1:]:
                    yield from issues_of(node)

    def inputs_to_resolve(self) -> list[Input]:
        """The distinct inputs that are not simply a node's name, in no particular order (a new list).

        An input string equal to the name of a node of the scope names output 0
        of that node (unless the name is malformed: `a:1`, `^a`), which is most
        inputs; rules about inputs that do not resolve, or resolve to something
        unexpected, need to look at the others only. Found with set operations.
        """
        if self._inputs_to_resolve is None:
            table = self.inputs_by_raw
            names = self.by_name.keys()
            candidates = table.keys() - names
            if _some_name_parses_otherwise(names):
                candidates |= {raw for raw in table.keys() & names if table[raw].node != raw}
            self._inputs_to_resolve = [table[raw] for raw in candidates]
        return list(self._inputs_to_resolve)

    def nodes_reading(self, raws: Collection[str]) -> Iterator[Node]:
        """The nodes with an input string in `raws`, in file order."""
        if not raws:
            return
        wanted = raws if isinstance(raws, (set, frozenset)) else set(raws)
        isdisjoint = wanted.isdisjoint
        for node in self.nodes:
            if not isdisjoint(node.raw_inputs):
                yield node

    def consumers_of(self, name: str) -> list[tuple[Node, Input]]:
        """The (node, input) pairs that read from node `name`."""
        if self._consumers is None:
            consumers: dict[str, list[tuple[Node, Input]]] = {}
            for node in self.nodes:
                for item in node.inputs:
                    consumers.setdefault(item.node, []).append((node, item))
            self._consumers = consumers
        return self._consumers.get(name, [])


def _some_name_parses_otherwise(names: Collection[str]) -> bool:
    """Whether a node name, read as an input string, might not name that node (`a:1`, `^a`)."""
    joined = "\n".join(names)  # one scan in C instead of a test per name
    return ":" in joined or joined[:1] == "^" or "\n^" in joined


class GraphIndex:
    """Everything rules need to know about one GraphDef (and its function library)."""

    def __init__(
        self,
        graph: Any,
        registry: OpRegistry,
        *,
        nodes: Any = None,
        label: str | None = None,
        meta_graph: Any = None,
        positions: Any = None,
        graph_id: int = 0,
        artifact: Any = None,
        imports: Any = None,
        interface: Any = None,
        inputs_by_raw: dict[str, Input] | None = None,
    ) -> None:
        """`inputs_by_raw`: what parse_all_inputs returned for `nodes` (Nodes whose inputs a reader set)."""
        self.graph = graph
        # How the caller imports the graph (tflint.tf.imports.ImportArgs), and the tensors its
        # configuration expects (Interface); None when not given.
        self.imports = imports
        self.interface = interface
        self.label = label
        self.meta_graph = meta_graph
        self.artifact = artifact
        self.positions = positions
        self.graph_id = graph_id
        self.registry = registry
        self.versions = graph.versions if graph.HasField("versions") else None
        self.producer: int = graph.versions.producer
        library = graph.library
        self.functions: list[Any] = list(library.function)
        self.function_by_name: dict[str, Any] = {}
        for function in self.functions:
            self.function_by_name.setdefault(function.signature.name, function)
        self.gradients = list(library.gradient)

        if nodes is None:
            nodes = graph.node
        nodes = list(nodes)
        if not nodes or isinstance(nodes[0], Node):
            top_nodes = nodes  # the fast readers (binary and canonical text) build Nodes themselves
        else:
            inputs_by_raw = None
            top_nodes = [
                _message_node(message, None, ordinal, positions, graph_id, None)
                for ordinal, message in enumerate(nodes)
            ]
        self.main = Scope(None, None, top_nodes, inputs_by_raw)
        self.function_scopes: list[Scope] = []
        for function_ordinal, function in enumerate(self.functions):
            name = function.signature.name
            nodes = [
                _message_node(message, name, ordinal, positions, graph_id, function_ordinal)
                for ordinal, message in enumerate(function.node_def)
            ]
            self.function_scopes.append(Scope(function, function_ordinal, nodes))
        self._function_positions = {}
        if positions is not None:
            for (graph, function_ordinal), where in positions.functions.items():
                if graph == graph_id:
                    self._function_positions[function_ordinal] = where
        self._function_schemas: dict[str, OpSchema] = {}
        self._derived: dict[Any, Any] = {}

    # -- nodes -------------------------------------------------------------

    @property
    def nodes(self) -> list[Node]:
        """Top-level nodes, in file order."""
        return self.main.nodes

    def scopes(self) -> Iterator[Scope]:
        """The top-level graph, then every function body."""
        yield self.main
        yield from self.function_scopes

    def all_nodes(self) -> Iterator[Node]:
        """Every node: top-level ones, then each function body's."""
        for scope in self.scopes():
            yield from scope.nodes

    def node(self, name: str) -> Node | None:
        """The first top-level node called `name`."""
        return self.main.by_name.get(name)

    def attr_default(self, schema: OpSchema, name: str) -> Any | None:
        """The default of attr `name`: the schema's, else one another registry layer gives the op.

        An older `stripped_op_list` may lack a default a newer TensorFlow
        added, and TensorFlow 2.21 fills defaults from its own registry.
        """
        attr_def = schema.attrs.get(name)
        if attr_def is not None and attr_def.HasField("default_value"):
            return attr_def.default_value
        if schema.is_function:
            return None
        for _, ops in self.registry.layers():
            op_def = ops.get(schema.name)
            for other in op_def.attr if op_def is not None else ():
                if other.name == name and other.HasField("default_value"):
                    return other.default_value
        return None

    def field_position(self, name: str) -> tuple[int, int] | None:
        """Where a GraphDef field such as `versions` is written, in text sources."""
        return self.positions.fields.get((self.graph_id, name)) if self.positions is not None else None

    def op_def_position(self, op_index: int) -> tuple[int, int] | None:
        """Where entry `op_index` of this meta graph's stripped_op_list is written, in text sources."""
        return self.positions.ops.get((self.graph_id, op_index)) if self.positions is not None else None

    def function_position(self, function_ordinal: int) -> tuple[int, int] | None:
        """Where a function is defined (its signature's name), in text sources."""
        return self._function_positions.get(function_ordinal)

    def derived(self, factory: Callable[[GraphIndex], T]) -> T:
        """A per-graph analysis shared by every rule that asks for it (built on first use).

        Signatures, shapes and attr checks are computed once per graph however
        many rules read them; the result lives and dies with this index.
        """
        try:
            value: T = self._derived[factory]
            return value
        except KeyError:
            value = self._derived[factory] = factory(self)
            return value

    def release(self) -> None:
        """Drop the derived analyses, once every rule has run.

        An analysis keeps this index (and often itself, through helpers) in a
        reference cycle, which only the cyclic garbage collector can free: on a
        100k-node graph that collection walks half a million objects (0.4 s).
        Emptying the analyses breaks every such cycle, so reference counting
        frees the graph as soon as the caller lets go of it.
        """
        derived, self._derived = self._derived, {}
        for analysis in derived.values():
            if hasattr(analysis, "__dict__"):
                vars(analysis).clear()

    # -- schemas -----------------------------------------------------------

    def schema_for(self, op: str) -> OpSchema | None:
        """The schema a node with this op is checked against.

        Like TensorFlow, the graph's function library is consulted first,
        then the op registry. Returns None for an unknown op.
        """
        function = self.function_by_name.get(op)
        if function is not None:
            schema = self._function_schemas.get(op)
            if schema is None:
                schema = OpSchema(function.signature, "function library", is_function=True)
                self._function_schemas[op] = schema
            return schema
        return self.registry.schema(op)


class _AttrPositions(Mapping[str, tuple[int, int]]):
    """A lazy view of one node's attr positions inside a SourceMap."""

    __slots__ = ("_positions", "_prefix")

    def __init__(self, positions: Any, graph_id: int, function: int | None, ordinal: int) -> None:
        self._positions = positions.attrs
        self._prefix = (graph_id, function, ordinal)

    def __getitem__(self, key: str) -> tuple[int, int]:
        position: tuple[int, int] = self._positions[self._prefix + (key,)]
        return position

    def get(self, key: str, default: Any = None) -> Any:
        return self._positions.get(self._prefix + (key,), default)

    def __iter__(self) -> Iterator[str]:
        return (key[3] for key in self._positions if key[:3] == self._prefix)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _message_node(
    message: Any, function: str | None, ordinal: int, positions: Any, graph_id: int, function_ordinal: int | None
) -> Node:
    """A Node from a protobuf NodeDef (general text reader, function bodies, in-memory graphs)."""
    return Node(
        message.name,
        message.op,
        message.device,
        dict(message.attr),
        tuple(message.input),
        function,
        ordinal,
        _node_position(positions, graph_id, function_ordinal, ordinal),
        _AttrPositions(positions, graph_id, function_ordinal, ordinal) if positions else None,
    )


def _node_position(positions: Any, graph_id: int, function: int | None, ordinal: int) -> tuple[int, int] | None:
    if positions is None:
        return None
    position: tuple[int, int] | None = positions.nodes.get((graph_id, function, ordinal))
    return position


# DataType values >= this are reference types (T_REF = T + 100).
REF_OFFSET = 100
