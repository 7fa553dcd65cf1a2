"""How TensorFlow's placer assigns the nodes of a graph to devices, and where it fails.

On the first `Session.run` (TF Serving: at load or warm-up) the placer
assigns every node of the graph, whatever is fetched, so one node it cannot
place fails every run. A called function's body is placed when the call
first runs (checked with TensorFlow 2.21: a uint8 MatMul in a PartitionedCall's
body fails that call, and other fetches run). For each node the placer:

1. takes the device types of the process that have a kernel matching the
   node's attrs (`tflint.tf.kernels`); none: `No OpKernel was registered to
   support Op ...`, soft placement or not;
2. merges the node into its colocation group: the nodes its `_class` attr
   names (`loc:@other`), transitively. The group runs on one device type
   that every member supports;
3. honours explicit device pins (`device: "/device:GPU:0"`) of the group's
   members: a pinned type the process lacks (or a CPU other than `CPU:0`:
   a session has one CPU device), or one without a kernel for the group,
   or two members pinned to different types, fails, unless soft placement
   is on (`allow_soft_placement` in the session config: TF Serving passes
   the operator's config unchanged, so it is off unless set; TF2 functions
   place softly), which then picks a supported device instead.

An op that no bundled wheel registers a CPU or GPU kernel for (TPU ops such
as `TPUExecute`, `MlirPassthroughOp` that a graph pass rewrites away) is for
a device or a pass tflint has no data for, and is not judged. Only device
types (and the CPU's index) are judged: a GPU's index, a job, replica or
task in a pin (a training cluster's `/job:worker`) is `hardcoded-device`'s,
and a malformed device string `device-spec-syntax`'s. A node whose op no
registry knows, whose constrained attrs are missing, placeholders of a
function body, or outside the OpDef's allowed values, is left to the rules
reporting that.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from tflint.records import record
from tflint.tf.attrs import type_name
from tflint.tf.devices import cpp_device_error
from tflint.tf.functions import called_functions
from tflint.tf.index import GraphIndex, Scope
from tflint.tf.node import Node
from tflint.tf.kernels import (
    DEFAULT_DEVICE,
    Kernel,
    kernels,
    registered_anywhere,
    supported_devices,
)

NO_KERNEL = "no-kernel"
NO_DEVICE = "no-device"  # pinned to a device type the process lacks
PIN_UNSUPPORTED = "pin-unsupported"  # pinned to a device type without a kernel for the node or its group
COLOCATION = "colocation"  # colocated nodes with no common device type, or pinned to different types

_COLOCATION_PREFIX = b"loc:@"


@record(frozen=True)
class PlacementProblem:
    """Why the placer fails on `node`: `kind` (one of the constants above) and a message under 200 chars."""

    kind: str
    node: Node
    text: str

    def __init__(self, kind: str, node: Node, text: str) -> None:
        vars(self).update(kind=kind, node=node, text=text)


@record(frozen=True)
class Server:
    """What the graph runs on: the kernel build, the process's device types, and soft placement."""

    build: str
    devices: tuple[str, ...]
    soft: bool

    def __init__(self, build: str, devices: tuple[str, ...], soft: bool) -> None:
        vars(self).update(build=build, devices=devices, soft=soft)


def device_pin(device: str) -> tuple[str | None, int | None]:
    """The device type and index a device string pins (`("CPU", 0)`), each None when it names none (or `*`)."""
    kind: str | None = None
    index: int | None = None
    for part in device.split("/"):
        name, _, rest = part.partition(":")
        if name == "device":
            kind, _, number = rest.partition(":")
        elif name in ("cpu", "CPU", "gpu", "GPU"):
            kind, number = name, rest
        else:
            continue
        if kind in ("", "*"):
            kind = None
        index = int(number) if number.isdigit() else None
    if kind is not None and kind.upper() in ("CPU", "GPU"):
        kind = kind.upper()
    return kind, index


