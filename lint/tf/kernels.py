"""TensorFlow's kernel registrations: which op, with which attrs, runs on which device type.

An OpDef says what a graph may contain; a kernel is the code that runs it on
one device type, registered with constraints on the node's attrs (`T` in
[float, double], sometimes a string or int value) and a label. A node runs on
a device type only when some kernel of that type matches it
(`KernelAttrsMatch`: each constrained attr's value, every element of a list,
is among the allowed values; the node's `_kernel` attr, default empty, equals
the label). Otherwise TensorFlow's placer fails on the first run.

tools/gen_kernels.py dumps the registrations of real wheels into
`data/kernels.json.z`, read only when a rule asks (about 3 ms): the build
names (`2.21-cpu` from `tensorflow-cpu`, `2.21-gpu` from the GPU-built
`tensorflow` wheel, which registers the CUDA kernels on top of the same CPU
ones), and per op one line per distinct kernel,
`mask|device|label|constraints|host-memory args`, where bit i of the hex
mask is build i, a constraint is `attr=1,2,3` (DataType numbers) or
`attr==[JSON values]`, and constraints are `;`-separated. An op's lines are
parsed on first use. Only the CPU, GPU and DEFAULT (every device type)
registrations are kept.
"""

from __future__ import annotations

import functools
import json
import os
import zlib
from typing import Any

from tflint.records import record
from tflint.tf.registry import DATA_DIR

# The device types a server can have that kernels are bundled for.
DEVICE_TYPES = ("CPU", "GPU")
# Kernels registered for every device type (NoOp, Identity of resources, ...).
DEFAULT_DEVICE = "DEFAULT"


@record(frozen=True)
class Kernel:
    """One kernel registration: its device type, label, attr constraints and host-memory args."""

    device: str
    label: str
    types: tuple[tuple[str, frozenset[int]], ...]  # (attr, allowed DataType numbers)
    values: tuple[tuple[str, tuple[Any, ...]], ...]  # (attr, allowed int / string / bool values)
    host_memory: tuple[str, ...]

    def __init__(
        self,
        device: str,
        label: str,
        types: tuple[tuple[str, frozenset[int]], ...],
        values: tuple[tuple[str, tuple[Any, ...]], ...] = (),
        host_memory: tuple[str, ...] = (),
    ) -> None:
        vars(self).update(device=device, label=label, types=types, values=values, host_memory=host_memory)


@functools.cache
def _table() -> dict[str, Any]:
    with open(os.path.join(DATA_DIR, "kernels.json.z"), "rb") as file:
        table: dict[str, Any] = json.loads(zlib.decompress(file.read()))
    return table


def builds() -> tuple[str, ...]:
    """The bundled builds, `<release>-<cpu|gpu>`, oldest release first."""
    return tuple(_table()["builds"])


def releases_with_kernels() -> tuple[str, ...]:
    """The TensorFlow releases whose kernels are bundled (both builds)."""
    names = [name.rsplit("-", 1)[0] for name in builds()]
    return tuple(dict.fromkeys(name for name in names if names.count(name) == 2))


def build_for(release: str, devices: tuple[str, ...]) -> str | None:
    """The build a server with these device types runs: the GPU wheel when it has a GPU; None if not bundled."""
    name = f"{release}-{'gpu' if 'GPU' in devices else 'cpu'}"
    return name if name in builds() else None


def registered_anywhere(op: str) -> bool:
    """Whether any bundled build registers a CPU, GPU or DEFAULT kernel for `op`."""
    return op in _table()["ops"]


@functools.cache
def kernels(build: str, op: str) -> tuple[Kernel, ...] | None:
    """The kernels `build` registers for `op` (CPU and GPU ones); None when the build is not bundled."""
    table = _table()
    try:
        flag = 1 << table["builds"].index(build)
    except ValueError:
        return None
    text = table["ops"].get(op)
    if not text:
        return ()
    found = []
    for line in text.split("\n"):
        mask, device, label, constraints, host = line.split("|")
        if int(mask, 16) & flag:
            found.append(_parse_kernel(device, label, constraints, host))
    return tuple(found)


def _parse_kernel(device: str, label: str, constraints: str, host: str) -> Kernel:
    types: list[tuple[str, frozenset[int]]] = []
    values: list[tuple[str, tuple[Any, ...]]] = []
    for item in constraints.split(";") if constraints else ():
        name, _, allowed = item.partition("=")
        if allowed.startswith("="):
            values.append((name, tuple(json.loads(allowed[1:]))))
        else:
            types.append((name, frozenset(int(number) for number in allowed.split(","))))
    return Kernel(device, label, tuple(types), tuple(values), tuple(host.split(",")) if host else ())


def matches(kernel: Kernel, attr_value: Any, label: str) -> bool:
    """Whether `kernel` runs a node whose attrs `attr_value(name)` gives (an AttrValue or None) and `_kernel` label.

    An attr the node lacks (no value, no default) matches nothing, as in
    TensorFlow (which fails the lookup for it).
    """
    if kernel.label != label:
        return False
    for name, allowed_types in kernel.types:
        value = attr_value(name)
        if value is None:
            return False
        kind = value.WhichOneof("value")
        if kind == "type":
            if value.type not in allowed_types:
                return False
        elif kind == "list":
            if not all(item in allowed_types for item in value.list.type):
                return False
        else:
            return False
    for name, allowed_values in kernel.values:
        value = attr_value(name)
        if value is None:
            return False
        kind = value.WhichOneof("value")
        if kind == "s":
            scalar: Any = value.s.decode("utf-8", "replace")
        elif kind in ("i", "b"):
            scalar = getattr(value, kind)
        else:
            return False
        if scalar not in allowed_values:
            return False
    return True


def supported_devices(
    kernel_list: tuple[Kernel, ...], attr_value: Any, label: str, devices: tuple[str, ...]
) -> frozenset[str]:
    """The device types of `devices` on which some kernel of `kernel_list` runs the node.

    A kernel registered for DEFAULT runs on every device type, as TensorFlow's
    lookup falls back to it when no kernel of the device's own type matches.
    """
    matching = {kernel.device for kernel in kernel_list if matches(kernel, attr_value, label)}
    if DEFAULT_DEVICE in matching:
        return frozenset(devices)
    return frozenset(matching).intersection(devices)
