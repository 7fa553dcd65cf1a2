"""How many node occurrences of real graphs have a shape function in tflint (maintainer tool).

    python tools/shape_coverage.py [PATH ...]        # default: ../shared/corpus ../shared/wild
    python tools/shape_coverage.py --missing 30 PATH # and the 30 most frequent ops without one

Counts the top-level nodes of every graph of every file (the nodes shape inference runs on),
each file once (a `.pbtxt` twin of a `.pb` counts too: the corpus keeps both on purpose), and
prints covered / total node occurrences and the distinct ops.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from tflint.read.load import load_path
from tflint.read.walk import iter_graph_files
from tflint.tf.shapes import SHAPE_FNS

REPO = Path(__file__).resolve().parents[1]
DEFAULT = [str(REPO.parent / "shared" / "corpus"), str(REPO.parent / "shared" / "wild")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=DEFAULT)
    parser.add_argument("--missing", type=int, default=20, help="list this many uncovered ops")
    args = parser.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    files = 0
    for path in iter_graph_files(args.paths):
        artifact = load_path(path)
        if artifact.failure is not None:
            continue
        files += 1
        for source in artifact.graphs:
            counts.update(node.op for node in source.node_list())
    total = sum(counts.values())
    covered = sum(count for op, count in counts.items() if op in SHAPE_FNS)
    ops_covered = sum(1 for op in counts if op in SHAPE_FNS)
    print(f"{files} files, {total} nodes: {covered} ({100 * covered / max(total, 1):.2f}%) have a shape function")
    print(f"{len(counts)} distinct ops, {ops_covered} with a shape function")
    missing = [(op, count) for op, count in counts.most_common() if op not in SHAPE_FNS]
    for op, count in missing[: args.missing]:
        print(f"  {count:7d}  {op}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