def placement_problems(graph: GraphIndex, server: Server) -> list[PlacementProblem]:
    """Every node of the graph and its called functions that the placer cannot place on `server`."""
    found = _one_per_missing_device(list(_scope_problems(graph, graph.main, server, server.soft)))
    for scope in graph.function_scopes:
        in_body = list(_scope_problems(graph, scope, server, True))
        # Which functions run is a walk over every node: worth it only for a body with a problem.
        if in_body and scope.name in called_functions(graph):
            found.extend(in_body)
    return found


def _one_per_missing_device(found: list[PlacementProblem]) -> list[PlacementProblem]:
    """One problem per device string the server lacks, on its first node, with the count of the others.

    A graph exported on a GPU pins most of its nodes there; TensorFlow stops at the first one.
    """
    pinned: dict[str, list[PlacementProblem]] = {}
    for problem in found:
        if problem.kind == NO_DEVICE:
            pinned.setdefault(problem.node.device, []).append(problem)
    if not pinned:
        return found
    kept = []
    for problem in found:
        if problem.kind != NO_DEVICE:
            kept.append(problem)
            continue
        same = pinned[problem.node.device]
        if problem is same[0]:
            more = f" (and {len(same) - 1} more nodes pinned there)" if len(same) > 1 else ""
            kept.append(PlacementProblem(NO_DEVICE, problem.node, problem.text + more))
    return kept


def _scope_problems(graph: GraphIndex, scope: Scope, server: Server, soft: bool) -> Iterator[PlacementProblem]:
    # The device types each attr group (op and shared attr dict) can run on, for the nodes this judges.
    by_group: dict[tuple[str, int], frozenset[str]] = {}
    verdicts: dict[tuple[Any, ...], frozenset[str] | None] = {}  # (op, constrained values) -> devices
    everywhere = frozenset(server.devices)
    partial = False  # some node runs on some of the server's device types only
    build, devices_of_server = server.build, server.devices
    library = graph.function_by_name
    for group in scope.attr_groups():
        first = group[0]
        attrs = first.attr
        if _unconditional(build, devices_of_server, first.op) and not (attrs and "_kernel" in attrs):
            continue  # runs everywhere, as most nodes do: nothing to record (None reads as "anywhere")
        if first.op in library:
            continue  # a function call: its body is placed, not the call
        devices = _node_devices(graph, first, server, verdicts)
        if devices is None:
            continue
        by_group[(first.op, id(first.attr))] = devices
        if not devices:
            for node in group:
                yield PlacementProblem(NO_KERNEL, node, _no_kernel_message(graph, node, server))
        elif devices != everywhere:
            partial = True

    def supported(node: Node) -> frozenset[str] | None:
        return by_group.get((node.op, id(node.attr)))

    if soft and not partial:
        return  # soft placement fails a colocation group only when its members' device types do not meet
    groups, yielding = _colocation_groups(graph, scope)
    if not soft:
        # A lone pinned node: soft placement always finds it a device (one without any was reported above).
        # Its fate depends on its device string and kernels only, so nodes sharing both share it.
        fails: dict[tuple[str, frozenset[str] | None], bool] = {}
        # A pin to a device the server has fails only for a node some of whose device types lack kernels.
        safe = {device: _pin_is_safe(device, server, partial) for device in {node.device for node in scope.nodes}}
        for node in scope.nodes:
            device = node.device
            if not device or safe[device] or id(node) in groups:
                continue
            key = (device, supported(node))
            known = fails.get(key)
            if known is False:
                continue
            problem = _group_problem([node], supported, server, soft, yielding)
            fails[key] = problem is not None
            if problem is not None:
                yield problem
    seen: set[int] = set()
    for members in groups.values():
        if id(members) in seen:
            continue
        seen.add(id(members))
        problem = _group_problem(members, supported, server, soft, yielding)
        if problem is not None:
            yield problem


@functools.lru_cache(maxsize=4096)
def _pin_type(device: str) -> str | None:
    """The device type a well-formed device string pins, None for none (a malformed one: device-spec-syntax's)."""
    if cpp_device_error(device) is not None:
        return None
    return device_pin(device)[0]


