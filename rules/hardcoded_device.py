"""A serving graph does not pin nodes to accelerators or to the jobs of a training cluster.

Device strings recorded at export time (`/device:GPU:0` from a GPU
training run, `/job:worker/task:1` from a distributed one) travel with the
graph. A model server places the graph on *its* devices. Checked with
TensorFlow 2.21 on a CPU-only machine: a `tf.compat.v1.Session` refuses to
run a node pinned to a GPU (`Cannot assign a device for operation add:
{{node add}} was explicitly assigned to /device:GPU:0 but available devices
are [ /job:localhost/replica:0/task:0/device:CPU:0 ]`) unless soft
placement is on, and a node pinned to `/job:worker/task:1` even with soft
placement; on a multi-GPU server the pin, not the server, decides
placement.

Reported: device strings naming a device type other than the allowed ones
(default `CPU`: TensorFlow itself pins SavedModel saver ops to
`/device:CPU:0`) or a job other than `localhost`, in the graph and in
function bodies. To keep the output short there is one finding per device
string and graph (or function), on its first node, with the count of the
nodes pinned there. Malformed device strings are `device-spec-syntax`'s.

Options: `allowed-types` (device types that may be pinned, compared
case-insensitively; default `[CPU]`). Off by default; the `serving`
preset makes it a warning.

How to fix: export with `clear_devices=True` (TF1 `Builder`,
`export_meta_graph`), or build the serving graph without `tf.device`.

Okay:
  node { name: "a" op: "NoOp" device: "/device:CPU:0" }
  node { name: "b" op: "NoOp" device: "/job:localhost/replica:0/task:0/cpu:0" }
  node { name: "c" op: "NoOp" }
Fail:
  node { name: "a" op: "NoOp" device: "/device:GPU:0" }   # hardcoded-device
  node { name: "b" op: "NoOp" device: "/device:GPU:0" }
  node { name: "c" op: "NoOp" device: "/job:worker/task:1" }   # hardcoded-device
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.devices import cpp_device_error
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

ID = "hardcoded-device"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.OFF
OPTIONS: dict[str, Any] = {"allowed-types": ["CPU"]}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per (scope, pinned device string), on the first node pinned there."""
    allowed = frozenset(kind.upper() for kind in options["allowed-types"])
    for scope in graph.scopes():
        pinned: dict[str, list[Node]] = {}
        for node in scope.nodes:
            if node.device and pin_problem(node.device, allowed) is not None:
                pinned.setdefault(node.device, []).append(node)
        for device, nodes in pinned.items():
            first = nodes[0]
            others = f" (and {len(nodes) - 1} more)" if len(nodes) > 1 else ""
            yield Issue(first, f"Node '{first.name}'{others} is pinned to '{device}': {pin_problem(device, allowed)}")


@functools.lru_cache(maxsize=4096)
def pin_problem(device: str, allowed: frozenset[str]) -> str | None:
    """Why a device string should not reach a model server, or None (allowed, or malformed)."""
    if cpp_device_error(device) is not None:
        return None
    job = kind = None
    for piece in device.split("/"):
        if not piece:
            continue
        parts = piece.split(":")
        head = parts[0]
        if head == "job" and len(parts) == 2:
            job = parts[1]
        elif head in ("replica", "task"):
            continue
        elif head == "device" and len(parts) >= 2:
            kind = parts[1]
        elif len(parts) <= 2 and head and head not in ("job", "device"):
            kind = head  # the legacy /cpu:0, /GPU:0 forms
        else:
            return None
    if kind is not None and kind != "*" and kind.upper() not in allowed:
        return f"a server needs a {kind.upper()} device to run it"
    if job is not None and job not in ("localhost", "*"):
        return "a model server runs as job 'localhost' and cannot place it, even with soft placement"
    return None
