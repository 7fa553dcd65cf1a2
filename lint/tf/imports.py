"""How serving code imports a frozen graph: `tf.graph_util.import_graph_def`'s arguments, and what it checks of them.

A frozen GraphDef has no signature: its interface lives in the code that
imports it, as `input_map` (tensors of the graph replaced by the caller's),
`return_elements` (the tensors and operations the caller wants back) and
`name` (the prefix of every imported node). `ImportArgs` holds them as
tflint knows them (for `input_map`, the replacement's dtype and shape when
the caller gives them); `Interface` is the expected inputs and outputs of a
graph file, from the configuration. The semantics are TensorFlow 2.21's
(python/framework/importer.py, core/common_runtime/graph_constructor.cc),
recorded case by case in the repository's tests/data/tf_import_cases.jsonl.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from tflint.records import record

# A shape: None when even the rank is unknown, else one size per dimension (-1: unknown).
Shape = tuple[int, ...] | None

# The root name scope a non-empty `name` must match (python/framework/ops.py, `_VALID_OP_NAME_REGEX`).
ROOT_SCOPE_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
# `IsValidNodeName(name, allow_internal_ops=false)` (core/framework/node_def_util.cc).
_SEGMENT = r"[A-Za-z0-9.][A-Za-z0-9_./\-]*"
_NODE_NAME = re.compile(rf"{_SEGMENT}(?:>{_SEGMENT})*")

NON_TENSOR_NEEDS_NAME = (
    "tf.import_graph_def() requires a non-empty `name` if `input_map` contains non-Tensor values. "
    "Try calling tf.convert_to_tensor() on `input_map` values before calling tf.import_graph_def()."
)

# What a user may call a DataType, besides TensorFlow's own names (`float`, `int32`) and `DT_FLOAT`.
_DTYPE_ALIASES = {"float32": "float", "float64": "double", "float16": "half"}


@record(frozen=True)
class TensorSpec:
    """What tflint knows of a tensor: its DataType number and shape (None: unknown).

    `python_value` marks an `input_map` value that is not a Tensor (a list, a
    number): TensorFlow turns it into a constant, and needs a `name` to.
    """

    dtype: int | None
    shape: Shape
    python_value: bool

    def __init__(self, dtype: int | None = None, shape: Shape = None, python_value: bool = False) -> None:
        vars(self).update(dtype=dtype, shape=shape, python_value=python_value)


class TensorKey(NamedTuple):
    """A tensor (or, with index -1, an operation's control output) as TensorFlow's `TensorId`."""

    node: str
    index: int  # type: ignore[assignment]  # a field, shadowing tuple.index as NamedTuple allows

    def __str__(self) -> str:
        return f"^{self.node}" if self.index == -1 else f"{self.node}:{self.index}"


class TensorNameError(ValueError):
    """A tensor name Python's `_ParseTensorName` refuses; the message is TensorFlow's."""


def parse_tensor_name(name: str) -> TensorKey:
    """Python's `importer._ParseTensorName`: `x` is `x:0`; more than one `:`, or a non-int index, raise."""
    components = name.split(":")
    if len(components) == 2:
        try:
            index = int(components[1])
        except ValueError:
            raise TensorNameError(
                f"Cannot convert {name!r} to a tensor name. Second component of the name following the `:` "
                f"should be an int. Got {components[1]}."
            ) from None
        return TensorKey(components[0], index)
    if len(components) == 1:
        return TensorKey(components[0], 0)
    raise TensorNameError(
        f"Cannot convert {name!r} to a tensor name. Tensor names should not contain more than 1 `:`. "
        f"Obtained {len(components) - 1}"
    )


def input_map_key(key: str) -> TensorKey:
    """An `input_map` key as the importer reads it: `^x` remaps x's control output, else a tensor name."""
    if key.startswith("^"):
        return TensorKey(key[1:], -1)
    return parse_tensor_name(key)


@record(frozen=True)
class ImportArgs:
    """The arguments of one `tf.graph_util.import_graph_def` call, as far as they decide its verdict.

    `input_map` maps each key, as written, to what the caller maps it to;
    `return_elements` is None when not given; `name` None means TensorFlow's
    default prefix, `import`.
    """

    input_map: Mapping[str, TensorSpec]
    return_elements: tuple[str, ...] | None
    name: str | None

    def __init__(
        self,
        input_map: Mapping[str, TensorSpec],
        return_elements: tuple[str, ...] | None = None,
        name: str | None = None,
    ) -> None:
        vars(self).update(input_map=input_map, return_elements=return_elements, name=name)

    def prefix(self) -> str:
        """The prefix of every imported node name (`import/`, `a/`, or nothing for `name=''`)."""
        if self.name is None:
            return "import/"
        if not self.name or self.name.endswith("/"):
            return self.name
        return f"{self.name}/"

    def mapped_keys(self) -> dict[TensorKey, TensorSpec]:
        """The usable `input_map` keys as TensorKeys (a later key of the same tensor wins, as in a dict).

        Keys TensorFlow refuses (bad syntax, `x:-1`) are left out.
        """
        keys: dict[TensorKey, TensorSpec] = {}
        for key, spec in self.input_map.items():
            try:
                parsed = input_map_key(key)
            except TensorNameError:
                continue
            if parsed.index == -1 and not key.startswith("^"):
                continue
            keys[parsed] = spec
        return keys

    def name_problem(self) -> str | None:
        """TensorFlow's error for an unusable `name`, or None."""
        if self.name is None or not self.name:
            return None
        if not ROOT_SCOPE_NAME.match(self.name):
            return (
                f"{self.name!r} is not a valid root scope name. A root scope name has to match the following "
                f"pattern: {ROOT_SCOPE_NAME.pattern}"
            )
        prefix = self.prefix()
        if _NODE_NAME.fullmatch(prefix[:-1]) is None:
            return f"Imported node name prefix '{prefix}' would lead to invalid node names"
        return None


@record(frozen=True)
class Interface:
    """The tensors a graph file is expected to have: `inputs` (fed or mapped) and `outputs` (fetched).

    Names follow `import_graph_def`: an input `x` is `x:0`; an output
    without `:` names an operation, with `:` a tensor.
    """

    inputs: tuple[tuple[str, TensorSpec], ...]
    outputs: tuple[tuple[str, TensorSpec], ...]

    def __init__(
        self,
        inputs: tuple[tuple[str, TensorSpec], ...] = (),
        outputs: tuple[tuple[str, TensorSpec], ...] = (),
    ) -> None:
        vars(self).update(inputs=inputs, outputs=outputs)

    def entries(self) -> Iterator[tuple[str, str, TensorSpec]]:
        """(`input` or `output`, name, spec) for every listed tensor."""
        for name, spec in self.inputs:
            yield "input", name, spec
        for name, spec in self.outputs:
            yield "output", name, spec


def shown(text: str) -> str:
    """A name fit for a one-line message: control and non-ASCII characters escaped (printable text as is)."""
    if text.isprintable() and text.isascii():
        return text
    return text.encode("unicode_escape").decode("ascii")


# -- building specs from user values ---------------------------------------------------------------


def dtype_from_name(name: str) -> int | None:
    """The DataType number of `float32`, `float`, `DT_FLOAT` (any case), or None when unknown."""
    from tflint.tf.registry import snapshot_info

    wanted = name.strip().lower()
    if wanted.startswith("dt_"):
        wanted = wanted[3:]
    wanted = _DTYPE_ALIASES.get(wanted, wanted)
    for number, known in snapshot_info().data_types.items():
        if known == wanted:
            return number
    return None


def shape_from_value(value: Any) -> Shape:
    """A shape from a list of sizes (`None` or -1: unknown size); None stays None (unknown rank).

    Raises ValueError for anything else.
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"a shape is a list of sizes (or null), not {value!r}")
    dims = []
    for size in value:
        if size is None:
            dims.append(-1)
        elif isinstance(size, int) and not isinstance(size, bool) and size >= -1:
            dims.append(size)
        else:
            raise ValueError(f"a size is an integer >= -1 (or null for unknown), not {size!r}")
    return tuple(dims)


def tensor_spec(value: Any, where: str) -> TensorSpec:
    """A TensorSpec from what a caller gives for a tensor; raises ValueError naming `where`.

    Accepted: None (nothing known), a dtype name, a mapping with optional
    `dtype` and `shape`, a `TensorSpec`, an object with TensorFlow's
    `dtype.as_datatype_enum` and `shape` (a `tf.Tensor`, `tf.TensorSpec`:
    read without importing TensorFlow), or any other value, which is a
    Python value TensorFlow converts to a constant (`python_value`).
    """
    if value is None:
        return TensorSpec()
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, str):
        return TensorSpec(dtype=_dtype(value, where))
    if isinstance(value, Mapping):
        unknown = set(value) - {"dtype", "shape"}
        if unknown:
            raise ValueError(f"{where}: unknown key {sorted(map(str, unknown))[0]!r} (expected dtype, shape)")
        dtype = value.get("dtype")
        if dtype is not None and not isinstance(dtype, str):
            raise ValueError(f"{where}.dtype: expected a dtype name such as float32, got {dtype!r}")
        try:
            shape = shape_from_value(value.get("shape"))
        except ValueError as error:
            raise ValueError(f"{where}.shape: {error}") from None
        return TensorSpec(dtype=_dtype(dtype, where) if dtype is not None else None, shape=shape)
    enum = getattr(getattr(value, "dtype", None), "as_datatype_enum", None)
    if isinstance(enum, int) and hasattr(value, "shape"):
        return TensorSpec(dtype=enum, shape=_tf_shape(value.shape))
    return TensorSpec(python_value=True)


def _dtype(name: str, where: str) -> int:
    number = dtype_from_name(name)
    if number is None:
        raise ValueError(f"{where}: unknown dtype {name!r} (e.g. float32, int64, string, bool)")
    return number


def _tf_shape(shape: Any) -> Shape:
    """A `tf.TensorShape`'s sizes (its `as_list()` raises for an unknown rank)."""
    try:
        sizes = shape.as_list()
    except (ValueError, AttributeError):
        return None
    try:
        return shape_from_value(sizes)
    except ValueError:
        return None


def api_import_args(value: Any) -> ImportArgs | None:
    """ImportArgs from the API's `import_args` (a mapping like import_graph_def's keywords, or ImportArgs), or None.

    TypeError when it is not a mapping; UsageError (exit 2) for an unknown key or an unusable value.
    """
    from tflint.errors import UsageError

    if value is None or isinstance(value, ImportArgs):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"import_args must be a mapping (input_map, return_elements, name), not {type(value).__name__}")
    unknown = set(value) - {"input_map", "return_elements", "name"}
    if unknown:
        raise UsageError(
            f"import_args: unknown key {sorted(map(str, unknown))[0]!r} (expected input_map, return_elements, name)"
        )
    try:
        return import_args(**value)
    except ValueError as error:
        raise UsageError(f"import_args: {error}") from None


def import_args(
    input_map: Mapping[str, Any] | None = None, return_elements: Any = None, name: str | None = None
) -> ImportArgs:
    """ImportArgs from `import_graph_def`-style arguments; TypeError/ValueError like TensorFlow's own checks."""
    if input_map is None:
        input_map = {}
    if not isinstance(input_map, Mapping):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    specs = {}
    for key, value in input_map.items():
        if not isinstance(key, str):
            raise TypeError("All keys for input_map must be strings.")
        specs[key] = tensor_spec(value, f"input_map[{key!r}]")
    if return_elements is not None:
        if isinstance(return_elements, str) or not all(isinstance(item, str) for item in return_elements):
            raise TypeError("return_elements must be a list of strings.")
        return_elements = tuple(return_elements)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string, not {type(name).__name__}")
    return ImportArgs(specs, return_elements, name)
