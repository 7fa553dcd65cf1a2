"""Builders shared by the serving rules' tests: MetaGraphDef / SavedModel text, and broken copies of real SavedModel directories."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from conftest import DATA

from tflint import protos

SERVING = DATA / "serving"
REAL_DIRS = DATA / "real" / "savedmodel_dirs"
PREDICT = "tensorflow/serving/predict"


def placeholder(name: str, dtype: str = "DT_FLOAT", shape: Iterable[int] | None = None) -> str:
    """A Placeholder node on one line (with a `shape` attr when `shape` is given)."""
    shape_attr = ""
    if shape is not None:
        dims = " ".join(f"dim {{ size: {size} }}" for size in shape)
        shape_attr = f' attr {{ key: "shape" value {{ shape {{ {dims} }} }} }}'
    return f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" value {{ type: {dtype} }} }}{shape_attr} }}'


def node(name: str, op: str, *inputs: str, attrs: str = "", device: str = "") -> str:
    """Any node on one line."""
    listed = "".join(f' input: "{item}"' for item in inputs)
    pinned = f' device: "{device}"' if device else ""
    return f'node {{ name: "{name}" op: "{op}"{listed}{pinned} {attrs}}}'


def identity(name: str, source: str, dtype: str = "DT_FLOAT") -> str:
    return node(name, "Identity", source, attrs=f'attr {{ key: "T" value {{ type: {dtype} }} }} ')


def tensor(
    direction: str,
    key: str,
    name: str,
    dtype: str = "DT_FLOAT",
    shape: Iterable[int] | None = None,
    unknown_rank: bool = False,
) -> str:
    """One `inputs { ... }` / `outputs { ... }` entry of a SignatureDef, on one line."""
    shape_text = ""
    if unknown_rank:
        shape_text = " tensor_shape { unknown_rank: true }"
    elif shape is not None:
        shape_text = " tensor_shape { " + " ".join(f"dim {{ size: {size} }}" for size in shape) + " }"
    return f'{direction} {{ key: "{key}" value {{ name: "{name}" dtype: {dtype}{shape_text} }} }}'


def signature(key: str, *entries: str, method: str = PREDICT) -> str:
    """A `signature_def` map entry, one line per tensor."""
    body = "\n".join(f"    {entry}" for entry in entries)
    method_line = f'\n    method_name: "{method}"' if method else ""
    return f'signature_def {{\n  key: "{key}"\n  value {{\n{body}{method_line}\n  }}\n}}'


def meta(
    *nodes: str, signatures: Iterable[str] = (), library: str = "", extra: str = "", tags: Iterable[str] = ()
) -> str:
    """A MetaGraphDef in text format: tags, the graph (one node per line), signatures, extra fields."""
    parts = []
    tag_list = list(tags)
    if tag_list:
        parts.append("meta_info_def { " + " ".join(f'tags: "{tag}"' for tag in tag_list) + " }")
    graph = "\n".join(f"  {item}" for item in nodes)
    lib = f"\n  library {{\n{library}\n  }}" if library else ""
    parts.append(f"graph_def {{\n{graph}{lib}\n}}")
    parts.extend(signatures)
    if extra:
        parts.append(extra)
    return "\n".join(parts) + "\n"


def saved_model(*metas: str) -> str:
    """A SavedModel in text format holding the given MetaGraphDef texts."""
    blocks = ["saved_model_schema_version: 1"]
    for text in metas:
        inner = "\n".join(f"  {line}" if line else line for line in text.rstrip("\n").split("\n"))
        blocks.append(f"meta_graphs {{\n{inner}\n}}")
    return "\n".join(blocks) + "\n"


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line containing `needle`."""
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in text")


def copy_model(source: Path, tmp_path: Path, name: str | None = None) -> Path:
    """A copy of a SavedModel directory under `tmp_path`."""
    target = tmp_path / (name or source.name)
    shutil.copytree(source, target)
    return target


def edit_saved_model(directory: Path, change: Callable[[Any], None]) -> None:
    """Parse `directory/saved_model.pb`, apply `change` to the SavedModel message, write it back."""
    path = directory / "saved_model.pb"
    message = protos.SavedModel()
    message.ParseFromString(path.read_bytes())
    change(message)
    path.write_bytes(message.SerializeToString())


def function_library(*functions: str) -> str:
    """`function { ... }` blocks for `meta(library=...)`."""
    return "\n".join(f"    {item}" for item in functions)


def two_output_function(name: str = "f") -> str:
    """A FunctionDef `name(x: float) -> (a: float, b: int32)` on one line."""
    return (
        f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" type: DT_FLOAT }} '
        'output_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_INT32 } } '
        'node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } } '
        'node_def { name: "s" op: "Size" input: "x" attr { key: "T" value { type: DT_FLOAT } } } '
        'ret { key: "a" value: "n:y:0" } ret { key: "b" value: "s:output:0" } }'
    )


def call(
    name: str,
    function: str,
    *inputs: str,
    tout: Iterable[str] = ("DT_FLOAT", "DT_INT32"),
    op: str = "StatefulPartitionedCall",
) -> str:
    """A call node of `function` on one line."""
    types = " ".join(f"type: {dtype}" for dtype in tout)
    attrs = (
        'attr { key: "Tin" value { list { type: DT_FLOAT } } } '
        f'attr {{ key: "Tout" value {{ list {{ {types} }} }} }} '
        f'attr {{ key: "f" value {{ func {{ name: "{function}" }} }} }} '
    )
    return node(name, op, *inputs, attrs=attrs)
