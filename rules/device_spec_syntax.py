"""Every node's device string parses with both of TensorFlow's device parsers.

TensorFlow reads a NodeDef's `device` with two parsers whose grammars
disagree, and a string either one rejects fails somewhere:

- Python's `DeviceSpec.from_string` runs when `tf.import_graph_def`
  re-applies each imported op's device (and when `tf.saved_model.load`
  rebuilds library functions). It raises `ValueError: Unknown attribute
  'foo' is encountered while parsing the device spec` (or an `int()`
  error). It splits on `/` and `:`; it knows `job:`, `replica:<int>`,
  `task:<int>`, `device:<type>:<index|*>` and the short `<type>` /
  `<type>:<index|*>` for CPU, GPU, TPU, CUSTOM and EPU (any case), and it
  ignores empty pieces. So it rejects `/device:GPU` (no index),
  `/replica:*` and `/cpu:0/device:GPU:0` (two device types).
- C++'s `DeviceNameUtils::ParseFullName` runs when the placer assigns
  devices: a Session's first run, a function call (PartitionedCall), the
  C++ SavedModel loader, TF Serving. It fails with `Malformed device
  specification '...'`. It wants a sequence of `/job:<name|*>` (name
  `[A-Za-z][A-Za-z0-9_]*`, so no `-`), `/replica:<digits|*>`,
  `/task:<digits|*>`, `/device:<type|*>[:<digits|*>]` and the legacy
  `/cpu:`, `/CPU:`, `/gpu:`, `/GPU:` plus `<digits|*>`. So it rejects
  `GPU:0`, `/cpu` (no index), `/Cpu:0`, `/tpu:0` and `/job:my-job`.

Both accept the empty string, `/`, `/cpu:0`, `/gpu:*`, `/GPU:0`,
`/device:CPU:0` and `/job:localhost/replica:0/task:0/device:GPU:0`.
The message says which parser rejects the string and why (C++'s reason
when both do). When only C++ rejects it and `tf.import_graph_def` rewrites
it into a form C++ accepts (`GPU:0` becomes `/device:GPU:0`), the message
says that only C++ loaders (TF Serving, the C++ SavedModel loader, the C
API) fail.

Where each parser really runs (verified with TensorFlow 2.21): Python reads
the devices of top-level nodes, and of function-body nodes only in a
SavedModel (`tf.saved_model.load`); a plain GraphDef's function bodies only
ever meet the C++ parser. Python also skips the device of a node colocated
with another one (`_class: "loc:@other"`), since the colocation decides its
device. C++ reads every device. Option `device-types` lists extra device
types Python's parser knows in your environment (pluggable devices such as
`XPU`).

How to fix: write devices in the canonical form
`/job:<name>/replica:<n>/task:<n>/device:<TYPE>:<n>`, leaving out the parts
you do not need, e.g. `/device:GPU:0`.

Okay:
  node { name: "a" op: "NoOp" device: "/cpu:0" }
  node { name: "b" op: "NoOp" device: "/job:worker/replica:0/task:1/device:GPU:*" }
  node { name: "c" op: "NoOp" device: "" }
Fail:
  node { name: "a" op: "NoOp" device: "/job:my-job/device:CPU:0" }   # device-spec-syntax
  node { name: "b" op: "NoOp" device: "/device:GPU" }   # device-spec-syntax
  node { name: "c" op: "NoOp" device: "/foo:1" }   # device-spec-syntax
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.devices import (
    cpp_device_error,
    python_canonical_name,
    python_device_error,
)
from tflint.tf.index import GraphIndex
from tflint.tf.node import Node

ID = "device-spec-syntax"
CATEGORY = "device"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {"device-types": []}


def validate_options(options: Mapping[str, Any]) -> str | None:
    """Device types are non-empty names without `/` or `:`."""
    for name in options["device-types"]:
        if not name or "/" in name or ":" in name:
            return f"device-types: {name!r} is not a device type name"
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per node whose device either parser rejects."""
    extra_types = frozenset(options["device-types"])
    in_saved_model = graph.artifact is not None and graph.artifact.message_type == "SavedModel"
    # Graphs repeat a handful of devices on many nodes: parse each string once.
    verdicts: dict[str, tuple[str | None, str | None]] = {}
    messages: dict[tuple[str, str | None], str | None] = {}
    for scope in graph.scopes():
        # Python rebuilds function bodies only in tf.saved_model.load.
        python_entry = (
            "tf.import_graph_def" if scope.function is None else ("tf.saved_model.load" if in_saved_model else None)
        )
        for node in scope.nodes:
            device = node.device
            if not device:
                continue
            verdict = verdicts.get(device)
            if verdict is None:
                verdict = verdicts[device] = (python_device_error(device, extra_types), cpp_device_error(device))
            if verdict[1] is None and (verdict[0] is None or python_entry is None):
                continue
            entry = python_entry if python_entry is not None and not _colocated(node) else None
            key = (device, entry)
            if key not in messages:
                messages[key] = _problem(device, entry, extra_types)
            problem = messages[key]
            if problem is not None:
                yield Issue(node, f"Node '{node.name}': device \"{device}\" {problem}")


def _problem(device: str, python_entry: str | None, extra_types: frozenset[str]) -> str | None:
    """What is wrong with `device`, naming the parser(s); None when both accept it."""
    cpp_error = cpp_device_error(device)
    python_error = python_device_error(device, extra_types) if python_entry is not None else None
    # Kept short (a finding's message stays under 200 characters): the docstring names the parsers' errors.
    if python_error is not None and cpp_error is not None:
        return f"is rejected by both device parsers (placement and {python_entry}): {cpp_error}"
    if python_error is not None:
        return f"fails in {python_entry} (Python's DeviceSpec; placement accepts it): {python_error}"
    if cpp_error is None:
        return None
    message = f"fails at placement (C++ parser): {cpp_error}"
    if python_entry is not None:
        canonical = python_canonical_name(device, extra_types)
        if canonical is not None and cpp_device_error(canonical) is None:
            message += f'; {python_entry} rewrites it to "{canonical}", so only C++ loaders fail'
    return message


def _colocated(node: Node) -> bool:
    """Whether Python's importer skips this node's device: `_class` names another node with `loc:@`."""
    value = node.attr.get("_class")
    if value is None or value.WhichOneof("value") != "list":
        return False
    own = node.name.encode("utf-8")
    return any(entry.startswith(b"loc:@") and entry[5:] != own for entry in value.list.s)