@functools.lru_cache(maxsize=4096)
def _second_cpu(device: str) -> bool:
    kind, index = device_pin(device)
    return kind == "CPU" and (index or 0) > 0


def _pin_is_safe(device: str, server: Server, partial: bool) -> bool:
    """Whether a lone node pinned there is placed whatever its kernels (when none lacks only some types)."""
    kind = _pin_type(device)
    if kind is None:
        return True
    return kind in server.devices and not _second_cpu(device) and not partial


def _group_problem(
    members: list[Node],
    supported: Callable[[Node], frozenset[str] | None],
    server: Server,
    soft: bool,
    yielding: frozenset[int] = frozenset(),
) -> PlacementProblem | None:
    """What fails when the placer puts these colocated nodes (or one pinned node) on one device type.

    `supported(node)` is the device types with a kernel for the node, None for a node not judged (any);
    the pins of the nodes in `yielding` (by id) give way to their resource's.
    """
    everywhere = frozenset(server.devices)
    common = everywhere
    for node in members:
        devices = supported(node)
        if devices is not None:
            if not devices:
                return None  # a member has no kernel at all: reported as such
            common = common & devices
    pinned = (
        []
        if soft
        else [
            (node, kind)
            for node in members
            if node.device and id(node) not in yielding
            for kind in _pinned_type(node.device)
        ]
    )
    if not soft:
        for node, kind in pinned:
            if kind not in everywhere or _second_cpu(node.device):
                text = (
                    f"Cannot assign a device for operation '{node.name}': it is explicitly assigned to "
                    f"'{_short_device(node.device)}' but the server's devices are {_device_names(server)}"
                )
                return PlacementProblem(NO_DEVICE, node, text)
        kinds = {kind for _, kind in pinned}
        if len(kinds) > 1:
            first = pinned[0][0]
            other = next(node for node, kind in pinned if kind != pinned[0][1])
            text = (
                f"Cannot colocate nodes '{_short(first.name, 40)}' and '{_short(other.name, 40)}': "
                f"they are pinned to different device types ({', '.join(sorted(kinds))})"
            )
            return PlacementProblem(COLOCATION, other, text)
    if not common:
        names = ", ".join(f"'{_short(node.name, 30)}'" for node in members[:2])
        text = (
            f"Cannot colocate nodes {names}: no device type of {', '.join(server.devices)} has kernels for all of them"
        )
        return PlacementProblem(COLOCATION, members[1] if len(members) > 1 else members[0], text)
    if not soft:
        for node, kind in pinned:
            if kind not in common:
                alone = kind not in (supported(node) or everywhere)
                whom = "" if alone else " and the nodes colocated with it"
                text = (
                    f"Cannot assign a device for operation '{_short(node.name, 40)}': could not satisfy explicit "
                    f"device specification '{_short_device(node.device)}' because no supported kernel for {kind} "
                    f"devices is available{whom} (runs on {', '.join(sorted(common))})"
                )
                return PlacementProblem(PIN_UNSUPPORTED, node, text)
    return None


def _device_names(server: Server) -> str:
    """The server's devices as a placer lists them: its one CPU device, and its GPUs (however many)."""
    return ", ".join("CPU:0" if kind == "CPU" else f"{kind}:*" for kind in server.devices)


def _pinned_type(device: str) -> tuple[str, ...]:
    kind = _pin_type(device)
    return (kind,) if kind is not None else ()


