"""Snapshot TensorFlow's kernel registrations into lint/tf/data/kernels.json.z (a maintainer tool).

Two modes (tflint never needs TensorFlow):

- `--dump DIR --build cpu|gpu`, under a Python with a TensorFlow wheel
  (`tensorflow-cpu` for `cpu`, the GPU-built `tensorflow` wheel for `gpu`: it
  imports without a GPU, and registers the CUDA kernels on top of the CPU ones):
  every kernel registration of that wheel (`get_all_registered_kernels()`: op,
  device type, type and value constraints, host-memory args, label) as
  DIR/kernels-<major.minor>-<build>.json;
- `--combine DIR` (any Python): every dump of DIR merged into one table,
  kernels.json.z, the format tflint.tf.kernels documents.
"""

from __future__ import annotations

import argparse
import json
import os
import zlib
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

REPO = Path(__file__).resolve().parents[1]
KERNELS_PATH = REPO / "lint" / "tf" / "data" / "kernels.json.z"
# The device types a CPU or GPU server places on, and DEFAULT: kernels registered for every device
# type, which the kernel lookup falls back to when no kernel of the device's own type matches.
KEPT_DEVICES = ("CPU", "GPU", "DEFAULT")
# Ops registered on every build; a dump without them is a broken one.
SENTINEL_KERNELS = (("Const", "CPU"), ("MatMul", "CPU"), ("_Arg", "CPU"), ("SaveV2", "CPU"))


def _constraint_values(constraint: Any) -> Any:
    """A constraint's allowed values: `{"type": [DataType numbers]}` for a type constraint, else the values."""
    values = constraint.allowed_values.list
    if values.type:
        return {"type": list(values.type)}
    if values.s:
        return [value.decode("utf-8", "replace") for value in values.s]
    if values.i:
        return list(values.i)
    return list(values.b)


def dump(out_dir: Path, build: str) -> None:
    """Write this TensorFlow's kernel registrations as DIR/kernels-<release>-<build>.json."""
    import tensorflow as tf
    from tensorflow.python.framework import kernels

    kernel_list = kernels.get_all_registered_kernels()
    rows = []
    for kernel in kernel_list.kernel:
        if kernel.device_type not in KEPT_DEVICES:
            continue
        constraints = {c.name: _constraint_values(c) for c in kernel.constraint}
        rows.append([kernel.op, kernel.device_type, kernel.label, constraints, sorted(kernel.host_memory_arg)])
    seen = {(row[0], row[1]) for row in rows}
    missing = [pair for pair in SENTINEL_KERNELS if pair not in seen]
    if missing:
        raise SystemExit(f"kernel registry incomplete, missing {missing}")
    release = ".".join(tf.__version__.split(".")[:2])
    rows.sort(key=lambda row: json.dumps(row, sort_keys=True))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"kernels-{release}-{build}.json"
    document = {"release": release, "build": build, "tensorflow_version": tf.__version__, "kernels": rows}
    path.write_text(json.dumps(document, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{path}: {len(rows)} kernels")


def _release_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split("."))


def _encode_kernel(device: str, label: str, constraints: dict[str, Any], host: list[str]) -> str:
    """One kernel as text: `device|label|attr=1,2;attr==["json"]|host,args` (DataType numbers, or values as JSON)."""
    parts = []
    for name in sorted(constraints):
        values = constraints[name]
        if isinstance(values, dict):
            shown = ",".join(str(value) for value in sorted(values["type"]))
        else:
            shown = "=" + json.dumps(values, separators=(",", ":"))
        parts.append(f"{name}={shown}")
    return f"{device}|{label}|{';'.join(parts)}|{','.join(host)}"


def combine(dump_dir: Path) -> None:
    """Merge every dump of DIR into KERNELS_PATH: per op, each distinct kernel with the mask of builds having it."""
    dumps = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(dump_dir.glob("kernels-*.json"))]
    dumps.sort(key=lambda item: (_release_key(item["release"]), item["build"]))
    builds = [f"{item['release']}-{item['build']}" for item in dumps]
    by_op: dict[str, dict[str, int]] = {}
    for bit, item in enumerate(dumps):
        for op, device, label, constraints, host in item["kernels"]:
            encoded = _encode_kernel(device, label, constraints, host)
            kernels = by_op.setdefault(op, {})
            kernels[encoded] = kernels.get(encoded, 0) | (1 << bit)
    ops = {op: "\n".join(f"{mask:x}|{text}" for text, mask in sorted(kernels.items())) for op, kernels in by_op.items()}
    table = {
        "builds": builds,
        "tensorflow_versions": [item["tensorflow_version"] for item in dumps],
        "ops": dict(sorted(ops.items())),
    }
    raw = json.dumps(table, separators=(",", ":")).encode("utf-8")
    KERNELS_PATH.write_bytes(zlib.compress(raw, 9))
    print(
        f"{KERNELS_PATH}: {len(builds)} builds, {len(ops)} ops, {len(raw)} bytes raw, {KERNELS_PATH.stat().st_size} stored"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", metavar="DIR", type=Path, help="dump this TensorFlow's kernels into DIR")
    parser.add_argument("--build", choices=("cpu", "gpu"), help="which wheel this TensorFlow is (with --dump)")
    parser.add_argument("--combine", metavar="DIR", type=Path, help="merge the dumps of DIR into lint/tf/data/")
    args = parser.parse_args(argv)
    if args.dump:
        if not args.build:
            parser.error("--dump needs --build cpu|gpu")
        dump(args.dump, args.build)
    elif args.combine:
        combine(args.combine)
    else:
        parser.error("give --dump DIR --build B or --combine DIR")


if __name__ == "__main__":
    main()
