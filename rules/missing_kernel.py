"""Every node TensorFlow runs has a kernel for its attrs on a device it may be placed on.

The OpDef allows a dtype, so the graph imports; but the release serving it
may register no kernel for that op and dtype on the server's devices: a
`uint8` `MatMul`, an `int32` `RealDiv`, a quantized `Sum`, an op with GPU
kernels only, a `_kernel` label nobody registered. TensorFlow's placer assigns the whole graph on the
first run, so one such node fails every fetch (TF Serving: at warm-up or on
the first request): `No OpKernel was registered to support Op 'MatMul' used by
{{node m}} with these attrs: [T=DT_UINT8, ...] Registered devices: [CPU]
Registered kernels: device='CPU'; T in [DT_FLOAT] ...`. The message names the
dtypes that do have kernels.

Placement follows TensorFlow's placer (`tflint.tf.placement`): the node's
device pin, its colocation group (`_class: loc:@other`, and the ends of an
edge carrying a resource or a reference: the group runs on one device type
that every member supports, and a resource's user pinned elsewhere follows
the resource), the server's device types and
soft placement. Without soft placement a pin to a device type the server
lacks (`Cannot assign a device for operation ...: ... was explicitly
assigned to /device:GPU:0 but available devices are [ ... CPU:0 ]`), or to
one without a kernel for the node (`Could not satisfy explicit device
specification '/device:GPU:0' because no supported kernel for GPU devices
is available`), and colocated nodes pinned to different device types, fail
too; soft placement picks a supported device instead. Soft placement is on
by default, as TF2 places functions and eager ops; TF Serving passes the
operator's session config to the session, so soft placement is off there
unless the operator sets it, and the `serving` preset turns it off. The
bodies of called functions are placed softly either way (TF2 functions).
Top-level nodes and the bodies of called functions are checked; an op no
bundled wheel has a CPU or GPU kernel for (TPU ops) is not judged.

Kernels are bundled for TensorFlow 1.15 to 2.21, from the `tensorflow-cpu`
wheel for a CPU-only server (`tensorflow` for 1.15 and 2.0) and from the
GPU-built `tensorflow` wheel (`tensorflow-gpu` for 1.15 and 2.0) when the
server's devices include `GPU` (`tflint.tf.kernels`): every `target-tf`
release is judged by its own kernels too (a release with none bundled would
be judged by the 2.21 kernels only).

Options: `devices` (the server's device types, default `[CPU]`; `--devices
CPU,GPU`), `soft-placement` (default true, false in the `serving` preset;
`--soft-placement` / `--no-soft-placement`).

How to fix: cast to a dtype that has a kernel before the node (the message
lists them), remove the device pin (`clear_devices=True` at export), or turn
on soft placement in the server's session config.

Okay:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "m" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } device: "/device:CPU:0" }
Fail:
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_UINT8 } } }
  node { name: "m" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_UINT8 } } }   # missing-kernel
  node { name: "g" op: "NoOp" device: "/device:GPU:0" }   # missing-kernel
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.index import GraphIndex

ID = "missing-kernel"
CATEGORY = "device"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {"devices": ["CPU"], "soft-placement": True}
COST = 3
# The docstring examples run as TF Serving places a graph: without soft placement.
EXAMPLE_CONFIG = {"rules": {ID: {"level": "error", "soft-placement": False}}}


def validate_options(options: Mapping[str, Any]) -> str | None:
    """Why the options cannot describe a server (None when they can)."""
    from tflint.tf.kernels import DEVICE_TYPES

    devices = [str(kind).upper() for kind in options["devices"]]
    unknown = [kind for kind in devices if kind not in DEVICE_TYPES]
    if not devices or unknown:
        shown = ", ".join(unknown) if unknown else "none"
        return f"devices: {shown}; missing-kernel knows the device types {', '.join(DEVICE_TYPES)}"
    return None


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield one issue per node the placer cannot place, per judged release (the newest, and bundled targets)."""
    from tflint.tf.kernels import DEVICE_TYPES, build_for, releases_with_kernels
    from tflint.tf.placement import Server, placement_problems
    from tflint.tf.registry import snapshot_info

    devices = tuple(dict.fromkeys(str(kind).upper() for kind in options["devices"]))
    if not devices or any(kind not in DEVICE_TYPES for kind in devices):
        return  # validated by the config; a library caller's odd value judges nothing rather than everything
    newest = ".".join(snapshot_info().tensorflow_version.split(".")[:2])
    bundled = releases_with_kernels()
    names = [newest] + [target.name for target in graph.registry.targets if target.name != newest]
    seen: set[tuple[int, str]] = set()
    for name in names:
        build = build_for(name, devices) if name in bundled else None
        if build is None:
            continue
        server = Server(build, devices, bool(options["soft-placement"]))
        for problem in placement_problems(graph, server):
            text = problem.text if name == newest else f"{problem.text} (TF {name})"
            key = (id(problem.node), problem.kind)
            if key not in seen:
                seen.add(key)
                yield Issue(problem.node, text)
