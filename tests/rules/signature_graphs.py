"""Small pbtxt builders shared by the tests of the signature rules (input-count, output-index-out-of-range, type-attr-consistency)."""

from __future__ import annotations

T_FLOAT = 'attr { key: "T" value { type: DT_FLOAT } }'


def t(dtype: str) -> str:
    """A `T` attr of the given DataType."""
    return f'attr {{ key: "T" value {{ type: {dtype} }} }}'


def const(name: str, dtype: str = "DT_FLOAT") -> str:
    """A scalar Const node on one line."""
    return f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{}} }} }} }} }}'


def vector(name: str, dtype: str = "DT_FLOAT") -> str:
    """A Const of shape [2] (Unpack and ConcatV2 need a rank >= 1 input to pass TensorFlow's shape checks)."""
    return f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ dim {{ size: 2 }} }} }} }} }} }}'


def graph(*lines: str) -> str:
    """One node (or library) per line, so line k of the text is the k-th argument."""
    return "\n".join(lines) + "\n"


def library(*body: str, args: str = 'input_arg { name: "x" type: DT_FLOAT }') -> str:
    """Function `f` with arg `x` (fixed float unless `args` says otherwise); body lines start 2 lines below `library {`."""
    return "\n".join(
        [
            "library { function {",
            f'signature {{ name: "f" {args} output_arg {{ name: "y" type: DT_FLOAT }} }}',
            *body,
            'ret { key: "y" value: "x" } } }',
        ]
    )
