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
from typing import Any

from tflint import protos
from tflint.tf.node import Node

LiteGraphDef = protos.message_class("tflint.lite.GraphDef")
_AttrEntry = protos.message_class("tflint.lite.AttrEntry")


def read_nodes(graph_bytes: bytes) -> list[Node]:
    """The top-level nodes of a serialized GraphDef, attrs shared (DecodeError if invalid)."""
    return nodes_of(LiteGraphDef.FromString(graph_bytes))


def nodes_of(graph: Any) -> list[Node]:
    """The top-level nodes of a parsed `tflint.lite.GraphDef`, attrs shared.

    Raises protobuf's DecodeError when an attr entry does not parse.
    """
    sets: dict[tuple[bytes, ...], dict[str, Any]] = {}
    entries: dict[bytes, tuple[str, Any]] = {}
    # One string per distinct op and device, interned as the text reader does: a graph has a few
    # dozen, and protobuf makes a new string per node (100k hashed again by every lookup by op).
    intern = sys.intern
    nodes: list[Any] = []
    append = nodes.append
    for ordinal, lite in enumerate(graph.node):
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
    return nodes


def _decode(raw: tuple[bytes, ...], entries: dict[bytes, tuple[str, Any]]) -> dict[str, Any]:
    attrs = {}
    for data in raw:
        entry = entries.get(data)
        if entry is None:
            message = _AttrEntry.FromString(data)
            entry = entries[data] = (message.key, message.value)
        attrs[entry[0]] = entry[1]  # a repeated key: the last entry wins, as in protobuf maps
    return attrs
