"""Time `tflint compat` on two big SavedModels against linting one of them (issue 20: it must cost no more).

Builds a model base directory with versions 1 and 2: a SavedModel around a
graph of gen_graph.py (a signature from its Placeholder to its last node) plus
one big Const of weights to reach the size asked for; version 2 pins the
input's batch dimension (one breaking change to find). Then runs, each in a
fresh process, `tflint compat BASE` and `tflint -j 1 BASE/2`, and prints wall
time, CPU time (user + system) and peak memory of each.

    python bench/compat_pair.py --nodes 300000 --megabytes 500
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tflint import protos

BENCH = Path(__file__).resolve().parent


def build_pair(base: Path, nodes: int, megabytes: int) -> None:
    """Write BASE/1 and BASE/2 (the batch dimension pinned in 2), each about `megabytes` MB."""
    spec = importlib.util.spec_from_file_location("gen_graph", BENCH / "gen_graph.py")
    gen_graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_graph)
    graph = gen_graph.build_graph(nodes, seed=0)
    source = next(node.name for node in graph.node if node.op == "Placeholder")
    saved = protos.SavedModel(saved_model_schema_version=1)
    meta = saved.meta_graphs.add()
    meta.meta_info_def.tags.append("serve")
    meta.graph_def.CopyFrom(graph)
    padding = max(0, megabytes * 1_000_000 - graph.ByteSize())
    weights = meta.graph_def.node.add(name="weights", op="Const")
    weights.attr["dtype"].type = protos.DATA_TYPE.values_by_name["DT_FLOAT"].number
    tensor = weights.attr["value"].tensor
    tensor.dtype = weights.attr["dtype"].type
    tensor.tensor_shape.dim.add().size = padding // 4
    tensor.tensor_content = bytes(padding // 4 * 4)
    signature = meta.signature_def["serving_default"]
    signature.method_name = "tensorflow/serving/predict"
    image = signature.inputs["x"]
    image.name, image.dtype = f"{source}:0", tensor.dtype
    for size in (-1, 4):
        image.tensor_shape.dim.add().size = size
    output = signature.outputs["y"]
    output.name, output.dtype = f"{graph.node[-1].name}:0", tensor.dtype
    for version, batch in (("1", -1), ("2", 1)):
        image.tensor_shape.dim[0].size = batch
        (base / version).mkdir(parents=True, exist_ok=True)
        (base / version / "saved_model.pb").write_bytes(saved.SerializeToString())


def measure(command: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one run of `command`, that child's own (os.wait4)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped above: Popen must not wait for it again
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=300_000, help="nodes of the generated graph (default 300000)")
    parser.add_argument("--megabytes", type=int, default=500, help="size of each saved_model.pb (default 500)")
    parser.add_argument("--dir", type=Path, help="where to write the pair (default: a temporary directory)")
    parser.add_argument("--build-only", action="store_true", help="write the pair into --dir and stop")
    args = parser.parse_args(argv)
    if args.build_only:
        build_pair(args.dir, args.nodes, args.megabytes)
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        base = args.dir or Path(scratch) / "model"
        # Built by a child: a parent grown by the build would count in the children's peak RSS (fork copies it).
        build = [sys.executable, __file__, "--build-only", "--dir", str(base)]
        subprocess.run([*build, "--nodes", str(args.nodes), "--megabytes", str(args.megabytes)], check=True)
        size = os.path.getsize(base / "2" / "saved_model.pb") / 1e6
        tflint = [sys.executable, "-m", "tflint"]
        print(f"two SavedModels of {size:.0f} MB, {args.nodes} nodes each")
        # Each command in its own process, compat first: peak RSS of RUSAGE_CHILDREN only grows.
        for label, command in (
            ("tflint compat BASE", [*tflint, "compat", str(base)]),
            ("tflint -j 1 BASE/2", [*tflint, "-j", "1", str(base / "2")]),
        ):
            wall, cpu, rss = measure(command)
            print(f"{label:<22} wall {wall:6.2f} s   cpu {cpu:6.2f} s   peak rss {rss:6d} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