def _colocation_groups(graph: GraphIndex, scope: Scope) -> tuple[dict[int, list[Node]], frozenset[int]]:
    """id(node) -> the shared member list of its colocation group, for nodes in a group of two or more; and
    the ids of the nodes whose pin gives way to their resource's.

    Groups join the nodes a `_class` attr names, and the two ends of an edge carrying a resource or a
    reference (the placer keeps a variable and its users together). Across such an edge the consumer's
    pin gives way to the producer's, when the producer is pinned (checked with TensorFlow 2.21: a
    ReadVariableOp pinned to /device:GPU:0 reading a variable on /device:CPU:0 runs on a CPU-only
    machine without soft placement).
    """
    parent: dict[str, str] = {}

    def find(name: str) -> str:
        root = name
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(name, name) != root:
            parent[name], name = root, parent[name]
        return root

    def join(name: str, other: str) -> None:
        parent.setdefault(name, name)
        parent.setdefault(other, other)
        parent[find(name)] = find(other)

    yielding: set[int] = set()
    for node, producer in _resource_edges(graph, scope):
        join(node.name, producer.name)
        if producer.device and node.device:
            yielding.add(id(node))
    # Nodes without `_class` share attr dicts with many others: look at each dict once.
    colocated = [node for group in scope.attr_groups() if "_class" in group[0].attr for node in group]
    for node in colocated:
        for item in node.attr["_class"].list.s:
            if item.startswith(_COLOCATION_PREFIX):
                other = item[len(_COLOCATION_PREFIX) :].decode("utf-8", "replace")
                if other in scope.by_name and other != node.name:
                    join(node.name, other)
    if not parent:
        return {}, frozenset()
    by_root: dict[str, list[Node]] = {}
    for name in parent:
        member = scope.by_name.get(name)
        if member is not None:
            by_root.setdefault(find(name), []).append(member)
    groups: dict[int, list[Node]] = {}
    for members in by_root.values():
        if len(members) > 1:
            members.sort(key=lambda node: node.ordinal)
            for node in members:
                groups[id(node)] = members
    return groups, frozenset(yielding)


_RESOURCE = 20  # DT_RESOURCE


def _resource_edges(graph: GraphIndex, scope: Scope) -> Iterator[tuple[Node, Node]]:
    """(consumer, producer) for each data input carrying a resource or a reference (by the consumer's OpDef)."""
    positions_of: dict[tuple[str, int], tuple[int, ...]] = {}
    possible: dict[str, bool] = {}  # op -> whether some input of it can carry a resource or a reference
    for group in scope.attr_groups():
        first = group[0]
        op = first.op
        may = possible.get(op)
        if may is None:
            may = possible[op] = _may_carry_resource(graph, op)
        if not may:
            continue
        key = (op, id(first.attr))
        positions = positions_of.get(key)
        if positions is None:
            positions = positions_of[key] = _resource_positions(graph, first)
        if not positions:
            continue
        for node in group:
            inputs = node.data_inputs
            for position in positions:
                if position < len(inputs):
                    producer = scope.by_name.get(inputs[position].node)
                    if producer is not None and producer is not node:
                        yield node, producer


def _may_carry_resource(graph: GraphIndex, op: str) -> bool:
    """Whether an input of `op` can carry a resource or a reference, whatever the attrs (by its OpDef)."""
    schema = graph.schema_for(op)
    if schema is None or schema.is_function:
        return False
    for arg in schema.inputs:
        if arg.is_ref or arg.type == _RESOURCE or arg.type_list_attr:
            return True
        if arg.type_attr:
            attr = schema.attrs.get(arg.type_attr)
            allowed = attr.allowed_values.list.type if attr is not None and attr.HasField("allowed_values") else ()
            if not allowed or _RESOURCE in allowed:
                return True
    return False


def _resource_positions(graph: GraphIndex, node: Node) -> tuple[int, ...]:
    """The positions of `node`'s data inputs that carry a resource or a reference, by its OpDef and attrs."""
    schema = graph.schema_for(node.op)
    if schema is None or schema.is_function:
        return ()
    attrs = node.attr or {}
    found: list[int] = []
    position = 0
    for arg in schema.inputs:
        if arg.type_list_attr:
            value = attrs.get(arg.type_list_attr)
            kinds = list(value.list.type) if value is not None else []
        else:
            kind = arg.type
            if not kind and arg.type_attr:
                value = attrs.get(arg.type_attr)
                kind = value.type if value is not None and value.WhichOneof("value") == "type" else 0
            count = 1
            if arg.number_attr:
                value = attrs.get(arg.number_attr)
                count = value.i if value is not None and 0 <= value.i <= 1024 else 0
            kinds = [kind] * count
        for kind in kinds:
            if arg.is_ref or kind == _RESOURCE:
                found.append(position)
            position += 1
    return tuple(found)


