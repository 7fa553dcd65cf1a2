"""How TensorFlow reads NodeDef input strings, and what is wrong with a malformed one.

Top-level graphs: TensorFlow 2.x's importer splits an input with `ParseTensorName`
(core/graph/tensor_id.cc): take the text after the *last* `:`; if it is one or
more ASCII digits whose value fits an unsigned 64-bit integer, that is the
output index (then truncated to a 32-bit int) and the text before the `:` is
the node name; otherwise a leading `^` makes a control input on the rest;
otherwise the whole string names output 0 of a node.

Function bodies: the function instantiation looks data inputs up *literally*
in a table of `arg`, `arg:i`, `node:out_arg` and `node:out_arg:i` (indexes in
canonical decimal), so every other spelling is not found; control inputs are
`^name`.

Used by the `input-syntax` rule (what TensorFlow rejects or misreads) and by
`hygiene_problems` (what it accepts but is suspect).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from tflint.records import record

UINT64_MAX = (1 << 64) - 1
INT32_MAX = (1 << 31) - 1


@record(frozen=True)
class TensorName:
    """An input string split the way TensorFlow's importer splits it.

    `index` is what TensorFlow ends up with (after its 32-bit truncation;
    -1 for a control input); `digits` is the index text as written, or None
    when no `:digits` suffix was split off.
    """

    __slots__ = ("node", "index", "digits", "is_control")

    node: str
    index: int
    digits: str | None
    is_control: bool

    def __init__(self, node: str, index: int, digits: str | None, is_control: bool) -> None:
        _set = object.__setattr__
        _set(self, "node", node)
        _set(self, "index", index)
        _set(self, "digits", digits)
        _set(self, "is_control", is_control)


def parse_tensor_name(raw: str) -> TensorName:
    """Split `raw` exactly like TensorFlow 2.x's `ParseTensorName`."""
    colon = raw.rfind(":")
    if colon != -1:
        digits = raw[colon + 1 :]
        if _is_ascii_digits(digits):
            value = int(digits)
            if value <= UINT64_MAX:
                return TensorName(raw[:colon], to_int32(value), digits, False)
    if raw.startswith("^"):
        return TensorName(raw[1:], -1, None, True)
    return TensorName(raw, 0, None, False)


def to_int32(value: int) -> int:
    """The C++ conversion of an unsigned value to a 32-bit int (keep the low 32 bits)."""
    value &= (1 << 32) - 1
    return value - (1 << 32) if value > INT32_MAX else value


def _is_ascii_digits(text: str) -> bool:
    return bool(text) and text.isascii() and text.isdigit()


def _has_leading_zero(digits: str) -> bool:
    return len(digits) > 1 and digits[0] == "0"


# Inputs that are certainly fine, matched in one step (the common case): `name`, `^name`,
# `name:N` with N in canonical decimal below 10**9 (so it fits TensorFlow's 32-bit int).
_PLAIN_GRAPH_INPUT = re.compile(r"\^?[^:^][^:]*|[^:^][^:]*:(?:0|[1-9][0-9]{0,8})")
# In function bodies: `name`, `^name`, and `node:out_arg:N` whose out_arg does not start
# with a digit (the name part is checked against the arguments separately).
_PLAIN_FUNCTION_INPUT = re.compile(r"\^?[^:^][^:]*|(?P<name>[^:^][^:]*):[^:0-9][^:]*:(?:0|[1-9][0-9]*)")


def nodes_with_suspect_inputs(nodes: Sequence[Any]) -> list[Any]:
    """The top-level nodes with an input that graph_input_problem or hygiene_problems may flag.

    Both pass over inputs that are a bare node name (no `:`, no `^`, not
    empty): TensorFlow writes output 0 that way, so most nodes have only
    those. A few C-level string tests per node replace a Python step per input.
    """
    suspects = []
    for node in nodes:
        raw_inputs = node.raw_inputs
        if raw_inputs:
            joined = "".join(raw_inputs)
            if ":" in joined or "^" in joined or "" in raw_inputs:
                suspects.append(node)
    return suspects


