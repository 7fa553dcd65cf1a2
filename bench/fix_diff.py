"""`tflint --diff` and `--fix` against a plain lint of the same text graph, at two sizes.

The graphs are the worst case for a diff built by comparing the two texts (difflib): TensorFlow's
text layout, every node a MatMul with one default-valued attr to strip, so the file is thousands of
near-identical lines. `--diff` and `--fix` should cost about what a lint costs at every size (the
diff is built from the removed spans, tflint.read.edit.unified_diff); `--difflib` also times
difflib's unified diff of the same two texts, in process, for comparison.

    python bench/fix_diff.py                       # 1 MB and 4 MB, median of 3 rounds
    python bench/fix_diff.py --sizes 1,2.7 --repeats 5 --difflib

Each round times the three commands back to back (lint, --diff, --fix of a fresh copy), so the
ratios of a round share the machine's speed at that moment; the table gives the median time of each
command and the median of the rounds' ratios. `--fix` lints after fixing, so its ratio includes the
lint. Not a test.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent

NODE = """\
node {
  name: "m%d"
  op: "MatMul"
  input: "x"
  input: "x"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "transpose_a"
    value {
      b: false
    }
  }
}
"""
HEAD = 'node {\n  name: "x"\n  op: "Placeholder"\n  attr {\n    key: "dtype"\n    value {\n      type: DT_FLOAT\n    }\n  }\n}\n'


def write_graph(path: Path, megabytes: float) -> int:
    """A text GraphDef of about `megabytes` MB; returns its node count."""
    parts = [HEAD]
    size = len(HEAD)
    count = 0
    while size < megabytes * 1e6:
        part = NODE % count
        parts.append(part)
        size += len(part)
        count += 1
    path.write_text("".join(parts) + "versions {\n  producer: 1994\n}\n")
    return count + 1


def _run_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4", help="text sizes in MB, comma-separated (default 1,4)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--difflib", action="store_true", help="also time difflib.unified_diff of the two texts")
    parser.add_argument("--tflint", help="the tflint command (default: the one beside this Python, else PATH)")
    args = parser.parse_args()
    run = _run_module()
    tflint = shlex.split(args.tflint or run._default_tflint())
    rows = []
    with tempfile.TemporaryDirectory(prefix="tflint-fix-bench-") as scratch:
        for megabytes in [float(size) for size in args.sizes.split(",") if size]:
            graph = Path(scratch) / f"g{megabytes:g}.pbtxt"
            nodes = write_graph(graph, megabytes)
            times: dict[str, list[float]] = {"lint": [], "diff": [], "fix": []}
            for _ in range(args.repeats):
                copy = Path(scratch) / "copy.pbtxt"
                shutil.copyfile(graph, copy)
                for key, command in (
                    ("lint", [*tflint, str(graph)]),
                    ("diff", [*tflint, "--diff", str(graph)]),
                    ("fix", [*tflint, "--fix", str(copy)]),
                ):
                    result = run.run_process(command)
                    if result["rc"] not in (0, 1):
                        raise SystemExit(f"{' '.join(command)}: exit {result['rc']}: {result['stderr'][-300:]}")
                    times[key].append(result["seconds"])
            row = {"mb": graph.stat().st_size / 1e6, "nodes": nodes}
            row.update({key: statistics.median(values) for key, values in times.items()})
            # Each round's own ratio, then their median: a round's three commands share the machine's speed.
            for key in ("diff", "fix"):
                row[f"{key}_ratio"] = statistics.median(
                    mine / lint for mine, lint in zip(times[key], times["lint"], strict=True)
                )
            if args.difflib:
                old = graph.read_text()
                new = old.replace('  attr {\n    key: "transpose_a"\n    value {\n      b: false\n    }\n  }\n', "")
                started = time.perf_counter()
                "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "g", "g"))
                row["difflib"] = time.perf_counter() - started
            rows.append(row)
            print(
                f"{row['mb']:.1f} MB ({nodes:,} nodes): lint {row['lint']:.2f} s, --diff {row['diff']:.2f} s, "
                f"--fix {row['fix']:.2f} s" + (f", difflib alone {row['difflib']:.1f} s" if "difflib" in row else ""),
                file=sys.stderr,
            )
    print(
        "| text | nodes | tflint FILE | --diff | --fix | --diff / lint | --fix / lint |" + (" difflib |" * args.difflib)
    )
    print("|---|---|---|---|---|---|---|" + ("---|" * args.difflib))
    for row in rows:
        print(
            f"| {row['mb']:.1f} MB | {row['nodes']:,} | {row['lint']:.2f} s | {row['diff']:.2f} s | {row['fix']:.2f} s "
            f"| {row['diff_ratio']:.2f} | {row['fix_ratio']:.2f} |"
            + (f" {row['difflib']:.1f} s |" if "difflib" in row else "")
        )
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        scale = last["mb"] / first["mb"]
        print(
            f"\n--diff time per MB, {last['mb']:.1f} MB / {first['mb']:.1f} MB: "
            f"{(last['diff'] / first['diff']) / scale:.2f} (1.0 is linear; --fix: {(last['fix'] / first['fix']) / scale:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