# -- one node's kernels ------------------------------------------------------------


def _node_devices(
    graph: GraphIndex, node: Node, server: Server, verdicts: dict[tuple[Any, ...], frozenset[str] | None]
) -> frozenset[str] | None:
    """The device types with a kernel for `node`, or None when the node is not for this analysis to judge.

    `verdicts` caches the answer by op and the values of the attrs its kernels constrain (and the label):
    nodes of one op mostly share them.
    """
    op = node.op
    if op in graph.function_by_name:
        return None  # a function call: its body is placed, not the call
    attrs = node.attr
    if _unconditional(server.build, server.devices, op) and not (attrs and "_kernel" in attrs):
        return frozenset(server.devices)  # a kernel without constraints on every device type: most nodes
    constrained = _constrained_attrs(server.build, op)
    if constrained is None:
        return None  # no kernel in any bundled wheel for CPU or GPU (a TPU op), or the build is not bundled
    key: list[Any] = [op]
    for name in constrained:
        value = attrs.get(name) if attrs else None
        key.append(_value_key(value) if value is not None else None)
    label = _label(node)
    key.append(label)
    cache_key = tuple(key)
    try:
        return verdicts[cache_key]
    except KeyError:
        pass
    found = verdicts[cache_key] = _judge(graph, node, server, constrained, label)
    return found