def graph_input_problem(raw: str) -> str | None:
    """Why TensorFlow's importer rejects, crashes on or misreads a top-level input (None if it reads it as written).

    The wording completes a sentence starting with the quoted input, e.g.
    "input 'a:' ... has an empty output index; ...".
    """
    if _PLAIN_GRAPH_INPUT.fullmatch(raw):
        return None
    if raw == "":
        return "is empty; TensorFlow reads it as an input from a node named ''"
    parsed = parse_tensor_name(raw)
    if raw.startswith("^"):
        name = raw[1:].split(":", 1)[0]
        if not name:
            return "is a control input that names no node"
        if parsed.digits is not None:
            return (
                f"is a control input with an output index; TensorFlow reads it as a data input "
                f"from a node named '{parsed.node}' (write '^{name}')"
            )
        if ":" in parsed.node:
            return (
                "is a control input with a ':' in it; TensorFlow reads it as a dependency on a node named "
                f"'{parsed.node}' (write '^{name}')"
            )
        return None
    if parsed.digits is None:
        if ":" not in raw:
            return None
        suffix = raw[raw.rfind(":") + 1 :]
        if suffix == "":
            name = raw.split(":", 1)[0]
            return (
                f"has an empty output index; TensorFlow reads it as a node named '{raw}' (write '{name}' or '{name}:0')"
            )
        if _is_ascii_digits(suffix):
            return (
                f"has an output index too large for TensorFlow to parse ({len(suffix)} digits); it reads the whole "
                "string as a node name"
            )
        return (
            f"has a malformed output index '{suffix}'; TensorFlow reads it as a node named '{raw}' (an index is ':' "
            "and decimal digits)"
        )
    if parsed.node == "":
        return "has an output index but no node name"
    if ":" in parsed.node:
        return f"has more than one ':'; TensorFlow reads it as output {parsed.index} of a node named '{parsed.node}'"
    value = int(parsed.digits)
    if parsed.index < 0:
        if parsed.index == -1:
            effect = "TensorFlow's importer crashes on it (the index becomes -1, its control-edge marker)"
        else:
            effect = f"the index becomes {parsed.index} and TensorFlow's importer crashes or reads out of bounds"
        return f"has output index {value}, which overflows TensorFlow's 32-bit index; {effect}"
    if value > INT32_MAX:
        return (
            f"has output index {value}, which TensorFlow truncates to 32 bits and silently reads as "
            f"'{parsed.node}:{parsed.index}'"
        )
    return None


