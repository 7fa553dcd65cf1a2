"""Time `tflint diff` of two big SavedModels against one lint, and watch its memory as the weights grow (issue 33).

Builds two SavedModel directories around a weights-heavy frozen graph of
gen_weights.py (a Placeholder and MatMuls on 64 MiB float32 Consts, written in
wire format a tensor at a time): `old/` holds it as written, `new/` the same
graph with one MiB of its last weight overwritten (a partial retraining), and a
serving signature from the Placeholder to the last MatMul. Then runs, each in
a fresh process, `tflint diff old new`, `tflint -j 1 new` (which reads no
weight: the mapped reader leaves them in the file) and the same lint with
non-finite-constant on (which reads every weight once), and prints wall time, CPU
time and peak RSS of each (peak RSS per child, from wait4), for each size asked
for: the diff's memory must not grow with the weights.

    python bench/review_pair.py --mib 128 512
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

BENCH = Path(__file__).resolve().parent
_CHUNK = 8 << 20


def _gen_weights():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_weights", BENCH / "gen_weights.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _signature(gen, last: str) -> bytes:  # type: ignore[no-untyped-def]
    """A serving_default SignatureDef from `input` [?, SIDE] to `last`:0, both float."""
    info_in = gen._field(1, b"input:0") + gen._int_field(2, 1) + gen._field(3, gen._shape([-1, gen.SIDE]))
    info_out = gen._field(1, f"{last}:0".encode()) + gen._int_field(2, 1) + gen._field(3, gen._shape([-1, gen.SIDE]))
    body = (
        gen._field(1, gen._field(1, b"x") + gen._field(2, info_in))
        + gen._field(2, gen._field(1, b"y") + gen._field(2, info_out))
        + gen._field(3, b"tensorflow/serving/predict")
    )
    return gen._field(5, gen._field(1, b"serving_default") + gen._field(2, body))


def _write_saved_model(graph: Path, out: Path, last: str) -> None:
    """`out/saved_model.pb`: SavedModel { schema 1, meta_graphs { tags serve, graph_def <graph>, signature } }."""
    gen = _gen_weights()
    size = graph.stat().st_size
    meta_head = gen._field(1, gen._field(4, b"serve")) + gen._varint(2 << 3 | 2) + gen._varint(size)
    meta_tail = _signature(gen, last)
    meta_size = len(meta_head) + size + len(meta_tail)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "saved_model.pb", "wb") as file, open(graph, "rb") as source:
        file.write(gen._int_field(1, 1) + gen._varint(2 << 3 | 2) + gen._varint(meta_size) + meta_head)
        shutil.copyfileobj(source, file, _CHUNK)
        file.write(meta_tail)


def build_pair(base: Path, mib: int) -> None:
    gen = _gen_weights()
    base.mkdir(parents=True, exist_ok=True)
    graph = base / "graph.pb"
    gen.write(graph, mib)
    count = mib // gen.WEIGHT_MIB
    last = f"matmul{count - 1}"
    _write_saved_model(graph, base / "old", last)
    # One MiB inside the last weight (4 MiB before the end of the file: the tail is that weight's content)
    # replaced by another MiB of the same weight, so every value stays finite.
    with open(graph, "r+b") as file:
        end = file.seek(0, os.SEEK_END)
        file.seek(end - (8 << 20))
        piece = file.read(1 << 20)
        file.seek(end - (4 << 20))
        file.write(piece)
    _write_saved_model(graph, base / "new", last)
    graph.unlink()


def _in_child(work, *args) -> None:  # type: ignore[no-untyped-def]
    """`work(*args)` in a forked child: building a pair holds hundreds of MiB, and Linux reports a high-water
    mark reached before exec as the peak RSS of every child forked afterwards (wait4's ru_maxrss)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            work(*args)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"building the pair in {args[0]} failed")


def measure(command: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of `command` in a child process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, nargs="+", default=[128, 512], help="weight MiB of each pair (x64)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (the best is kept)")
    parser.add_argument("--dir", type=Path, help="build the pairs here and keep them")
    parser.add_argument(
        "--tf-python",
        help="also time SavedModels whose weights are variables, written by this TensorFlow (tf_variables_pair.py)",
    )
    args = parser.parse_args()
    tflint = [sys.executable, "-m", "tflint"]
    with tempfile.TemporaryDirectory() as scratch:
        root = args.dir or Path(scratch)
        forms = [("constants", mib) for mib in args.mib]
        forms += [("variables", mib) for mib in args.mib if args.tf_python]
        for form, mib in forms:
            base = root / f"pair_{mib}" if form == "constants" else root / f"variables_{mib}"
            if not (base / "new" / "saved_model.pb").exists():
                if form == "constants":
                    _in_child(build_pair, base, mib)
                else:
                    script = str(BENCH / "tf_variables_pair.py")
                    subprocess.run([args.tf_python, script, str(base), str(mib)], check=True, capture_output=True)
            size = sum(path.stat().st_size for path in (base / "new").rglob("*") if path.is_file()) / (1 << 20)
            print(f"two SavedModels of {size:.0f} MiB, weights in {form}")
            results = {}
            for label, command in (
                ("tflint diff OLD NEW", [*tflint, "diff", str(base / "old"), str(base / "new")]),
                ("tflint -j 1 NEW", [*tflint, "-j", "1", str(base / "new")]),
                # The lint that reads every weight (non-finite-constant is off by default): a read of one model.
                (
                    "... --extend-select",
                    [*tflint, "-j", "1", "--extend-select", "non-finite-constant", str(base / "new")],
                ),
            ):
                runs = [measure(command) for _ in range(args.repeat)]
                wall, cpu, rss = min(runs)
                results[label] = (wall, min(run[1] for run in runs))
                print(f"  {label:<20} wall {wall:6.2f} s   cpu {cpu:6.2f} s   peak rss {rss:5d} MiB")
            diff = results["tflint diff OLD NEW"]
            for label, other in (("lint", "tflint -j 1 NEW"), ("lint reading the weights", "... --extend-select")):
                wall_ratio = diff[0] / results[other][0]
                cpu_ratio = diff[1] / results[other][1]
                print(f"  diff / {label}: wall {wall_ratio:.2f}, cpu {cpu_ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