def _value_key(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "list":
        return (kind, tuple(value.list.type))
    return (kind, getattr(value, kind)) if kind is not None else None


@functools.lru_cache(maxsize=None)
def _unconditional(build: str, devices: tuple[str, ...], op: str) -> bool:
    """Whether `op` runs on every device type of `devices` whatever its attrs (an unconstrained, unlabelled
    kernel on each, or on DEFAULT)."""
    runs_on = {
        kernel.device
        for kernel in kernels(build, op) or ()
        if not kernel.types and not kernel.values and not kernel.label
    }
    return DEFAULT_DEVICE in runs_on or runs_on.issuperset(devices)


@functools.lru_cache(maxsize=None)
def _constrained_attrs(build: str, op: str) -> tuple[str, ...] | None:
    """The attrs `op`'s kernels constrain, sorted; None when `op` is not judged on `build`."""
    if not registered_anywhere(op):
        return None  # a TPU op, or one a graph pass rewrites away: no device tflint knows runs it
    kernel_list = kernels(build, op)
    if kernel_list is None:
        return None
    return tuple(sorted({name for kernel in kernel_list for name, _ in (*kernel.types, *kernel.values)}))


def _judge(
    graph: GraphIndex, node: Node, server: Server, constrained: tuple[str, ...], label: str
) -> frozenset[str] | None:
    schema = graph.schema_for(node.op)
    if schema is None:
        return None
    value_of = _attr_lookup(graph, node, schema)
    for name in constrained:
        value = value_of(name)
        if value is None or value.WhichOneof("value") == "placeholder":
            return None  # missing-attr's, or bound only when the function is instantiated
        if not _within_op_def(schema.attrs.get(name), value):
            return None  # allowed-values' (the importer refuses it)
    return supported_devices(kernels(server.build, node.op) or (), value_of, label, server.devices)


def _attr_lookup(graph: GraphIndex, node: Node, schema: Any) -> Callable[[str], Any]:
    attrs = node.attr

    def value_of(name: str) -> Any:
        value = attrs.get(name) if attrs else None
        return value if value is not None else graph.attr_default(schema, name)

    return value_of


def _within_op_def(attr_def: Any, value: Any) -> bool:
    if attr_def is None or not attr_def.HasField("allowed_values"):
        return True
    allowed = attr_def.allowed_values.list
    kind = value.WhichOneof("value")
    if kind == "type" and allowed.type:
        return value.type in allowed.type
    if kind == "list" and allowed.type:
        return all(item in allowed.type for item in value.list.type)
    return True


def _label(node: Node) -> str:
    value = node.attr.get("_kernel") if node.attr else None
    return value.s.decode("utf-8", "replace") if value is not None else ""


# -- messages ----------------------------------------------------------------------


def _no_kernel_message(graph: GraphIndex, node: Node, server: Server) -> str:
    schema = graph.schema_for(node.op)
    kernel_list = kernels(server.build, node.op) or ()
    value_of = _attr_lookup(graph, node, schema)
    label = _label(node)
    constrained = sorted({name for kernel in kernel_list for name, _ in kernel.types})
    attrs = ", ".join(f"{name}={_shown_value(value_of(name))}" for name in constrained[:3])
    if label:
        attrs = f'{attrs}, _kernel="{_short(label, 20)}"' if attrs else f'_kernel="{_short(label, 20)}"'
    head = f"No OpKernel was registered to support Op '{node.op}' used by node '{_short(node.name, 40)}'"
    head += f" with these attrs: [{attrs}]" if attrs else ""
    return f"{head}; {_available(kernel_list, value_of, label, server)}"


def kernel_requirement(graph: GraphIndex, node: Node, server: Server) -> str:
    """What a node without a kernel needs, in a few words: `kernel Range[Tidx=half] on CPU`."""
    schema = graph.schema_for(node.op)
    value_of = _attr_lookup(graph, node, schema)
    kernel_list = kernels(server.build, node.op) or ()
    constrained = sorted({name for kernel in kernel_list for name, _ in kernel.types})
    attrs = ", ".join(f"{name}={_shown_value(value_of(name))}" for name in constrained[:3])
    return f"kernel {node.op}[{attrs}] on {'/'.join(server.devices)}"


def _available(kernel_list: tuple[Kernel, ...], value_of: Callable[[str], Any], label: str, server: Server) -> str:
    """What does run: the dtypes with kernels on the server's devices, or where the op has kernels at all."""
    on_server = [kernel for kernel in kernel_list if kernel.device in (*server.devices, DEFAULT_DEVICE)]
    if not on_server:
        elsewhere = sorted({kernel.device for kernel in kernel_list})
        devices = ", ".join(server.devices)
        return f"kernels on {', '.join(elsewhere)} only, not {devices}" if elsewhere else f"no kernel on {devices}"
    labels = sorted({kernel.label for kernel in on_server})
    if label not in labels:
        shown = ", ".join(f'"{item}"' for item in labels[:3])
        return f"registered labels: {shown}"
    attr = _deciding_attr(on_server, value_of, label)
    if attr is None:
        return f"no kernel on {', '.join(server.devices)} matches these attrs"
    allowed: set[int] = set()
    for kernel in on_server:
        for name, types in kernel.types:
            if name == attr:
                allowed.update(types)
    names = [type_name(number) for number in sorted(allowed)]
    listed = ", ".join(names[:6]) + (f" (+{len(names) - 6})" if len(names) > 6 else "")
    return f"{attr} has kernels on {', '.join(server.devices)} for: {listed}"


def _deciding_attr(on_server: list[Kernel], value_of: Callable[[str], Any], label: str) -> str | None:
    """A type attr whose value no kernel allows (the one to change), if there is one."""
    for name in sorted({name for kernel in on_server for name, _ in kernel.types}):
        value = value_of(name)
        if value is None:
            continue
        wanted = set(value.list.type) if value.WhichOneof("value") == "list" else {value.type}
        if not any(wanted <= types for kernel in on_server for attr, types in kernel.types if attr == name):
            return name
    return None


def _shown_value(value: Any) -> str:
    if value is None:
        return "?"
    kind = value.WhichOneof("value")
    if kind == "type":
        return type_name(value.type)
    if kind == "list":
        names = [type_name(item) for item in value.list.type]
        return "[" + ", ".join(names[:3]) + (", ..." if len(names) > 3 else "") + "]"
    return "?"


def _short_device(device: str, limit: int = 40) -> str:
    """A device string cut from the left: its end names the device type."""
    return device if len(device) <= limit else "..." + device[-(limit - 3) :]


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