def function_input_problem(raw: str, arg_names: Collection[str], node_names: Collection[str]) -> str | None:
    """Why a function body's instantiation cannot find this input spelling (None when the form is right).

    Only the *form* is judged: whether the named node, argument or output
    arg exists is left to other rules (`unresolved-input`, output checks).
    """
    plain = _PLAIN_FUNCTION_INPUT.fullmatch(raw)
    if plain is not None:
        name = plain.group("name")
        if name is None or name not in arg_names or name in node_names:
            return None
    if raw == "":
        return "is empty"
    if raw.startswith("^"):
        return "is a control input that names no node" if raw == "^" else None
    parts = raw.split(":")
    if len(parts) == 1:
        return None
    name = parts[0]
    if any(part == "" for part in parts):
        return (
            "has an empty part between ':' separators (inputs are 'arg', 'arg:i', 'node:out_arg' or 'node:out_arg:i')"
        )
    if len(parts) > 3:
        return "has more than two ':' (inputs are 'arg', 'arg:i', 'node:out_arg' or 'node:out_arg:i')"
    # TensorFlow's lookup table has `name` and `name:i` for arguments, `name:out_arg[:i]` for nodes.
    is_arg = name in arg_names
    is_node = name in node_names
    if len(parts) == 2:
        second = parts[1]
        if _is_ascii_digits(second):
            if is_arg:
                if _has_leading_zero(second):
                    return (
                        "has a leading zero in its index; the function instantiation looks inputs up literally "
                        f"(write '{name}:{int(second)}')"
                    )
                return None
            if is_node:
                return (
                    f"refers to an output of body node '{name}' by number; inside a function, "
                    f"outputs are named by output arg ('{name}:<out_arg>:{int(second)}')"
                )
            return None
        if is_arg and not is_node:
            return (
                f"names an output '{second}' of function argument '{name}'; an argument is referenced as '{name}' or "
                f"'{name}:<i>'"
            )
        return None
    out_arg, element = parts[1], parts[2]
    if is_arg and not is_node:
        return f"has two ':' after function argument '{name}'; an argument is referenced as '{name}' or '{name}:<i>'"
    if _is_ascii_digits(out_arg) and is_node:
        return (
            f"uses '{out_arg}' as the output arg name of '{name}'; outputs are named by the op's output arg "
            f"('{name}:<out_arg>:{element}')"
        )
    if not _is_ascii_digits(element):
        return f"has a non-numeric element index '{element}'"
    if _has_leading_zero(element):
        return (
            "has a leading zero in its index; the function instantiation looks inputs up literally (write "
            f"'{name}:{out_arg}:{int(element)}')"
        )
    return None


@record(frozen=True)
class HygieneProblem:
    """An input TensorFlow accepts but that is suspect: which input and why."""

    __slots__ = ("position", "raw", "message", "kind")

    position: int
    raw: str
    message: str
    kind: str

    def __init__(self, position: int, raw: str, message: str, kind: str) -> None:
        _set = object.__setattr__
        _set(self, "position", position)
        _set(self, "raw", raw)
        _set(self, "message", message)
        _set(self, "kind", kind)


def hygiene_problems(
    raw_inputs: tuple[str, ...], *, in_function: bool, redundant_control: bool = False
) -> Iterator[HygieneProblem]:
    """Inputs TensorFlow accepts silently but that are suspect.

    - `leading-zero`: `a:01` (top level only; TensorFlow reads `a:1`; in a
      function body it is not found, an `input-syntax` error);
    - `duplicate-control`: the same `^a` twice (TensorFlow de-duplicates);
    - `redundant-control` (only when asked): `^a` next to a data input from
      `a`, which already orders the two nodes. TensorFlow itself writes these
      in function bodies (automatic control dependencies), so it is opt-in.
    """
    seen_controls: set[str] = set()
    data_sources: set[str] | None = None
    for position, raw in enumerate(raw_inputs):
        if raw.startswith("^"):
            if raw in seen_controls:
                yield HygieneProblem(
                    position,
                    raw,
                    f"control input '{raw}' is repeated; TensorFlow drops the duplicate",
                    "duplicate-control",
                )
                continue
            seen_controls.add(raw)
            if redundant_control:
                if data_sources is None:
                    data_sources = {
                        _data_source(item, in_function) for item in raw_inputs if item and not item.startswith("^")
                    }
                if raw[1:] in data_sources:
                    yield HygieneProblem(
                        position,
                        raw,
                        f"control input '{raw}' is redundant: the node already has a data input from '{raw[1:]}'",
                        "redundant-control",
                    )
        elif not in_function and ":0" in raw:
            parsed = parse_tensor_name(raw)
            if parsed.digits is not None and _has_leading_zero(parsed.digits) and graph_input_problem(raw) is None:
                yield HygieneProblem(
                    position,
                    raw,
                    f"input '{raw}' has a leading zero in its output index; TensorFlow reads it as "
                    f"'{parsed.node}:{parsed.index}'",
                    "leading-zero",
                )


def _data_source(raw: str, in_function: bool) -> str:
    return raw.split(":", 1)[0] if in_function else parse_tensor_name(raw).node
