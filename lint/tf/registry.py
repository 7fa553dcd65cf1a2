"""Op definitions: TensorFlow's bundled registry snapshot, user files, and a graph's own list.

Lookups go through layers, first match wins: the graph's own
`stripped_op_list`, then OpLists the user supplied, then the snapshot of
TensorFlow's registry bundled with tflint (see tools/gen_registry.py).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from tflint.records import record

T = TypeVar("T")

# The bundled snapshot, read by path beside this module (no importlib.resources at start-up).
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@record(frozen=True)
class SnapshotInfo:
    """Which TensorFlow the bundled registry was taken from."""

    tensorflow_version: str
    graph_def_version: int
    min_producer: int
    min_consumer: int
    data_types: dict[int, str]

    def __init__(
        self,
        tensorflow_version: str,
        graph_def_version: int,
        min_producer: int,
        min_consumer: int,
        data_types: dict[int, str],
    ) -> None:
        vars(self).update(
            tensorflow_version=tensorflow_version,
            graph_def_version=graph_def_version,
            min_producer=min_producer,
            min_consumer=min_consumer,
            data_types=data_types,
        )


@functools.cache
def snapshot_info() -> SnapshotInfo:
    """Metadata of the bundled registry snapshot (cheap: a small JSON file)."""
    with open(os.path.join(DATA_DIR, "registry.json"), encoding="utf-8") as file:
        raw = json.load(file)
    return SnapshotInfo(
        tensorflow_version=raw["tensorflow_version"],
        graph_def_version=int(raw["graph_def_version"]),
        min_producer=int(raw.get("graph_def_version_min_producer", 0)),
        min_consumer=int(raw.get("graph_def_version_min_consumer", 0)),
        data_types={int(number): name for number, name in raw["data_types"].items()},
    )


@functools.cache
def test_only_ops() -> frozenset[str]:
    """Ops TensorFlow registers for its own tests (`Foo3`, `Attr`...): valid in a graph, never a suggestion."""
    with open(os.path.join(DATA_DIR, "test_ops.txt"), encoding="utf-8") as file:
        return frozenset(file.read().split())


OPS_INDEX = "ops.index"


@functools.cache
def bundled_ops() -> Mapping[str, Any]:
    """Every OpDef of the bundled snapshot by name (read once per process, each op parsed on first use)."""
    with open(os.path.join(DATA_DIR, "ops.binpb"), "rb") as file:
        data = file.read()
    try:
        with open(os.path.join(DATA_DIR, OPS_INDEX), encoding="utf-8") as file:
            index = file.read()
    except OSError:
        index = ""
    return BundledOps(data, index)


class BundledOps(Mapping[str, Any]):
    """The OpDefs of a serialized OpList by name, each parsed when first asked for.

    Parsing all 1,900 ops of the snapshot and wrapping each in a message object
    took 7 ms of every run; a graph uses a few dozen. The index (ops.index, which
    tools/gen_registry.py writes with ops.binpb: ops_index) gives each op's name
    and its bytes' place in the list. Without a usable index every op is parsed
    up front, as before; an op whose bytes name another op means a stale index,
    which is then dropped the same way.
    """

    def __init__(self, data: bytes, index: str) -> None:
        self._data = data
        self._parsed: dict[str, Any] = {}
        parts = index.split()
        spans = dict(zip(parts[0::3], zip(parts[1::3], parts[2::3])))
        if len(parts) % 3 or len(spans) * 3 != len(parts) or not parts or parts[-1] != str(len(data)):
            spans = self._parse_all()
        self._spans = spans

    def _parse_all(self) -> dict[str, tuple[str, str]]:
        from tflint import protos

        op_list = protos.OpList()
        op_list.ParseFromString(self._data)
        self._parsed = {op.name: op for op in op_list.op}
        return dict.fromkeys(self._parsed, ("", ""))

    def __getitem__(self, name: str) -> Any:
        op = self._parsed.get(name)
        if op is None:
            start, end = self._spans[name]  # KeyError: not a bundled op
            from google.protobuf.message import DecodeError

            from tflint import protos

            op = None
            if start.isdigit() and end.isdigit():
                try:
                    op = protos.OpDef.FromString(self._data[int(start) : int(end)])
                except DecodeError:
                    pass
            if op is None or op.name != name:  # a stale index: parse them all
                self._spans = self._parse_all()
                return self._parsed[name]
            self._parsed[name] = op
        return op

    def get(self, name: str, default: Any = None) -> Any:  # Mapping's, without an exception per unknown op
        return self[name] if name in self._spans else default

    def __contains__(self, name: object) -> bool:
        return name in self._spans

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


def ops_index(data: bytes) -> str:
    """The index BundledOps reads for the serialized OpList `data`: `name start end` per op, in order."""
    from tflint import protos
    from tflint.wire import fields

    lines = []
    for number, _, _, start, end in fields(data):
        if number == 1:  # OpList.op
            lines.append(f"{protos.OpDef.FromString(data[start:end]).name} {start} {end}\n")
    return "".join(lines)


class OpSchema:
    """An OpDef (or a function signature) with lookups precomputed for rules."""

    __slots__ = ("name", "op_def", "attrs", "inputs", "outputs", "source", "is_function")

    def __init__(self, op_def: Any, source: str, is_function: bool = False) -> None:
        self.name: str = op_def.name
        self.op_def = op_def
        self.attrs: dict[str, Any] = {attr.name: attr for attr in op_def.attr}
        self.inputs = tuple(op_def.input_arg)
        self.outputs = tuple(op_def.output_arg)
        self.source = source
        self.is_function = is_function

    def __repr__(self) -> str:
        return f"OpSchema({self.name!r}, source={self.source!r})"


class OpRegistry:
    """Layered OpDef lookup; `schema(name)` returns None for unknown ops."""

    def __init__(
        self,
        layers: Iterable[tuple[str, Mapping[str, Any]]],
        *,
        include_bundled: bool = True,
        targets: tuple[Any, ...] = (),
    ) -> None:
        self._layers = list(layers)
        # The older TensorFlow releases (tflint.tf.releases.Release) the run judges graphs against too.
        self.targets: tuple[Any, ...] = targets
        if include_bundled:
            self._layers.append(("tensorflow", bundled_ops()))
        self._schemas: dict[str, OpSchema | None] = {}
        self._derived: dict[Any, Any] = {}

    def derived(self, factory: Callable[[OpRegistry], T]) -> T:
        """An analysis of this registry's ops shared by every graph it serves (built on first use).

        The registry's counterpart of GraphIndex.derived: the result lives and dies with the
        registry, and a registry layered over another (with_op_list) has its own.
        """
        try:
            result: T = self._derived[factory]
            return result
        except KeyError:
            value = self._derived[factory] = factory(self)
            return value

    def with_op_list(self, source: str, op_list: Any) -> OpRegistry:
        """A registry that consults `op_list` (e.g. a stripped_op_list) before this one."""
        layered = OpRegistry(
            [(source, {op.name: op for op in op_list.op})] + self._layers, include_bundled=False, targets=self.targets
        )
        return layered

    def schema(self, name: str) -> OpSchema | None:
        """The schema of op `name`, from the first layer that defines it."""
        try:
            return self._schemas[name]
        except KeyError:
            pass
        found = None
        for source, ops in self._layers:
            op_def = ops.get(name)
            if op_def is not None:
                found = OpSchema(op_def, source)
                break
        self._schemas[name] = found
        return found

    def names(self) -> Iterator[str]:
        """Every op name any layer defines (for did-you-mean suggestions)."""
        seen: set[str] = set()
        for _, ops in self._layers:
            for name in ops:
                if name not in seen:
                    seen.add(name)
                    yield name

    def layers(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The (source, ops by name) layers, most specific first."""
        return list(self._layers)


def user_registry(op_list_files: Iterable[tuple[str, Any]] = (), targets: tuple[Any, ...] = ()) -> OpRegistry:
    """The registry for a run: user OpLists (in the order given) over the bundled snapshot, and its target releases."""
    layers = [(name, {op.name: op for op in op_list.op}) for name, op_list in op_list_files]
    return OpRegistry(layers, targets=targets)
