"""A fast reader for the nodes of binary GraphDefs.

Reading every NodeDef's attr map through protobuf builds a fresh map and a
fresh AttrValue per node, and no two nodes share anything, so nothing about
attrs can be computed once for many nodes. Graphs repeat themselves: of the
attr entries of a 100k-node graph only a few percent are distinct (`T:
DT_FLOAT` thousands of times), and a quarter of the attr sets.

This reader parses a GraphDef as `tflint.lite.GraphDef` (protos/tflint_lite.proto),
which is TensorFlow's GraphDef except that each attr map entry is read as raw
bytes; it then decodes each distinct entry once and builds one attr dict per
distinct set of entries. Nodes with identical attrs share that dict, which lets
analyses memoize per attr set on its identity (`id(node.attr)`), as they do for
the text reader's shared attr blocks. Every entry is decoded, so bytes that
protobuf's full GraphDef parse rejects are rejected here too (DecodeError).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterator
from itertools import islice
from typing import Any

from tflint import protos
from tflint.tf.node import Input, Node, parse_all_inputs

LiteGraphDef = protos.message_class("tflint.lite.GraphDef")
_AttrEntry = protos.message_class("tflint.lite.AttrEntry")


# From this many nodes on, and with a core to spare, a forked child reads part of the nodes' fields
# (nodes_of_split); fewer take less time than starting it costs.
SPLIT_MIN_NODES = 20_000
# The share of the nodes (percent, the later ones) whose fields the child reads: this process builds
# every Node, so it reads fewer fields itself, and builds the child's pieces as they come.
_CHILD_SHARE = 65
# How many pieces the child sends its part in.
_PIECES = 8


def read_nodes(graph_bytes: bytes, workers: int = 1) -> list[Node]:
    """The top-level nodes of a serialized GraphDef, attrs shared (DecodeError if invalid)."""
    return nodes_of(LiteGraphDef.FromString(graph_bytes), workers)


def nodes_of(graph: Any, workers: int = 1) -> list[Node]:
    """The top-level nodes of a parsed `tflint.lite.GraphDef`, attrs shared, inputs parsed.

    With `workers` > 1, a big graph's later nodes are read by a forked child
    (nodes_of_split); the result is the same. Raises protobuf's DecodeError
    when an attr entry does not parse.
    """
    return nodes_and_inputs(graph, workers)[0]


def nodes_and_inputs(graph: Any, workers: int = 1) -> tuple[list[Node], dict[str, Input]]:
    """nodes_of, and its nodes' distinct input strings parsed (what parse_all_inputs returns for them).

    Every node's `inputs` is set, so a GraphIndex given both does not parse them again.
    """
    if workers > 1 and len(graph.node) >= SPLIT_MIN_NODES:
        builder = _read_split(graph)
    else:
        builder = _Builder()
        builder.add_messages(graph.node)
        builder.parse_inputs()
    return builder.nodes, builder.inputs


def nodes_of_split(graph: Any) -> list[Node]:
    """nodes_of, the fields of the later nodes read by a forked child (see _read_split)."""
    return _read_split(graph).nodes


def _read_split(graph: Any) -> _Builder:
    """nodes_of, the fields of the later nodes read by a forked child.

    Reading a field of a parsed message makes a Python object of it, which
    costs more than rebuilding that object from marshal's bytes: the child
    sends each of its nodes' name, op, device and inputs, and each distinct
    attr set once (as the entries' bytes); this process builds every Node
    (decoding each distinct attr entry once, for both parts), so the Nodes
    are those nodes_of builds. The child sends its part in pieces, and this
    process builds each piece's nodes (and parses their inputs) while the
    child reads the next. What the child does not send (it cannot be
    started, or fails), this process reads too.
    """
    import marshal

    from tflint.runtime import fork as forked

    total = len(graph.node)
    split = total * (100 - _CHILD_SHARE) // 100
    bounds = [split + (total - split) * number // _PIECES for number in range(_PIECES + 1)]
    try:
        child: forked.Child | None = forked.start(lambda: _field_pieces(graph, bounds), marshal, stream=True)
    except OSError:  # no process to spare (EAGAIN, ENOMEM): this process reads them all
        child = None
    builder = _Builder()
    try:
        builder.add_messages(islice(graph.node, split))  # one message object at a time, not a list of them
        builder.parse_inputs()
        if child is not None:
            try:
                for _ in range(_PIECES):
                    # Received in a mapping of its own: the nodes built after it then hold less memory
                    # (~8 MB at 300k nodes, when the child's part came in one piece).
                    builder.add_fields(*child.next_result(mapped=True))
                    builder.parse_inputs()
            except forked.ChildFailed:  # next_result ended it
                child = None
            else:
                child.release()
                child = None
    except BaseException:
        if child is not None:
            child.stop()
        raise
    if len(builder.nodes) < total:
        messages = graph.node
        builder.add_messages(messages[number] for number in range(len(builder.nodes), total))
        builder.parse_inputs()
    return builder


def _field_pieces(graph: Any, bounds: list[int]) -> Iterator[tuple[Any, ...]]:
    """The fields of the nodes of `graph` from bounds[0] on, piece by piece, as data marshal can carry.

    Piece k holds the nodes bounds[k] to bounds[k + 1], in columns: names,
    ops, devices, input tuples, the number of each node's attr set (an
    array("q")'s bytes), and the attr sets (tuples of entry bytes) first
    used in the piece, numbered on from those of the pieces before.
    """
    intern = sys.intern
    numbers: dict[tuple[bytes, ...], int] = {}
    number = numbers.setdefault
    for start, end in zip(bounds, bounds[1:]):
        messages = graph.node[start:end]
        known = len(numbers)
        # As an array's bytes: a list would cost the receiver an int object per node, freed only after
        # the nodes are built, and left as holes in the memory the graph is built in.
        attr_numbers = array("q", [number(tuple(message.attr[:]), len(numbers)) for message in messages]).tobytes()
        yield (
            [message.name for message in messages],
            # Interned here, so marshal carries each op and device once and this process's marshal.loads
            # interns it again: the Nodes share the strings add_messages interns.
            [intern(message.op) for message in messages],
            [intern(message.device) for message in messages],
            [tuple(message.input[:]) for message in messages],
            attr_numbers,
            list(islice(numbers, known, None)),
        )


class _Builder:
    """Nodes in file order, one attr dict per distinct attr set, each distinct entry decoded once."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        # The nodes' distinct input strings, parsed (parse_all_inputs); the first `_parsed` nodes' inputs are set.
        self.inputs: dict[str, Input] = {}
        self._parsed = 0
        self._numbered: list[dict[str, Any]] = []
        self._sets: dict[tuple[bytes, ...], dict[str, Any]] = {}
        self._entries: dict[bytes, tuple[str, Any]] = {}

    def parse_inputs(self) -> None:
        """Set the inputs of the nodes added since the last call (top-level nodes: not in a function)."""
        parse_all_inputs(self.nodes[self._parsed :], False, self.inputs)
        self._parsed = len(self.nodes)

    def add_messages(self, messages: Any) -> None:
        """Append the Nodes of lite NodeDef messages."""
        sets = self._sets
        entries = self._entries
        # One string per distinct op and device, interned as the text reader does: a graph has a few
        # dozen, and protobuf makes a new string per node (100k hashed again by every lookup by op).
        intern = sys.intern
        nodes = self.nodes
        append = nodes.append
        for ordinal, lite in enumerate(messages, start=len(nodes)):
            # A slice copies a repeated field in one call; iterating it costs a call per element (3x slower).
            raw = tuple(lite.attr[:])
            attrs = sets.get(raw)
            if attrs is None:
                attrs = sets[raw] = _decode(raw, entries)
            op = lite.op
            device = lite.device
            append(
                Node(
                    lite.name,
                    intern(op) if op else "",
                    intern(device) if device else "",
                    attrs,
                    tuple(lite.input[:]),
                    None,
                    ordinal,
                )
            )

    def add_fields(
        self,
        names: list[str],
        ops: list[str],
        devices: list[str],
        inputs: list[tuple[str, ...]],
        attr_numbers: bytes,
        attr_sets: list[tuple[bytes, ...]],
    ) -> None:
        """Append the Nodes of a piece of _field_pieces (as marshal.loads returns it: ops and devices interned)."""
        sets = self._sets
        entries = self._entries
        shared = self._numbered  # the attr sets of the pieces so far, by number
        for raw in attr_sets:
            attrs = sets.get(raw)
            if attrs is None:
                attrs = sets[raw] = _decode(raw, entries)
            shared.append(attrs)
        nodes = self.nodes
        append = nodes.append
        for ordinal, name, op, device, raw_inputs, number in zip(
            range(len(nodes), len(nodes) + len(names)), names, ops, devices, inputs, array("q", attr_numbers)
        ):
            append(Node(name, op, device, shared[number], raw_inputs, None, ordinal))  # op, device: interned


def _decode(raw: tuple[bytes, ...], entries: dict[bytes, tuple[str, Any]]) -> dict[str, Any]:
    attrs = {}
    for data in raw:
        entry = entries.get(data)
        if entry is None:
            message = _AttrEntry.FromString(data)
            entry = entries[data] = (message.key, message.value)
        attrs[entry[0]] = entry[1]  # a repeated key: the last entry wins, as in protobuf maps
    return attrs
