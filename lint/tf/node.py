"""One node as rules see it, and the parsing of its input strings.

Every reader builds these: the binary reader (`tflint.read.binary`) directly, the
index from text-reader nodes and protobuf NodeDefs. `attr` maps each key to an
AttrValue message; readers share one dict between nodes whose attrs are
identical, so analyses can memoize per distinct attr set on its identity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from tflint.tf.inputs import parse_tensor_name

# TensorFlow's IsValidNodeName from TF 2.0 on (TF 1.15 has no `>`), ASCII only (explicit classes: \w would
# admit Unicode): segments joined by `>`.
NAME_SEGMENT = r"[A-Za-z0-9.][A-Za-z0-9_./\-]*"
GRAPH_NODE_NAME = re.compile(rf"{NAME_SEGMENT}(?:>{NAME_SEGMENT})*")
# In a function body (allow_internal_ops) the very first character may also be `_`.
FUNCTION_NODE_NAME = re.compile(rf"[A-Za-z0-9._][A-Za-z0-9_./\-]*(?:>{NAME_SEGMENT})*")


class Input(NamedTuple):
    """One parsed input string of a node.

    `node` and `index` follow TensorFlow's own splitting (`ParseTensorName`):
    the last `:digits` suffix is the output index, a leading `^` marks a
    control input. In function bodies `output_arg` holds the `out_arg` part of
    `node:out_arg:i`, and `index` the element `i` (0 when absent).
    """

    raw: str
    node: str
    index: int  # type: ignore[assignment]  # a field, shadowing tuple.index as NamedTuple allows
    is_control: bool
    output_arg: str | None = None


class AttrLines:
    """Where each attr key of an attrs text shared by nodes is written: lines counted from the text's first.

    A text reader gives every node whose attrs text is the same one AttrLines instead of one
    mapping per node; a node's attrs start on the line after its header (its `name:` line, or
    `node {` when it has none, then one line each for its op, inputs and device), so the node
    places them itself (Node.attr_position).
    """

    __slots__ = ("key_lines", "column")

    def __init__(self, key_lines: dict[str, int], column: int) -> None:
        self.key_lines = key_lines
        self.column = column


class Node:
    """A node of the graph or of a function body, as rules see it."""

    __slots__ = (
        "name",
        "op",
        "device",
        "attr",
        "raw_inputs",
        "inputs",
        "function",
        "ordinal",
        "line",
        "column",
        "_attr_positions",
        "_data_inputs",
    )

    def __init__(
        self,
        name: str,
        op: str,
        device: str,
        attr: Mapping[str, Any],
        raw_inputs: tuple[str, ...],
        function: str | None = None,
        ordinal: int = 0,
        position: tuple[int, int] | None = None,
        attr_positions: Mapping[str, tuple[int, int]] | AttrLines | None = None,
    ) -> None:
        self.name = name
        self.op = op
        self.device = device
        self.attr = attr
        self.raw_inputs = raw_inputs
        self.function = function
        self.ordinal = ordinal
        self.line: int | None
        self.column: int | None
        self.line, self.column = position if position else (None, None)
        self._attr_positions = attr_positions
        # The parsed inputs, in order (data inputs then control inputs, if well-formed); set by
        # the Scope the node belongs to, which parses each distinct input string once.
        self.inputs: tuple[Input, ...] = ()
        self._data_inputs: tuple[Input, ...] | None = None

    @property
    def data_inputs(self) -> tuple[Input, ...]:
        """Inputs that carry tensors (not `^control` ones)."""
        if self._data_inputs is None:
            inputs = self.inputs
            self._data_inputs = (
                inputs
                if not any(item.is_control for item in inputs)
                else tuple(item for item in inputs if not item.is_control)
            )
        return self._data_inputs

    def attr_position(self, key: str) -> tuple[int, int] | None:
        """Where attr `key` is written, when the source has positions."""
        positions = self._attr_positions
        if positions is None:
            return None
        if isinstance(positions, AttrLines):
            relative = positions.key_lines.get(key)
            if relative is None or self.line is None:
                return None
            header = 1 + (self.op != "") + len(self.raw_inputs) + (self.device != "")
            return self.line + header + relative, positions.column
        return positions.get(key)

    def __repr__(self) -> str:
        where = f" in {self.function}" if self.function else ""
        return f"Node({self.name!r}, op={self.op!r}{where})"


def parse_input(raw: str) -> Input:
    """Split an input string exactly as TensorFlow 2.x's importer does (`ParseTensorName`).

    Digits after the last `:` are the output index (read as an unsigned
    64-bit number and kept to its low 32 bits, as TF's C++ does); otherwise a
    leading `^` makes a control input on the rest; otherwise the whole string
    names output 0. `tflint.tf.inputs` reports the strings TF misreads this way.
    """
    if ":" not in raw:
        if raw[:1] == "^":
            return Input(raw, raw[1:], -1, True)
        return Input(raw, raw, 0, False)  # the common case: a plain node name
    parsed = parse_tensor_name(raw)
    return Input(raw, parsed.node, parsed.index, parsed.is_control)


def parse_all_inputs(nodes: list[Node], in_function: bool, table: dict[str, Input] | None = None) -> dict[str, Input]:
    """Set every node's `inputs`, parsing each distinct input string once; returns them by string.

    Most top-level inputs are a bare node name (TensorFlow writes output 0
    without a suffix); those are built here directly, the rest by parse_input
    (parse_function_input in function bodies). With `table` (what an earlier
    call returned, for nodes of the same scope), strings it holds are not
    parsed again and the new ones are added to it.
    """
    parse = parse_function_input if in_function else parse_input
    cache: dict[str, Input] = {} if table is None else table
    get = cache.get
    new = tuple.__new__
    for node in nodes:
        raw_inputs = node.raw_inputs
        if not raw_inputs:
            continue
        parsed = []
        for raw in raw_inputs:
            item = get(raw)
            if item is None:
                if in_function or ":" in raw or raw[:1] == "^":
                    item = parse(raw)
                else:
                    item = new(Input, (raw, raw, 0, False, None))
                cache[raw] = item
            parsed.append(item)
        node.inputs = tuple(parsed)
    return cache


def parse_function_input(raw: str) -> Input:
    """Split a function-body input: `arg`, `arg:i`, `node:out_arg`, `node:out_arg:i`, `^node`.

    A control input names only a node: TensorFlow ignores anything after a
    `:` there (`^n:output` depends on `n`).
    """
    if raw.startswith("^"):
        return Input(raw, raw[1:].split(":", 1)[0], -1, True)
    parts = raw.split(":")
    if len(parts) == 1:
        return Input(raw, raw, 0, False)
    if len(parts) == 2:
        name, second = parts
        if second.isdigit() and second.isascii():
            return Input(raw, name, int(second), False)
        return Input(raw, name, 0, False, output_arg=second)
    name, output_arg, element = parts[0], parts[1], ":".join(parts[2:])
    index = int(element) if element.isdigit() and element.isascii() else -2
    return Input(raw, name, index, False, output_arg=output_arg)
